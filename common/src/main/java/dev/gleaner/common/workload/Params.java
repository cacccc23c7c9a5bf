package dev.gleaner.common.workload;

import java.util.Map;

/** Typed access to workload parameters with errors that name the parameter. */
public final class Params {
  private final String workload;
  private final Map<String, String> values;

  public Params(String workload, Map<String, String> values) {
    this.workload = workload;
    this.values = values;
  }

  public String string(String key) {
    String v = values.get(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(workload + ": missing parameter '" + key + "'");
    }
    return v;
  }

  public String string(String key, String fallback) {
    String v = values.get(key);
    return v == null || v.isBlank() ? fallback : v;
  }

  public long longValue(String key) {
    return parseLong(key, string(key));
  }

  public long longValue(String key, long fallback) {
    String v = values.get(key);
    return v == null || v.isBlank() ? fallback : parseLong(key, v);
  }

  public boolean bool(String key, boolean fallback) {
    String v = values.get(key);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new IllegalArgumentException(workload + ": parameter '" + key + "' must be true or false, got '" + v + "'");
    };
  }

  /** A whole number written as a decimal and a power of ten (3e10, 1.5E9): compiled once, read at every submit. */
  private static final java.util.regex.Pattern SCIENTIFIC = java.util.regex.Pattern.compile("(?i)[0-9.]+e[0-9]+");

  private long parseLong(String key, String v) {
    String s = v.trim().replace("_", "");
    try {
      if (SCIENTIFIC.matcher(s).matches()) {
        java.math.BigDecimal d = new java.math.BigDecimal(s);
        return d.longValueExact();
      }
      return Long.parseLong(s);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(workload + ": parameter '" + key + "' must be a whole number, got '" + v + "'", e);
    }
  }

  /** Refuses parameters the workload does not know: a typo must not be silently ignored. */
  public void onlyKnown(String... known) {
    java.util.Set<String> ok = java.util.Set.of(known);
    for (String k : values.keySet()) {
      if (!ok.contains(k)) {
        throw new IllegalArgumentException(workload + ": unknown parameter '" + k + "'; known: " + String.join(", ", known));
      }
    }
  }
}
