package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Assignment;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.plan.Timeline;
import dev.gleaner.common.plan.Timelines;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.SimNetwork;
import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.common.sim.Heuristics;
import dev.gleaner.common.sim.Simulator;
import dev.gleaner.deploy.client.StatusView;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner simulate}: Monte Carlo runs of a plan with sampled interruptions, beside its expectation. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
    header = "Predict what the runtime will do, on a simulated clock.", sortOptions = false,
    description = {"Predict what the runtime will do: run the master's own controller on a simulated clock"
        + " (the master's port as --concurrent-sends says, each worker's speed and link, interruptions drawn from the"
        + " risk model), and, beside it,"
        + " run the static plan many times and compare its mean with the plan's exact expectation.", "",
        "  gleaner simulate --platform lab.json --work 100000 --trials 10000 --seed 1",
        "  gleaner simulate --platform lab.json --work 100000 --deadline 7200 --runs 200 --downtime 600",
        "  gleaner simulate --platform lab.json --work 100000 --strategy distrib --eps 2 --heuristics --json",
        "  gleaner simulate --platform desktops.json --work 2000000 --trace desktops.tab"})
public final class SimulateCommand implements Callable<Integer> {
  /** Strategies whose timeline is one round, one port: their single-chunk version is comparable. */
  private static final Set<String> SINGLE_ROUND = Set.of("distrib", "equal", "proportional");

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  PlanOptions options;

  @Option(names = "--trials", paramLabel = "N", defaultValue = "10000", description = "Trials (default: ${DEFAULT-VALUE}).")
  int trials;

  @Option(names = "--seed", paramLabel = "K", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--runs", paramLabel = "N", defaultValue = "100",
      description = "Closed-loop runs of the controller, seeds K, K+1, ... (default: ${DEFAULT-VALUE}; 0: none).")
  int runs;

  @Option(names = "--downtime", paramLabel = "SECONDS",
      description = "Closed loop: a worker comes back after an exponential downtime of this mean (default: never,"
          + " as in the papers). Workers started with --interrupt use the same draws with --interrupt-seed K.")
  Double downtime;

  @Option(names = "--history", paramLabel = "N", defaultValue = "10",
      description = "Closed loop: the master has seen each worker interrupted N times, at its risk, before the job"
          + " (default: ${DEFAULT-VALUE}; 0: a new master that learns risks as interruptions happen).")
  int history;

  @Option(names = "--heuristics", description = "Also run paper 000's heuristics H1-H6 on the platform (chunks of"
      + " --chunk units; no communication cost, as in the paper).")
  boolean heuristics;

  @Mixin
  PortOptions port;

  @Option(names = "--links-known", description = "Closed loop: the master has measured every worker's link before"
      + " the job (it ran a job across them already), so its first plan uses them instead of probe chunks, and"
      + " knows its --egress; without it the master learns both as it sends, as a fresh master does.")
  boolean linksKnown;

  @Option(names = "--handover", paramLabel = "SECONDS", defaultValue = "0",
      description = "Closed loop: each stream holds the master's port this long before its bytes flow (its worker's"
          + " word that the one before arrived, on its way back, and its own first bytes on their way there); a"
          + " master measures it as gleaner.port.handover (default: ${DEFAULT-VALUE}, the papers' model).")
  double handover;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Option(names = "--trace", paramLabel = "FILE",
      description = "Run the controller once with each worker lent and taken back as this availability trace (FTA tab"
          + " format; node ids = worker ids) says, until --deadline or the trace's end, and compare the work saved"
          + " with the most any schedule could save on it (paper 000's H6, extended to a trace).")
  Path trace;

  @Option(names = "--mean-up", paramLabel = "HOURS", defaultValue = "10.31",
      description = "With --trace: the mean up time the master's prior assumes, --history interruptions over"
          + " --history x HOURS up (default: ${DEFAULT-VALUE}, the Notre Dame desktop fit of the Failure Trace Archive).")
  double meanUpHours;

  @Option(names = "--mean-down", paramLabel = "HOURS", defaultValue = "1.43",
      description = "With --trace: the mean outage the master's prior assumes, --history outages of HOURS each"
          + " (default: ${DEFAULT-VALUE}, the same fit's).")
  double meanDownHours;

  @Option(names = "--interruptions", paramLabel = "KIND", defaultValue = "vacate",
      description = "With --trace: what a node's going down is. vacate: its owner takes the desktop back, and the"
          + " worker saves what it computed before it goes, as a real worker's owner policy does (default); crash: a"
          + " node failure (a failure trace such as the archive's LANL ones), where what it computed since its last"
          + " saved piece is lost.")
  String interruptions;

  @Override
  public Integer call() {
    if (trace != null && spec.commandLine().getParseResult().hasMatchedOption("--handover")) {
      throw new IllegalArgumentException("--handover goes with the closed loop of a platform, not with --trace");
    }
    if (trace != null) {
      return new TraceRun(spec.commandLine().getOut(), options, trace, history, meanUpHours, meanDownHours, json,
          ClosedLoop.Interruptions.parse(interruptions)).call();
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--interruptions")) {
      throw new IllegalArgumentException("--interruptions goes with --trace");
    }
    if (trials < 2 || trials > 100_000_000) {
      throw new IllegalArgumentException("--trials must be between 2 and 100000000, got " + trials);
    }
    Platform platform = options.platform();
    PlanRequest request = options.request(platform, network().planRule());
    Plan plan = Strategies.byName(options.strategy).plan(request);
    double deadline = request.hasDeadline() ? request.deadline() : Double.POSITIVE_INFINITY;
    Simulator.Estimate e = Simulator.run(plan.timeline(), platform, request.risk(), deadline, trials, seed);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("strategy", plan.strategy());
    doc.put("work", request.units());
    doc.put("trials", trials);
    doc.put("seed", seed);
    doc.put("riskModel", request.risk().name());
    doc.put("deployed", plan.timeline().deployed());
    doc.put("meanWork", e.mean());
    doc.put("stdErr", e.stdErr());
    doc.put("expectedWork", plan.expectedWork());
    if (SINGLE_ROUND.contains(plan.strategy())) {
      // the same allocation without checkpoints: what the checkpoints add
      List<Assignment> bare = new ArrayList<>();
      for (Assignment a : plan.order()) {
        List<ChunkPlan> chunks = new ArrayList<>();
        for (ChunkPlan c : a.chunks()) {
          chunks.add(new ChunkPlan(c.start(), c.end(), new long[0]));
        }
        bare.add(new Assignment(a.workerId(), chunks));
      }
      Timeline single = Timelines.singleRound(platform, bare, request.eps());
      Simulator.Estimate s = Simulator.run(single, platform, request.risk(), deadline, trials, seed);
      doc.put("singleChunkExpectedWork", single.expectedWork(platform, request.risk(), deadline));
      doc.put("singleChunkMeanWork", s.mean());
    }
    if (heuristics) {
      doc.put("heuristics", heuristics(platform, request, deadline));
    }
    if (history < 0 || history > 1_000_000) {
      throw new IllegalArgumentException("--history must be between 0 and 1000000, got " + history);
    }
    if (runs < 0 || runs > 1_000_000) {
      throw new IllegalArgumentException("--runs must be between 0 and 1000000, got " + runs);
    }
    if (runs == 0 && spec.commandLine().getParseResult().hasMatchedOption("--handover")) {
      throw new IllegalArgumentException("--handover goes with the closed loop, and --runs 0 runs none");
    }
    if (runs > 0) {
      doc.put("closedLoop", closedLoop(platform, request));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(StatusView.json(doc));
      return 0;
    }
    if (doc.containsKey("closedLoop")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> c = (Map<String, Object>) doc.get("closedLoop");
      if (c.containsKey("skipped")) {
        out.printf("closed loop: %s%n%n", c.get("skipped"));
      } else {
        out.printf(Locale.ROOT, "closed loop (the master's controller, %d runs from seed %d): mean work %.6g +- %.3g (1 s.e.)"
            + " of %d units%s; mean %.4g s to the end; per run %.1f plans, %.1f splits, %.1f reroutes%n%n",
            c.get("runs"), seed, (Double) c.get("meanWork"), (Double) c.get("stdErr"), request.units(),
            request.hasDeadline() ? " by the deadline" : "", (Double) c.get("meanTime"), (Double) c.get("plans"),
            (Double) c.get("splits"), (Double) c.get("reroutes"));
      }
    }
    out.printf("static plan, %s: %s%n", plan.strategy(), plan.reason());
    out.printf(Locale.ROOT, "%d trials (seed %d), %s risk: mean work %.6g +- %.3g (1 s.e.); exact expectation %.6g; %d units deployed of %d%n",
        trials, seed, request.risk().name(), e.mean(), e.stdErr(), plan.expectedWork(), plan.timeline().deployed(),
        request.units());
    if (doc.containsKey("singleChunkExpectedWork")) {
      double single = (Double) doc.get("singleChunkExpectedWork");
      out.printf(Locale.ROOT, "without checkpoints the same allocation expects %.6g: checkpoints add %.6g (%+.1f%%)%n", single,
          plan.expectedWork() - single, single > 0 ? 100 * (plan.expectedWork() - single) / single : 0);
    }
    if (heuristics) {
      out.printf("%nheuristics (paper 000, Section 6):%n%-18s %12s %10s %12s%n", "", "mean work", "s.e.", "expected");
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("heuristics");
      for (Map<String, Object> r : rows) {
        Object exp = r.get("expectedWork");
        out.printf(Locale.ROOT, "%-18s %12.6g %10.3g %12s%n", r.get("name"), r.get("meanWork"), r.get("stdErr"),
            exp == null ? "-" : String.format(Locale.ROOT, "%.6g", (Double) exp));
      }
    }
    return 0;
  }

  /** The simulated master's network from --egress, --concurrent-sends, --links-known and --handover. */
  private SimNetwork network() {
    if (!(handover >= 0) || Double.isInfinite(handover)) {
      throw new IllegalArgumentException("--handover must be a finite number of seconds, 0 or more, got " + handover);
    }
    return port.network(linksKnown).withHandover(handover);
  }

  /**
   * Runs the controller itself on the platform: each run draws every worker's interruptions from its
   * risk (seed K + run), as {@code gleaner worker --interrupt} does.
   */
  private Map<String, Object> closedLoop(Platform platform, PlanRequest request) {
    Map<String, Object> doc = new LinkedHashMap<>();
    String model = request.risk().name();
    if (!model.equals("linear") && !model.equals("exponential")) {
      doc.put("skipped", "runs only under linear or exponential risk, not " + model);
      return doc;
    }
    boolean input = platform.workers().stream().anyMatch(w -> Double.isFinite(w.bandwidth()));
    JobDef job = JobDef.of("sim", "sim", 0, request.units(), options.strategy)
        .withChunking(request.chunkUnits(), request.checkpoints()).withMinWorkers(platform.size())
        .withReplication(request.replication()).withRisk(request.risk());
    if (request.hasDeadline()) {
      job = job.withDeadline(request.deadline());
    }
    if (input) {
      job = job.withInput(1, x -> x);
    }
    double total = platform.totalSpeed();
    double horizon = request.hasDeadline() ? request.deadline() + 1 : 1000 * (request.units() / total + 1);
    double down = downtime == null ? Double.POSITIVE_INFINITY : downtime;
    // a tick per thousandth of the job's ideal length, at least every half second: as often as it matters
    double tick = Math.max(0.5, request.units() / total / 1000);
    // a tree's workers are reached through the links above theirs, shared by their siblings' streams;
    // the master's controller sees each worker alone, as the runtime's does
    ClosedLoop.Setup setup = new ClosedLoop.Setup(ControlConfig.defaults(), tick, request.eps(), horizon)
        .with(network().through(platform));
    double sum = 0;
    double sumSq = 0;
    double time = 0;
    double plans = 0;
    double splits = 0;
    double reroutes = 0;
    for (int r = 0; r < runs; r++) {
      List<ClosedLoop.Host> hosts = new ArrayList<>();
      for (Worker w : platform.workers()) {
        List<double[]> outages = w.risk() > 0
            ? FailureSchedule.parse(model + ":" + w.risk(), down).outages(seed + r, w.id(), horizon) : List.of();
        // N past interruptions over the time up that gives the worker's risk (rate 2 kappa under linear risk)
        double rate = w.risk() > 0 ? request.risk().riskForRate(1) == 0.5 ? 2 * w.risk() : w.risk() : 0;
        hosts.add(new ClosedLoop.Host(w.id(), w.speed(), w.bandwidth(), w.speed(), 0, outages,
            Double.POSITIVE_INFINITY).withHistory(rate > 0 ? history : 0, rate > 0 ? history / rate : 0));
      }
      ClosedLoop.Result result = ClosedLoop.run(job, hosts, setup);
      sum += result.committed();
      sumSq += (double) result.committed() * result.committed();
      time += result.end();
      plans += result.replans();
      splits += result.truncations();
      reroutes += result.reroutes();
    }
    double mean = sum / runs;
    doc.put("runs", runs);
    doc.put("meanWork", mean);
    doc.put("stdErr", runs > 1 ? Math.sqrt(Math.max(0, (sumSq - runs * mean * mean) / (runs - 1)) / runs) : 0.0);
    doc.put("meanTime", time / runs);
    doc.put("plans", plans / runs);
    doc.put("splits", splits / runs);
    doc.put("reroutes", reroutes / runs);
    return doc;
  }

  private List<Map<String, Object>> heuristics(Platform platform, PlanRequest request, double deadline) {
    long work = request.units();
    long cs = request.chunkUnits() > 0 ? request.chunkUnits() : Math.max(1, work / (16L * platform.size()));
    // the paper's experiments charge no communication
    List<Worker> free = new ArrayList<>();
    for (Worker w : platform.workers()) {
      free.add(new Worker(w.id(), w.speed(), Double.POSITIVE_INFINITY, w.risk()));
    }
    Platform noComm = new Platform(free);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Heuristics.Kind k : Heuristics.Kind.values()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", k.label());
      Simulator.Estimate e;
      if (k == Heuristics.Kind.H6_OMNISCIENT) {
        e = Simulator.run(noComm, request.risk(), deadline, trials, seed,
            down -> Heuristics.omniscient(noComm, work, cs, request.eps(), down));
      } else {
        Timeline t = k == Heuristics.Kind.H5_GROUPGREEDY
            ? Strategies.byName("replicate").plan(new PlanRequest(0, work, noComm, cs, request.checkpoints(), x -> x,
                request.eps(), request.risk(), request.deadline(), true)).timeline()
            : Heuristics.timeline(k, noComm, work, cs, request.eps(), seed);
        e = Simulator.run(t, noComm, request.risk(), deadline, trials, seed);
        row.put("expectedWork", t.expectedWork(noComm, request.risk(), deadline));
      }
      row.put("meanWork", e.mean());
      row.put("stdErr", e.stdErr());
      rows.add(row);
    }
    return rows;
  }
}
