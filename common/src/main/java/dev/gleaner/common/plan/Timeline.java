package dev.gleaner.common.plan;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * When each worker of a plan receives its work and when each piece of it is saved, as the plan's
 * model predicts on computers that are not interrupted (seconds from the job's start). A piece is
 * the work between two checkpoints; it counts as done if its worker is still up when it is saved.
 * With replication the same units appear in several lanes, and are done if any copy is saved.
 *
 * @param lanes one per worker that gets work, in service order
 */
public record Timeline(List<Lane> lanes) {
  public static final Timeline EMPTY = new Timeline(List.of());

  public Timeline {
    lanes = List.copyOf(lanes);
  }

  /**
   * One worker's line.
   *
   * @param worker worker id
   * @param receiving when the master sends to it, in order (one interval for single-round plans)
   * @param pieces what it computes, in order, each ending with a checkpoint
   */
  public record Lane(String worker, List<Interval> receiving, List<Piece> pieces) {
    public Lane {
      receiving = List.copyOf(receiving);
      pieces = List.copyOf(pieces);
    }

    /** When it has its first data. */
    public double firstData() {
      return receiving.isEmpty() ? 0 : receiving.get(0).to();
    }

    public long units() {
      long sum = 0;
      for (Piece p : pieces) {
        sum += p.units();
      }
      return sum;
    }

    /** When the last piece is saved, or when the last data arrived if there is none. */
    public double end() {
      if (!pieces.isEmpty()) {
        return pieces.get(pieces.size() - 1).saved();
      }
      return receiving.isEmpty() ? 0 : receiving.get(receiving.size() - 1).to();
    }
  }

  /** A time interval {@code [from, to]}, seconds. */
  public record Interval(double from, double to) {}

  /**
   * Units {@code [from, to)} computed from {@code start} and saved at {@code saved} (computing time
   * plus the per-chunk overhead).
   */
  public record Piece(long from, long to, double start, double saved) {
    public long units() {
      return to - from;
    }
  }

  /** The latest time any piece is saved. */
  public double makespan() {
    double end = 0;
    for (Lane l : lanes) {
      end = Math.max(end, l.end());
    }
    return end;
  }

  /** Distinct units that appear in some lane. */
  public long deployed() {
    return Math.round(measure(null, null, Double.POSITIVE_INFINITY));
  }

  /**
   * The exact expected number of units saved when each worker is interrupted independently
   * following {@code risk}: a unit is lost only if every worker holding it is down before it saves
   * the piece that holds it.
   */
  public double expectedWork(Platform platform, RiskModel risk) {
    return expectedWork(platform, risk, Double.POSITIVE_INFINITY);
  }

  /** As {@link #expectedWork(Platform, RiskModel)}, counting only pieces saved by {@code deadline}. */
  public double expectedWork(Platform platform, RiskModel risk, double deadline) {
    return measure(risk, platform.byId(), deadline);
  }

  /**
   * Units done in one run where worker {@code id} goes down at {@code downAt.get(id)} (absent:
   * never): a unit counts if some piece holding it is saved no later than its worker goes down.
   */
  public long workDone(Map<String, Double> downAt) {
    List<long[]> saved = new ArrayList<>();
    for (Lane l : lanes) {
      double down = downAt.getOrDefault(l.worker(), Double.POSITIVE_INFINITY);
      for (Piece p : l.pieces()) {
        if (p.saved() <= down) {
          saved.add(new long[] {p.from(), p.to()});
        }
      }
    }
    return unionLength(saved);
  }

  static long unionLength(List<long[]> ranges) {
    ranges.sort(Comparator.comparingLong(r -> r[0]));
    long total = 0;
    long curFrom = Long.MIN_VALUE;
    long curTo = Long.MIN_VALUE;
    for (long[] r : ranges) {
      if (r[0] > curTo) {
        total += curTo - curFrom;
        curFrom = r[0];
        curTo = r[1];
      } else {
        curTo = Math.max(curTo, r[1]);
      }
    }
    return total + (curTo - curFrom);
  }

  private static Worker worker(Map<String, Worker> byId, Lane l) {
    Worker w = byId == null ? null : byId.get(l.worker());
    if (byId != null && w == null) {
      throw new IllegalArgumentException("timeline lane for unknown worker " + l.worker());
    }
    return w;
  }

  /** P(the piece is not saved): its worker is down first, or it is saved after the deadline. */
  private static double lost(RiskModel risk, Worker w, Piece p, double deadline) {
    return p.saved() > deadline ? 1 : risk == null ? 0 : risk.interrupted(w, p.saved());
  }

  /** Whether no two pieces share a unit: with starts and ends sorted, each start is at or after the previous end. */
  private boolean disjoint() {
    int count = 0;
    for (Lane l : lanes) {
      count += l.pieces().size();
    }
    long[] from = new long[count];
    long[] to = new long[count];
    int k = 0;
    for (Lane l : lanes) {
      for (Piece p : l.pieces()) {
        from[k] = p.from();
        to[k++] = p.to();
      }
    }
    Arrays.sort(from);
    Arrays.sort(to);
    for (int i = 1; i < count; i++) {
      if (from[i] < to[i - 1]) {
        return false;
      }
    }
    return true;
  }

  /** Sweep over unit boundaries: sum of length x P(some holder saves it); with risk == null, length. */
  private double measure(RiskModel risk, Map<String, Worker> byId, double deadline) {
    int count = 0;
    for (Lane l : lanes) {
      count += l.pieces().size();
    }
    if (count == 0) {
      return 0;
    }
    if (disjoint()) {
      // no unit is held twice (every plan without replicas): no sweep needed
      double total = 0;
      for (Lane l : lanes) {
        Worker w = worker(byId, l);
        for (Piece p : l.pieces()) {
          total += p.units() * (1 - lost(risk, w, p, deadline));
        }
      }
      return total;
    }
    // events: +piece at from, -piece at to; sorted by unit, removals first
    long[] at = new long[2 * count];
    int[] who = new int[2 * count];
    double[] lost = new double[count];
    int k = 0;
    int e = 0;
    for (Lane l : lanes) {
      Worker w = worker(byId, l);
      for (Piece p : l.pieces()) {
        lost[k] = lost(risk, w, p, deadline);
        at[e] = p.from();
        who[e++] = k + 1;
        at[e] = p.to();
        who[e++] = -(k + 1);
        k++;
      }
    }
    Integer[] idx = new Integer[2 * count];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = i;
    }
    Arrays.sort(idx, Comparator.<Integer>comparingLong(i -> at[i]).thenComparingInt(i -> who[i]));
    int[] active = new int[count];
    int[] slot = new int[count];
    int size = 0;
    double total = 0;
    long previous = 0;
    for (int j = 0; j < idx.length; j++) {
      int ev = idx[j];
      if (size > 0 && at[ev] > previous) {
        double p = 1;
        for (int a = 0; a < size; a++) {
          p *= lost[active[a]];
        }
        total += (at[ev] - previous) * (1 - p);
      }
      previous = at[ev];
      int piece = Math.abs(who[ev]) - 1;
      if (who[ev] > 0) {
        slot[piece] = size;
        active[size++] = piece;
      } else {
        int s = slot[piece];
        int last = active[--size];
        active[s] = last;
        slot[last] = s;
      }
    }
    return total;
  }
}
