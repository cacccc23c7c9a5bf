package dev.gleaner.deploy.testbed;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A link's rate as people and {@code tc} write it: {@code 100mbit}, {@code 1.5gbit}, {@code 800kbit}
 * (bits per second, powers of 1000, as {@code tc} reads them), or {@code 12.5MB/s}, {@code 2MiB/s}
 * (bytes per second); {@code unlimited} for a link left as it is.
 *
 * @param bytesPerSecond the rate; {@link Double#POSITIVE_INFINITY} for unlimited
 */
public record Rate(double bytesPerSecond) {
  public static final Rate UNLIMITED = new Rate(Double.POSITIVE_INFINITY);
  /** A TCP segment's payload per frame on the wire: what a shaped link carries of its rate (1448 of 1514 bytes). */
  public static final double TCP_PAYLOAD = 1448.0 / 1514.0;

  /** The slowest rate a link may be shaped to: below it, tbf's buckets and TCP's timers dominate. */
  public static final double MIN_BYTES_PER_SECOND = 1000;

  private static final Pattern FORM = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*([a-zA-Z/]+)");

  public Rate {
    if (!(bytesPerSecond >= MIN_BYTES_PER_SECOND)) {
      throw new IllegalArgumentException("a link's rate must be at least 8kbit (1000 bytes/s), got " + bytesPerSecond
          + " bytes/s");
    }
  }

  public boolean unlimited() {
    return Double.isInfinite(bytesPerSecond);
  }

  /**
   * Reads {@code text}; a rate without a unit, or with one not listed, is refused with the forms
   * that are read.
   */
  public static Rate parse(String text) {
    String t = text.trim();
    if (t.equalsIgnoreCase("unlimited")) {
      return UNLIMITED;
    }
    Matcher m = FORM.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(bad(text));
    }
    double n = Double.parseDouble(m.group(1));
    double factor = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "bit" -> 1 / 8.0;
      case "kbit" -> 1e3 / 8;
      case "mbit" -> 1e6 / 8;
      case "gbit" -> 1e9 / 8;
      case "b/s" -> 1;
      case "kb/s" -> 1e3;
      case "mb/s" -> 1e6;
      case "gb/s" -> 1e9;
      case "kib/s" -> 1024;
      case "mib/s" -> 1024 * 1024;
      case "gib/s" -> 1024.0 * 1024 * 1024;
      default -> throw new IllegalArgumentException(bad(text));
    };
    try {
      return new Rate(n * factor);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "': " + e.getMessage(), e);
    }
  }

  private static String bad(String text) {
    return "'" + text + "' is not a rate: write it as tc does (100mbit, 1.5gbit, 800kbit) or in bytes"
        + " (12.5MB/s, 2MiB/s), or 'unlimited'";
  }

  /** The rate in whole bits per second, as {@code tc} is given it. */
  public long bitsPerSecond() {
    return Math.round(bytesPerSecond * 8);
  }

  @Override
  public String toString() {
    if (unlimited()) {
      return "unlimited";
    }
    double bits = bytesPerSecond * 8;
    if (bits >= 1e9) {
      return trim(bits / 1e9) + "gbit";
    }
    if (bits >= 1e6) {
      return trim(bits / 1e6) + "mbit";
    }
    return trim(bits / 1e3) + "kbit";
  }

  private static String trim(double v) {
    String s = String.format(Locale.ROOT, "%.3f", v);
    return s.replaceAll("\\.?0+$", "");
  }
}
