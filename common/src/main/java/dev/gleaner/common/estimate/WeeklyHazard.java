package dev.gleaner.common.estimate;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * A worker's interruptions and time up by hour of the week (Monday 00:00-01:00 is hour 0), in a
 * time zone: owners come back at their hours (a lab's desktops on weekday mornings, hardly on
 * Saturday night), so the risk of the hours ahead is the rate of those hours, not the average.
 *
 * <p>The rate of an hour shrinks toward the worker's overall rate: {@code (k_h + r * c) / (T_h + c)}
 * for k_h interruptions over T_h seconds up in that hour of past weeks, overall rate r and a prior
 * worth c seconds up ({@link #PRIOR_SECONDS}), so an hour seen little says little.
 */
public final class WeeklyHazard {
  public static final int HOURS = 7 * 24;
  static final double WEEK = HOURS * 3600.0;
  /** What the overall rate weighs in each hour, in seconds up: one hour. */
  public static final double PRIOR_SECONDS = 3600;

  private final ZoneId zone;
  private final long[] interruptions = new long[HOURS];
  private final double[] exposure = new double[HOURS];

  public WeeklyHazard(ZoneId zone) {
    this.zone = zone;
  }

  /** The hour of the week of an instant (epoch seconds) in this zone. */
  public int hourOfWeek(double epochSeconds) {
    ZonedDateTime t = Instant.ofEpochSecond((long) Math.floor(epochSeconds)).atZone(zone);
    return (t.getDayOfWeek().getValue() - 1) * 24 + t.getHour();
  }

  /** The worker was up from {@code from} to {@code to} (epoch seconds). */
  public void up(double from, double to) {
    if (!(to > from)) {
      return;
    }
    // whole weeks fill every hour alike; what is left crosses at most 169 hours
    long weeks = (long) Math.floor((to - from) / WEEK);
    if (weeks > 0) {
      for (int h = 0; h < HOURS; h++) {
        exposure[h] += weeks * 3600.0;
      }
      from += weeks * WEEK;
    }
    for (int step = 0; step <= HOURS + 1 && from < to; step++) {
      double next = Math.min(to, nextHour(from));
      exposure[hourOfWeek((from + next) / 2)] += next - from;
      from = next;
    }
  }

  /** The start of the next hour on the zone's clocks after {@code t} (epoch seconds). */
  double nextHour(double t) {
    int offset = zone.getRules().getOffset(Instant.ofEpochSecond((long) Math.floor(t))).getTotalSeconds();
    double local = t + offset;
    return t + (3600 - (local - Math.floor(local / 3600) * 3600));
  }

  /** The worker was interrupted at {@code at} (epoch seconds). */
  public void interrupted(double at) {
    interruptions[hourOfWeek(at)]++;
  }

  /** Seconds up seen in each hour of the week, all hours together. */
  public double exposure() {
    double t = 0;
    for (double e : exposure) {
      t += e;
    }
    return t;
  }

  /**
   * The rate (interruptions per second up) over {@code [from, from + horizon)}: each hour's shrunk
   * rate weighted by the time the horizon spends in it.
   *
   * @param overall the worker's rate over all hours, which an hour seen little falls back to
   */
  public double rate(double from, double horizon, double overall) {
    horizon = Math.min(horizon, WEEK);
    if (!(horizon > 0)) {
      return hourRate(hourOfWeek(from), overall);
    }
    double to = from + horizon;
    double sum = 0;
    for (int step = 0; step <= HOURS + 1 && from < to; step++) {
      double next = Math.min(to, nextHour(from));
      sum += (next - from) * hourRate(hourOfWeek((from + next) / 2), overall);
      from = next;
    }
    return sum / horizon;
  }

  private double hourRate(int h, double overall) {
    return (interruptions[h] + overall * PRIOR_SECONDS) / (exposure[h] + PRIOR_SECONDS);
  }
}
