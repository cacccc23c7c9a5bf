package dev.gleaner.common.estimate;

import java.time.ZoneId;
import java.util.HashMap;
import java.util.Map;

/**
 * What the estimator knows of one worker: its speeds and bandwidth, its sessions, interruptions and
 * outages. Its sessions' changes are added to the fleet's totals as they are to its own.
 */
final class WorkerFigures {
  final Map<String, DecayingRate> speed = new HashMap<>();
  /** Its pieces' speeds' spread, by workload. */
  final Map<String, LogSpread> spread = new HashMap<>();
  final DecayingRate bandwidth = new DecayingRate(Estimator.BANDWIDTH_HALF_LIFE, Estimator.BANDWIDTH_SHIFT);
  long interruptions;
  /** Those of its interruptions seen to be crashes (not an owner's return it vacated at), in this run. */
  long crashes;
  double exposure;
  /** When the current session started (controller time), or NaN when not up. */
  double upSince = Double.NaN;
  double declaredEnd = Double.POSITIVE_INFINITY;
  /** Interruptions and time up by hour of the week; null until the wall clock is known. */
  WeeklyHazard week;
  /** When it went down interrupted (controller time), NaN when up or gone without an interruption. */
  double downSince = Double.NaN;
  /** Its returns after an interruption, and the seconds those outages lasted. */
  long returns;
  double downtime;
  /** Returns and their seconds a prior gives it (see {@link #pastOutages}). */
  long priorReturns;
  double priorDowntime;
  /** The end of its last past session read from the store, if that ended in an interruption (epoch seconds), else NaN. */
  private double pastDownSince = Double.NaN;

  DecayingRate speed(String workload) {
    return speed.computeIfAbsent(workload, k -> new DecayingRate(Estimator.SPEED_HALF_LIFE));
  }

  /** Seconds up in its current session by {@code now}; 0 when not up. */
  double live(double now) {
    return Double.isNaN(upSince) ? 0 : Math.max(0, now - upSince);
  }

  /** Seconds down since an interruption by {@code now}; 0 when not down after one. */
  double outage(double now) {
    return Double.isNaN(downSince) ? 0 : Math.max(0, now - downSince);
  }

  /** Its past as the store knows it, replacing what was known of it. */
  void history(long interruptions, double exposureSeconds, FleetFigures fleet) {
    fleet.history(interruptions - this.interruptions, exposureSeconds - this.exposure);
    this.interruptions = interruptions;
    this.exposure = exposureSeconds;
  }

  /** The outages a prior gives it, replacing those given before. */
  void pastOutages(long returns, double downtimeSeconds, FleetFigures fleet) {
    fleet.pastOutages(returns - priorReturns, downtimeSeconds - priorDowntime);
    priorReturns = returns;
    priorDowntime = downtimeSeconds;
  }

  /** A past session from the store (epoch seconds), for its hours of the week in {@code zone} and its outages. */
  void pastSession(double startEpoch, double endEpoch, boolean interrupted, ZoneId zone, FleetFigures fleet) {
    if (pastDownSince <= startEpoch) {
      returned(startEpoch - pastDownSince, fleet);
    }
    pastDownSince = interrupted ? endEpoch : Double.NaN;
    if (interrupted && endEpoch >= startEpoch) {
      fleet.upEnded(endEpoch - startEpoch);
    }
    WeeklyHazard w = week(zone);
    w.up(startEpoch, endEpoch);
    if (interrupted) {
      w.interrupted(endEpoch);
    }
  }

  /** A session starts at {@code now}: an outage after an interruption, if it was in one, ends in a return. */
  void up(double now, double declaredEnd, FleetFigures fleet) {
    if (downSince <= now) {
      returned(now - downSince, fleet);
    }
    downSince = Double.NaN;
    pastDownSince = Double.NaN;
    upSince = now;
    this.declaredEnd = declaredEnd;
  }

  /**
   * The session ends at {@code now}: its time up is counted, and, with {@code zone} (null: no wall
   * clock; controller time 0 is {@code epochAtZero}), its hours of the week.
   */
  void down(double now, boolean interrupted, boolean crash, double epochAtZero, ZoneId zone, FleetFigures fleet) {
    if (!Double.isNaN(upSince)) {
      double up = Math.max(0, now - upSince);
      exposure += up;
      fleet.up(up);
      if (zone != null) {
        week(zone).up(epochAtZero + upSince, epochAtZero + now);
      }
    }
    if (interrupted) {
      if (!Double.isNaN(upSince)) {
        fleet.upEnded(Math.max(0, now - upSince));
      }
      interruptions++;
      if (crash) {
        crashes++;
      }
      fleet.interrupted(crash);
      if (zone != null) {
        week(zone).interrupted(epochAtZero + now);
      }
    }
    upSince = Double.NaN;
    declaredEnd = Double.POSITIVE_INFINITY;
    downSince = interrupted ? now : Double.NaN;
  }

  private void returned(double seconds, FleetFigures fleet) {
    returns++;
    downtime += seconds;
    fleet.returned(seconds);
  }

  /** Its interruptions and time up by hour of the week in {@code zone}, made at the first need. */
  private WeeklyHazard week(ZoneId zone) {
    if (week == null) {
      week = new WeeklyHazard(zone);
    }
    return week;
  }
}
