package dev.gleaner.worker;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.common.workload.Workloads;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Measures this computer's speed for each workload that offers a calibration sample. */
final class Calibrator {
  private static final Logger log = LoggerFactory.getLogger(Calibrator.class);

  private Calibrator() {}

  /** Units per second on all cores, slowed down and capped as configured, per workload name. */
  static Map<String, Double> measure(Workloads workloads, int cores, double slowdown, double maxSpeed) {
    Map<String, Double> speeds = new LinkedHashMap<>();
    for (Workload w : workloads.all()) {
      Workload.Calibration c = w.calibration();
      if (c == null) {
        continue;
      }
      try (ChunkComputation comp = w.open(c.params(), c.start(), c.end())) {
        // repeat the sample for about half a second and keep the last run, once the JIT has warmed up
        long units = c.end() - c.start();
        double seconds = Double.NaN;
        long until = System.nanoTime() + 500_000_000L;
        for (int run = 0; run < 50 && (run < 2 || System.nanoTime() < until); run++) {
          long t0 = System.nanoTime();
          comp.compute(c.start(), c.end(), null, ChunkComputation.Cancellation.NEVER);
          seconds = Math.max(1e-6, (System.nanoTime() - t0) / 1e9);
        }
        double speed = units / seconds * cores / slowdown;
        if (maxSpeed > 0) {
          speed = Math.min(speed, maxSpeed);
        }
        speeds.put(w.name(), speed);
        log.info("calibrated {}: {} units/s on {} cores", w.name(), String.format("%.3g", speed), cores);
      } catch (Exception e) {
        log.warn("calibration of {} failed, its speed stays unknown: {}", w.name(), e.toString(), e);
      }
    }
    return speeds;
  }
}
