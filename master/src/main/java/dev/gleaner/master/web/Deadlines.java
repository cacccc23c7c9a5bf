package dev.gleaner.master.web;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads when something ends, as people write it: a duration from now ({@code 62h}, {@code 90m},
 * {@code 45s}, {@code 2d}, {@code 1h30m}), a date and time ({@code 2026-11-30T08:00}, in the local
 * time zone unless it names one), a time of day ({@code 08:00}: the next one to come), or a day and
 * a time of day ({@code Mon 08:00}: the next one to come, within a week).
 */
public final class Deadlines {
  private static final Pattern DAY_TIME = Pattern.compile("([a-z]+)\\s+(\\d{1,2}:\\d{2}(?::\\d{2})?)");

  private Deadlines() {}

  private static boolean isDuration(String t) {
    return t.matches("(\\d+(\\.\\d+)?\\s*[dhms]\\s*)+");
  }

  /**
   * A duration as people write it ({@code 10h}, {@code 1h30m}, {@code 90s}, {@code 2d}), in seconds.
   *
   * @throws IllegalArgumentException naming the forms taken
   */
  public static double seconds(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (!isDuration(t)) {
      throw new IllegalArgumentException("'" + text + "' is not a duration; write it as 10h, 1h30m, 90m, 45s or 2d");
    }
    // the arithmetic is Durations', which the other duration options use
    double seconds = Durations.parse("", t).toMillis() / 1000.0;
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("'" + text + "' is no time at all; write it as 10h, 1h30m, 90m, 45s or 2d");
    }
    return seconds;
  }

  /**
   * The instant meant, from {@code now}.
   *
   * @throws IllegalArgumentException with the accepted forms
   */
  static Instant parse(String text, ZonedDateTime now) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.isEmpty()) {
      throw new IllegalArgumentException(usage(text));
    }
    if (isDuration(t)) {
      double seconds = seconds(text);
      return now.toInstant().plus(Duration.ofMillis(Math.round(seconds * 1000)));
    }
    try {
      if (t.matches("\\d{1,2}:\\d{2}(:\\d{2})?")) {
        LocalTime time = LocalTime.parse(t.length() == 4 ? "0" + t : t);
        ZonedDateTime at = now.with(time);
        return (at.isAfter(now) ? at : at.plusDays(1)).toInstant();
      }
      Matcher day = DAY_TIME.matcher(t);
      if (day.matches()) {
        java.time.DayOfWeek dow = dayOfWeek(day.group(1), text);
        String hm = day.group(2);
        LocalTime time = LocalTime.parse(hm.indexOf(':') == 1 ? "0" + hm : hm);
        ZonedDateTime at = now.with(time).with(java.time.temporal.TemporalAdjusters.nextOrSame(dow));
        return (at.isAfter(now) ? at : at.plusWeeks(1)).toInstant();
      }
      if (t.endsWith("z") || t.matches(".*[+-]\\d{2}:\\d{2}$")) {
        return ZonedDateTime.parse(text.trim()).toInstant();
      }
      return LocalDateTime.parse(text.trim()).atZone(now.getZone()).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(usage(text), e);
    }
  }

  private static java.time.DayOfWeek dayOfWeek(String name, String text) {
    for (java.time.DayOfWeek d : java.time.DayOfWeek.values()) {
      String full = d.name().toLowerCase(Locale.ROOT);
      if (name.equals(full) || name.equals(full.substring(0, 3))) {
        return d;
      }
    }
    throw new IllegalArgumentException(usage(text));
  }

  public static Instant parse(String text) {
    return parse(text, ZonedDateTime.now(ZoneId.systemDefault()));
  }

  private static String usage(String text) {
    return "cannot read '" + text + "' as a time; write a duration (62h, 90m, 1h30m), a date and time"
        + " (2026-11-30T08:00), a time of day (08:00) or a day and a time (Mon 08:00)";
  }
}
