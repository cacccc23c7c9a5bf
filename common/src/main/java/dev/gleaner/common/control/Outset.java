package dev.gleaner.common.control;

import java.util.List;

/**
 * Where a job stands now, as the controller sees it: what a forecast runs forward from (see
 * {@code dev.gleaner.common.sim.Forecast}).
 *
 * @param job the job with its units not yet saved or computed as its remaining units (its deadline in
 *     controller time, as before)
 * @param committed units saved so far, and those the pieces under way have computed by now at their
 *     workers' estimated speeds (they are saved at the pieces' ends)
 * @param now controller time of this outset
 * @param hosts the workers that can take the job: those up, and those down after an interruption
 *     (for less than {@link dev.gleaner.common.estimate.Estimator#DEPARTED_AFTER}), which may come back
 * @param eps the measured checkpoint round trip, seconds (NaN: not measured yet)
 * @param upShape the Weibull shape of the fleet's up periods (1: exponential; below: heavy-tailed)
 * @param downShape that of its outages
 * @param speedSpread the standard deviation of the logarithm of the job's workload's pieces' speeds
 *     (see {@code Estimator#speedSpread})
 */
public record Outset(JobDef job, long committed, double now, List<Host> hosts, double eps, double upShape,
    double downShape, double speedSpread) {
  public Outset {
    hosts = List.copyOf(hosts);
  }

  /**
   * A worker as the estimator sees it now.
   *
   * @param speed units/s for the job's workload
   * @param bandwidth bytes/s from the master (infinite for a job without input)
   * @param rate its interruptions per second up, as planned with (0: none known)
   * @param interruptions interruptions its rate rests on (a prior's included)
   * @param exposureSeconds seconds up its rate rests on (a prior's included)
   * @param upFor seconds it has been up in its current session; NaN when it is down
   * @param downFor seconds it has been down after an interruption; NaN when it is up
   * @param downtime mean seconds an interruption keeps it away (infinite: not expected back)
   * @param returns the returns after an interruption its downtime rests on, a prior's included (and
   *     the fleet's mean, weighing one)
   * @param availableUntil when it will surely be gone (controller time), or infinity
   * @param savesOnVacate its owner's returns lose nothing (see {@link WorkerInfo})
   * @param speedSeconds seconds of computing its speed rests on (0: its calibration alone)
   */
  public record Host(String id, double speed, double bandwidth, double rate, long interruptions,
      double exposureSeconds, double upFor, double downFor, double downtime, long returns, double availableUntil,
      boolean savesOnVacate, double speedSeconds) {
    public boolean up() {
      return Double.isNaN(downFor);
    }
  }
}
