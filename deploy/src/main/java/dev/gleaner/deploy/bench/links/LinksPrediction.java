package dev.gleaner.deploy.bench.links;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.port.Sends;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.common.sim.SimNetwork;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the theory and the simulator say of a run of the links bench, for the table beside the real
 * run: the same workers, each link at its shaped rate's TCP payload, each speed as set (or as the
 * master measured it, for a worker left to count as fast as it can), the master's port as started.
 * With a link that changes during each run, the prediction is for the network after the change,
 * from the start.
 *
 * <ul>
 *   <li>{@code plan}: the runtime's strategy planned once on that platform, knowing everything, under
 *       the port's rule (no egress limit but the uplink's): the papers' figure, the makespan of its
 *       timeline;
 *   <li>{@code simulated}: {@code gleaner simulate}'s closed loop, the real controller on a simulated
 *       port and workers, the links and the egress known or learned as the master had them before
 *       the run (a fresh master learns both as it sends).
 * </ul>
 */
final class LinksPrediction {
  /** A TCP segment's payload per frame on the wire: what a shaped link carries of its rate (1448 of 1514 bytes). */
  static final double PAYLOAD = dev.gleaner.deploy.testbed.Rate.TCP_PAYLOAD;

  private LinksPrediction() {}

  /**
   * A worker's interruptions in one run, for the simulator.
   *
   * @param seen its outages from the job's submission on (its seeded schedule, shifted by when its
   *     failure clock started)
   * @param pastInterruptions interruptions the master had seen of it before the job
   * @param pastExposureSeconds seconds up those rest on
   */
  record Risk(FailureSchedule.Seen seen, long pastInterruptions, double pastExposureSeconds) {}

  /**
   * The prediction of one run.
   *
   * @param speeds each worker's speed, bytes/s (the set one, or the measured one)
   * @param linksBefore what the master knew of the links when the run's job was submitted, bytes/s by
   *     worker, when it had measured them (a run before it): the simulated master plans with that, while
   *     each simulated link carries bytes at its shaped rate's payload (a worker not named is known at
   *     that rate); null: a master that learns the links as the job streams
   * @param risks each worker's interruptions in the run; null: none
   * @param eps the checkpoint round trip the master measured, seconds (NaN: none): what each
   *     simulated piece costs its worker, and what pieces are sized from under risk
   * @param handover the streams' mean handover the master's port measured in the run, seconds (NaN:
   *     none): how long each simulated stream holds the port before its bytes flow
   */
  static Map<String, Object> of(LinksBench.Settings settings, String strategy, long bytes, double[] speeds,
      Map<String, Double> linksBefore, List<Risk> risks, double eps, double handover) {
    boolean linksKnown = linksBefore != null;
    int n = settings.downlinks().size();
    List<Worker> platform = new ArrayList<>();
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      LinkChange change = settings.change();
      double link = (change != null && change.worker() == i + 1 ? change.rate() : settings.downlinks().get(i))
          .bytesPerSecond() * PAYLOAD;
      double kappa = settings.interruptions() == null ? 0 : settings.interruptions().risks().get(i);
      platform.add(new Worker("w" + (i + 1), speeds[i], link, kappa));
      Risk risk = risks == null ? new Risk(new FailureSchedule.Seen(0, List.of()), 0, 0) : risks.get(i);
      // the job's workload (wc) has no calibration sample: a master that ran no job across these workers
      // learns their speeds from its probe chunks, as it learns their links
      hosts.add(new ClosedLoop.Host("w" + (i + 1), speeds[i], link, linksKnown ? speeds[i] : Double.NaN,
          risk.seen().joinAt(), risk.seen().outages(), Double.POSITIVE_INFINITY)
          .withHistory(risk.pastInterruptions(), risk.pastExposureSeconds()));
    }
    double egress = settings.uplink().bytesPerSecond() * PAYLOAD;
    int sends = Sends.parse("--link-concurrent-sends", settings.concurrentSends());
    double h = Double.isFinite(handover) && handover > 0 ? handover : 0;
    SimNetwork network = new SimNetwork(egress, sends).withHandover(h);
    Map<String, Object> out = new LinkedHashMap<>();
    PlanRequest request = new PlanRequest(0, bytes, new Platform(platform), settings.chunkUnits(), 0, x -> x, 0,
        RiskModel.LINEAR, Double.NaN, false, network.planRule());
    Plan plan = Strategies.forRuntime(strategy).plan(request);
    out.put("plan", plan.timeline().makespan());
    out.put("planExpectedWork", plan.expectedWork());
    out.put("planOrder", plan.order().stream().filter(a -> !a.chunks().isEmpty()).map(a -> a.workerId()).toList());
    out.put("planStrategy", plan.strategy());
    JobDef job = JobDef.of("links", "wc", 0, bytes, strategy).withChunking(settings.chunkUnits(), 0)
        .withMinWorkers(n).withInput(1, x -> x);
    double total = 0;
    for (double s : speeds) {
      total += s;
    }
    double horizon = 1000 * (bytes / Math.min(total, egress) + 1);
    ClosedLoop.Setup setup = new ClosedLoop.Setup(ControlConfig.defaults(), 0.5,
        Double.isFinite(eps) && eps > 0 ? eps : 0, horizon)
        .with(linksKnown ? network.withLinksKnown(linksBefore) : network.withEgressLearned());
    ClosedLoop.Result r = ClosedLoop.run(job, hosts, setup);
    out.put("simulated", r.end());
    out.put("handover", h);
    int met = 0;
    for (Risk risk : risks == null ? List.<Risk>of() : risks) {
      met += (int) risk.seen().outages().stream().filter(o -> o[0] < r.end()).count();
    }
    // the outages the simulated run met, from the same schedules as the real workers'
    out.put("outagesMet", met);
    out.put("linksKnown", linksKnown);
    return out;
  }
}
