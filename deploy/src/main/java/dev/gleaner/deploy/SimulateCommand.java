package dev.gleaner.deploy;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Assignment;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.plan.Timeline;
import dev.gleaner.common.plan.Timelines;
import dev.gleaner.common.sim.Heuristics;
import dev.gleaner.common.sim.Simulator;
import java.io.PrintWriter;
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
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run a plan many times with interruption times drawn from the risk model, and compare",
        "the mean work done with the plan's exact expectation.", "",
        "  gleaner simulate --platform lab.json --work 100000 --trials 10000 --seed 1",
        "  gleaner simulate --platform lab.json --work 100000 --strategy distrib --eps 2 --heuristics --json"})
final class SimulateCommand implements Callable<Integer> {
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

  @Option(names = "--heuristics", description = "Also run paper 000's heuristics H1-H6 on the platform (chunks of"
      + " --chunk units; no communication cost, as in the paper).")
  boolean heuristics;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() {
    if (trials < 2 || trials > 100_000_000) {
      throw new IllegalArgumentException("--trials must be between 2 and 100000000, got " + trials);
    }
    Platform platform = options.platform();
    PlanRequest request = options.request(platform);
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
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(StatusView.json(doc));
      return 0;
    }
    out.printf("%s: %s%n", plan.strategy(), plan.reason());
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
