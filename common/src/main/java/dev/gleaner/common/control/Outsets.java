package dev.gleaner.common.control;

import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.estimate.Estimator;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.List;

/** Where a running job stands, as a forecast starts from it (see {@link Outset}). */
final class Outsets {
  private Outsets() {}

  /** The job's outset now, or null when nothing of it is left to compute. */
  static Outset of(ControlState s, JobLedger j, double now) {
    JobDef d = j.def;
    RangeSet left = d.remaining().copy();
    left.removeAll(j.committed);
    if (left.isEmpty()) {
      return null;
    }
    // what the pieces under way have computed by now, at their workers' speeds: saved at the pieces'
    // ends, so counted as saved (a forecast that computed them again would lose up to a piece a worker)
    RangeSet underWay = new RangeSet();
    for (Chunk c : j.chunks.values()) {
      if (c.check != null || !c.worker.up() || c.cursor >= c.end) {
        continue;
      }
      // where its worker probably is (its cursor while not started or of unknown speed), short of the next cut
      long computed = (long) Math.floor(Math.min(c.nextCut(), c.position(now, s.speed(c.worker, d.workload()))))
          - c.cursor;
      if (computed > 0) {
        underWay.add(c.cursor, c.cursor + computed);
      }
    }
    long before = left.size();
    left.removeAll(underWay);
    long credited = before - left.size();
    if (left.isEmpty()) {
      return null;
    }
    // the job has its workers already (no minimum to wait for again), and its cuts need no alignment
    // (which may read the job's input: not on a forecast's thread)
    JobDef rest = d.withRemaining(left, 1).withMinWorkers(1).withInput(d.bytesPerUnit(), x -> x);
    List<Outset.Host> hosts = new ArrayList<>();
    Estimator e = s.estimator;
    double fleetDowntime = e.fleetDowntime(now);
    for (Member m : s.members.values()) {
      double down = e.downFor(m.id, now);
      boolean up = m.up();
      if (m.unseen || !m.workloads.contains(d.workload()) || !up && !(down <= Estimator.DEPARTED_AFTER)) {
        continue;
      }
      double speed = s.speed(m, d.workload());
      if (!(speed > 0)) {
        continue;
      }
      Estimator.Risk r = e.risk(m.id, now);
      double bandwidth = d.bytesPerUnit() > 0 ? e.plannedBandwidth(m.id) : Double.POSITIVE_INFINITY;
      hosts.add(new Outset.Host(m.id, speed, bandwidth, r.rate(), r.interruptions(), r.exposureSeconds(),
          up ? e.upFor(m.id, now) : Double.NaN, up ? Double.NaN : down, e.downtime(m.id, now, fleetDowntime),
          e.returns(m.id), m.availableUntil, m.savesOnVacate, e.speedSeconds(m.id, d.workload())));
    }
    Estimate eps = e.eps();
    return new Outset(rest, j.committed.size() + credited, now, hosts, eps.known() ? eps.value() : Double.NaN,
        e.upShape(), e.downShape(), e.speedSpread(d.workload()));
  }
}
