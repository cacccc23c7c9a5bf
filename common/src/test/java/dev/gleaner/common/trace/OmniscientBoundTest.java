package dev.gleaner.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.sim.Heuristics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OmniscientBoundTest {
  /**
   * The most units one worker can save in one up period of length l, by trying every cut of up to
   * {@code max} units into pieces, in order: each piece's input streams at bw after the previous
   * one's, it is computed once its input is there and the previous piece is saved, and it must be
   * saved (x/s + eps) by l.
   */
  private static long bruteForce(double l, double s, double bw, double eps, int max) {
    long best = 0;
    for (int total = 1; total <= max; total++) {
      // every composition of total: bit i of mask set = a cut after unit i+1
      for (int mask = 0; mask < 1 << (total - 1); mask++) {
        double sent = 0;
        double free = 0;
        int from = 0;
        boolean ok = true;
        for (int i = 1; i <= total && ok; i++) {
          if (i == total || (mask & 1 << (i - 1)) != 0) {
            int x = i - from;
            sent += x / bw;
            free = Math.max(free, sent) + x / s + eps;
            ok = free <= l;
            from = i;
          }
        }
        if (ok) {
          best = Math.max(best, total);
        }
      }
    }
    return best;
  }

  @Test
  void onePeriodMatchesBruteForceOverEveryCut() {
    SplittableRandom r = new SplittableRandom(5);
    for (int trial = 0; trial < 300; trial++) {
      double s = 1 + r.nextInt(4);
      double bw = r.nextBoolean() ? Double.POSITIVE_INFINITY : 1 + r.nextInt(6);
      double eps = r.nextInt(5) * 0.25;
      double l = r.nextInt(1, 14) * 0.25;
      // one unit more than could ever fit (s l <= 13), so the brute force is not capped
      long best = bruteForce(l, s, bw, eps, (int) Math.ceil(s * l) + 1);
      long bound = OmniscientBound.period(l, Math.min(s, bw), eps);
      String where = "l=" + l + " s=" + s + " bw=" + bw + " eps=" + eps;
      if (Double.isInfinite(bw)) {
        // no input: one piece per period is a schedule, the bound is reached
        assertEquals(best, bound, where);
      } else {
        // input: the last piece's compute after the last byte makes the bound an upper one
        assertTrue(bound >= best, where + ": bound " + bound + " below a schedule's " + best);
      }
    }
  }

  @Test
  void aTraceAddsItsPeriodsUpToTheWorkAndTheHorizon() {
    SplittableRandom r = new SplittableRandom(9);
    for (int trial = 0; trial < 100; trial++) {
      List<TraceEvent> events = new ArrayList<>();
      List<Worker> workers = new ArrayList<>();
      Map<String, List<double[]>> periods = new HashMap<>();
      for (int k = 0; k < 3; k++) {
        String id = "n" + k;
        double s = 1 + r.nextInt(3);
        workers.add(new Worker(id, s, Double.POSITIVE_INFINITY, 0));
        double t = 0;
        boolean up = r.nextBoolean();
        while (t < 12) {
          double len = r.nextInt(1, 12) * 0.5;
          events.add(new TraceEvent(id, up, t, t + len, 0));
          if (up) {
            periods.computeIfAbsent(id, x -> new ArrayList<>()).add(new double[] {t, t + len, s});
          }
          t += len;
          up = !up;
        }
      }
      AvailabilityTrace trace = AvailabilityTrace.of(events, "test");
      double eps = r.nextInt(3) * 0.5;
      double horizon = 1 + r.nextInt(14);
      long work = 1 + r.nextInt(60);
      long sum = 0;
      for (List<double[]> ps : periods.values()) {
        for (double[] p : ps) {
          double l = Math.min(p[1], horizon) - p[0];
          if (l > 0) {
            sum += bruteForce(l, p[2], Double.POSITIVE_INFINITY, eps, (int) Math.ceil(p[2] * l) + 1);
          }
        }
      }
      assertEquals(Math.min(work, sum), OmniscientBound.units(trace, new Platform(workers), work, eps, horizon));
    }
  }

  /** One up period [0, down) per worker, fixed chunks: the bound is paper 000's H6. */
  @Test
  void oneInterruptionPerWorkerIsPaperH6() {
    SplittableRandom r = new SplittableRandom(3);
    for (int trial = 0; trial < 200; trial++) {
      List<Worker> workers = new ArrayList<>();
      List<TraceEvent> events = new ArrayList<>();
      Map<String, Double> downAt = new HashMap<>();
      int p = 1 + r.nextInt(6);
      for (int k = 0; k < p; k++) {
        String id = "w" + k;
        workers.add(new Worker(id, 0.5 + r.nextDouble() * 3, Double.POSITIVE_INFINITY, 0.001));
        double down = 0.1 + r.nextDouble() * 1000;
        downAt.put(id, down);
        events.add(new TraceEvent(id, true, 0, down, 0));
        events.add(new TraceEvent(id, false, down, 2000, 0));
      }
      Platform platform = new Platform(workers);
      long work = 1 + r.nextInt(5000);
      long cs = 1 + r.nextInt(50);
      double eps = r.nextDouble() * 3;
      AvailabilityTrace trace = AvailabilityTrace.of(events, "test");
      assertEquals(Heuristics.omniscient(platform, work, cs, eps, downAt),
          OmniscientBound.units(trace, platform, work, eps, 2000, cs), 0.0, "trial " + trial);
    }
  }

  @Test
  void aPeriodNoLongerThanEpsSavesNothing() {
    assertEquals(0, OmniscientBound.period(2, 10, 2));
    assertEquals(10, OmniscientBound.period(3, 10, 2));
  }
}
