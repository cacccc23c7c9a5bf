package dev.gleaner.common.time;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a computer may work, as windows of the week in a time zone: {@code Fri 18:00-Mon 08:00}
 * (from a day and time to a day and time) or {@code 18:00-08:00} (every day). Answers whether an
 * instant is inside, when the window around it ends, and when the next one begins.
 *
 * <p>How: each window becomes an interval of minutes of the week (Monday 00:00 is minute 0), a
 * window that crosses Sunday midnight being cut in two; overlapping and touching intervals are
 * merged, so the windows Sun 20:00-Mon 08:00 and Mon 08:00-12:00 are one window to the queries. An
 * instant is placed in the week by its local date and time; a boundary found in the week is turned
 * back into an instant by adding the minutes to that local time and resolving it in the zone (a
 * local time that a daylight-saving change skips moves forward by the gap, as {@link ZonedDateTime}
 * resolves it).
 */
public final class WeeklyWindows {
  /** Minutes in a week. */
  static final int WEEK = 7 * 24 * 60;
  private static final String FORM = "expected 'DAY HH:MM-DAY HH:MM' (e.g. 'Fri 18:00-Mon 08:00') or 'HH:MM-HH:MM'"
      + " (every day), several separated by commas";
  private static final Pattern WEEKLY = Pattern.compile("([A-Za-z]+)\\s+(\\d{1,2}:\\d{2})\\s*-\\s*([A-Za-z]+)\\s+(\\d{1,2}:\\d{2})");
  private static final Pattern DAILY = Pattern.compile("(\\d{1,2}:\\d{2})\\s*-\\s*(\\d{1,2}:\\d{2})");

  /** Merged, disjoint, increasing intervals [from, to) of minutes of the week, inside [0, WEEK]. */
  private final int[][] spans;
  private final String text;
  private final ZoneId zone;

  private WeeklyWindows(int[][] spans, String text, ZoneId zone) {
    this.spans = spans;
    this.text = text;
    this.zone = zone;
  }

  /**
   * Parses windows; each text may hold several separated by commas.
   *
   * @throws IllegalArgumentException naming the text that is not a window and the expected form
   */
  public static WeeklyWindows parse(List<String> texts, ZoneId zone) {
    List<int[]> raw = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    for (String t : texts) {
      for (String part : t.split(",", -1)) {
        String p = part.trim();
        if (p.isEmpty()) {
          throw new IllegalArgumentException("an empty window in '" + t + "': " + FORM);
        }
        raw.addAll(window(p));
        parts.add(p);
      }
    }
    if (raw.isEmpty()) {
      throw new IllegalArgumentException("no window given: " + FORM);
    }
    return new WeeklyWindows(merge(raw), String.join(", ", parts), zone);
  }

  /** One window's intervals of minutes of the week (one a day for a daily window). */
  private static List<int[]> window(String p) {
    Matcher w = WEEKLY.matcher(p);
    if (w.matches()) {
      int from = day(w.group(1), p) * 1440 + minuteOfDay(w.group(2), p, false);
      int to = day(w.group(3), p) * 1440 + minuteOfDay(w.group(4), p, true);
      if (from == to) {
        throw new IllegalArgumentException("the window '" + p + "' is empty (it starts where it ends): " + FORM);
      }
      return interval(from, to > from ? to : to + WEEK);
    }
    Matcher d = DAILY.matcher(p);
    if (d.matches()) {
      int from = minuteOfDay(d.group(1), p, false);
      int to = minuteOfDay(d.group(2), p, true);
      if (from == to) {
        throw new IllegalArgumentException("the window '" + p + "' is empty (it starts where it ends): " + FORM);
      }
      List<int[]> out = new ArrayList<>();
      for (int day = 0; day < 7; day++) {
        out.addAll(interval(day * 1440 + from, day * 1440 + (to > from ? to : to + 1440)));
      }
      return out;
    }
    throw new IllegalArgumentException("'" + p + "' is not an availability window: " + FORM);
  }

  /** Minutes {@code from} (in the week) to {@code to > from}, cut in two where the week ends. */
  private static List<int[]> interval(int from, int to) {
    if (to <= WEEK) {
      return List.of(new int[] {from, to});
    }
    return List.of(new int[] {from, WEEK}, new int[] {0, to - WEEK});
  }

  private static int day(String name, String window) {
    String n = name.toLowerCase(Locale.ROOT);
    for (DayOfWeek d : DayOfWeek.values()) {
      String full = d.name().toLowerCase(Locale.ROOT);
      if (n.length() >= 3 && full.startsWith(n)) {
        return d.getValue() - 1;
      }
    }
    throw new IllegalArgumentException("'" + name + "' in the window '" + window + "' is not a day of the week"
        + " (Mon, Tue, Wed, Thu, Fri, Sat, Sun or their full names): " + FORM);
  }

  private static int minuteOfDay(String hhmm, String window, boolean end) {
    int colon = hhmm.indexOf(':');
    int h = Integer.parseInt(hhmm.substring(0, colon));
    int m = Integer.parseInt(hhmm.substring(colon + 1));
    if (m > 59 || h > 24 || h == 24 && (m != 0 || !end)) {
      throw new IllegalArgumentException("'" + hhmm + "' in the window '" + window + "' is not a time of day"
          + " (00:00 to 23:59, or 24:00 as an end): " + FORM);
    }
    return h * 60 + m;
  }

  private static int[][] merge(List<int[]> raw) {
    List<int[]> sorted = new ArrayList<>(raw);
    sorted.sort((a, b) -> Integer.compare(a[0], b[0]));
    List<int[]> out = new ArrayList<>();
    for (int[] s : sorted) {
      int[] last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && s[0] <= last[1]) {
        last[1] = Math.max(last[1], s[1]);
      } else {
        out.add(new int[] {s[0], s[1]});
      }
    }
    return out.toArray(new int[0][]);
  }

  /** The zone the windows are read in. */
  public ZoneId zone() {
    return zone;
  }

  /** Whether the windows cover the whole week (the computer may always work). */
  public boolean always() {
    return spans.length == 1 && spans[0][0] == 0 && spans[0][1] == WEEK;
  }

  /** Whether {@code t} lies inside a window. */
  public boolean contains(Instant t) {
    return spanAt(minuteOfWeek(t)) >= 0;
  }

  /**
   * When the window around {@code t} ends; empty when the windows cover the whole week.
   *
   * @throws IllegalStateException if {@code t} is outside every window
   */
  public Optional<Instant> end(Instant t) {
    double m = minuteOfWeek(t);
    int i = spanAt(m);
    if (i < 0) {
      throw new IllegalStateException(t + " is outside the windows " + text);
    }
    if (always()) {
      return Optional.empty();
    }
    double end = spans[i][1];
    if (end == WEEK && spans[0][0] == 0) {
      // the window goes on across the week's end, into the first interval of the next week
      end = WEEK + spans[0][1];
    }
    return Optional.of(shift(t, m, end));
  }

  /** When the next window begins at or after {@code t}: {@code t} itself when inside one. */
  public Instant nextStart(Instant t) {
    double m = minuteOfWeek(t);
    if (spanAt(m) >= 0) {
      return t;
    }
    for (int[] s : spans) {
      if (s[0] > m) {
        return shift(t, m, s[0]);
      }
    }
    return shift(t, m, WEEK + spans[0][0]);
  }

  /** The index of the interval holding minute {@code m}, or -1. */
  private int spanAt(double m) {
    for (int i = 0; i < spans.length; i++) {
      if (m >= spans[i][0] && m < spans[i][1]) {
        return i;
      }
    }
    return -1;
  }

  /** Minutes since Monday 00:00 of {@code t}'s local week, with fractions. */
  private double minuteOfWeek(Instant t) {
    LocalDateTime l = LocalDateTime.ofInstant(t, zone);
    return (l.getDayOfWeek().getValue() - 1) * 1440 + l.getHour() * 60 + l.getMinute()
        + (l.getSecond() + l.getNano() / 1e9) / 60;
  }

  /** The instant at minute {@code target} of the week of {@code t} (at minute {@code m}); later weeks past WEEK. */
  private Instant shift(Instant t, double m, double target) {
    LocalDateTime weekStart = LocalDateTime.ofInstant(t, zone).truncatedTo(ChronoUnit.DAYS)
        .minusDays(LocalDateTime.ofInstant(t, zone).getDayOfWeek().getValue() - 1);
    LocalDateTime at = weekStart.plusMinutes((long) target);
    Instant out = ZonedDateTime.of(at, zone).toInstant();
    // a daylight-saving change can put the local boundary at or before t: it is then the next one's business
    return out.isAfter(t) ? out : t.plusSeconds((long) Math.ceil((target - m) * 60));
  }

  /** The windows as given, normalised: what the worker logs and reports. */
  @Override
  public String toString() {
    return text + " (" + zone + ")";
  }
}
