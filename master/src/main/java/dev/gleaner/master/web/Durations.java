package dev.gleaner.master.web;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a length of time as people write it: {@code 30s}, {@code 15m}, {@code 1h30m}, {@code 500ms}, {@code 0}. */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|d|h|m|s)");

  private Durations() {}

  /**
   * @param option the option it was given to, for the error
   * @throws IllegalArgumentException naming the option, the text and the accepted forms
   */
  public static Duration parse(String option, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    if (!t.matches("(\\d+(\\.\\d+)?(ms|d|h|m|s))+")) {
      throw new IllegalArgumentException(option + ": cannot read '" + text + "' as a length of time; write 30s, 15m,"
          + " 1h30m, 500ms or 0");
    }
    Matcher m = PART.matcher(t);
    double millis = 0;
    while (m.find()) {
      double v = Double.parseDouble(m.group(1));
      millis += v * switch (m.group(2)) {
        case "ms" -> 1;
        case "s" -> 1000;
        case "m" -> 60_000;
        case "h" -> 3_600_000;
        default -> 86_400_000;
      };
    }
    return Duration.ofMillis(Math.round(millis));
  }
}
