package dev.gleaner.common.sim;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Timeline;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The heuristics of paper 000, Section 6, for any platform: W units in chunks of {@code cs} units,
 * each chunk costing its units / speed plus eps on a worker, no communication cost (as in the
 * paper's experiments). A worker's local workload is its capacity speed / kappa (all of W for a
 * risk-free worker).
 */
public final class Heuristics {
  /** The six heuristics. */
  public enum Kind {
    /** H1-brute: every worker gets the whole workload, in order. */
    H1_BRUTE,
    /** H2-norep: chunks round-robin, no replication. */
    H2_NOREP,
    /** H3-cyclicrep: round-robin, wrapping to chunk 1, until each worker has its local workload. */
    H3_CYCLICREP,
    /** H4-randomrep: each worker its local workload of distinct chunks drawn at random. */
    H4_RANDOMREP,
    /** H5-groupgreedy: the replicate strategy's coteries and greedy group schedules (given as a timeline). */
    H5_GROUPGREEDY,
    /** H6-omniscient: knows when each worker goes down and sends it exactly what it can finish. */
    H6_OMNISCIENT;

    public String label() {
      String n = name().toLowerCase(Locale.ROOT);
      return n.substring(0, 2).toUpperCase(Locale.ROOT) + "-" + n.substring(3).replace("_", "");
    }
  }

  private Heuristics() {}

  /** The static timeline of H1-H4 (H5 comes from the replicate plan, H6 has none). */
  public static Timeline timeline(Kind kind, Platform platform, long work, long cs, double eps, long seed) {
    int chunks = (int) Math.min(Integer.MAX_VALUE - 8, -Math.floorDiv(-work, cs));
    List<Worker> workers = platform.workers();
    int p = workers.size();
    SplittableRandom random = new SplittableRandom(seed);
    List<Timeline.Lane> lanes = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      Worker w = workers.get(i);
      int local = localChunks(w, cs, chunks);
      List<Integer> mine = new ArrayList<>();
      switch (kind) {
        case H1_BRUTE -> {
          for (int c = 0; c < chunks; c++) {
            mine.add(c);
          }
        }
        case H2_NOREP -> {
          for (int c = i; c < chunks; c += p) {
            mine.add(c);
          }
        }
        case H3_CYCLICREP -> {
          boolean[] has = new boolean[chunks];
          for (long c = i; mine.size() < local && c < (long) chunks * (p + 1); c += p) {
            int chunk = (int) (c % chunks);
            if (!has[chunk]) {
              has[chunk] = true;
              mine.add(chunk);
            }
          }
        }
        case H4_RANDOMREP -> {
          int[] all = new int[chunks];
          for (int c = 0; c < chunks; c++) {
            all[c] = c;
          }
          for (int c = 0; c < local; c++) {
            int j = c + random.nextInt(chunks - c);
            int t = all[c];
            all[c] = all[j];
            all[j] = t;
            mine.add(all[c]);
          }
        }
        default -> throw new IllegalArgumentException(kind.label() + " has no static timeline of its own");
      }
      List<Timeline.Piece> pieces = new ArrayList<>();
      double t = 0;
      for (int c : mine) {
        long from = c * cs;
        long to = Math.min(work, from + cs);
        double saved = t + (to - from) / w.speed() + eps;
        pieces.add(new Timeline.Piece(from, to, t, saved));
        t = saved;
      }
      if (!pieces.isEmpty()) {
        lanes.add(new Timeline.Lane(w.id(), List.of(), pieces));
      }
    }
    return new Timeline(lanes);
  }

  /** How many chunks make w's local workload (its capacity), at least one, at most all. */
  static int localChunks(Worker w, long cs, int chunks) {
    if (w.risk() == 0) {
      return chunks;
    }
    return (int) Math.max(1, Math.min(chunks, Math.ceil(w.speed() / w.risk() / cs)));
  }

  /**
   * H6 in one trial: each worker does distinct chunks until it goes down; the units done are what
   * all of them finish, at most W.
   */
  public static double omniscient(Platform platform, long work, long cs, double eps, java.util.Map<String, Double> downAt) {
    double done = 0;
    for (Worker w : platform.workers()) {
      double down = downAt.getOrDefault(w.id(), Double.POSITIVE_INFINITY);
      double per = cs / w.speed() + eps;
      done += Math.floor(Math.min(down / per, (double) work / cs + 1)) * cs;
      if (done >= work) {
        return work;
      }
    }
    return Math.min(work, done);
  }
}
