package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Assignment;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.plan.Timeline;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.weekend.TraceFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner plan}: what a strategy gives each worker, when, and the work it expects done. */
@Command(name = "plan", mixinStandardHelpOptions = true,
    header = "Plan a job on a platform and say what it expects to save.", sortOptions = false,
    description = {"Plan a job on a platform: service order, each worker's units and checkpoints, replicas,"
        + " and the expected work done when workers may be interrupted.", "",
        "  gleaner plan --platform lab.json --work 100000",
        "  gleaner plan --platform lab.json --work 100000 --strategy distrib --eps 2 --svg plan.svg",
        "  gleaner plan --platform lab.json --work 100000 --deadline 3600 --json",
        "  gleaner plan --platform desktops.json --work 20000000 --availability desktops.tab"})
public final class PlanCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  PlanOptions options;

  @Mixin
  PortOptions port;

  @Option(names = "--svg", paramLabel = "FILE", description = "Draw the plan's timeline (one line per worker) to this SVG file.")
  Path svg;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Option(names = "--availability", paramLabel = "FILE",
      description = "An availability trace (FTA tab format; node ids = worker ids): also say how much work to expect"
          + " by --deadline (default: the trace's end) with the workers lent as it says: the master's controller run"
          + " once on the simulator (its prior: 10 past interruptions per worker at the Notre Dame desktops' mean up"
          + " time of 10.31 h, and 10 outages at their mean of 1.43 h; `gleaner simulate --trace` varies them) and"
          + " the most any schedule could save.")
  Path availability;

  @Override
  public Integer call() throws IOException {
    Platform platform = options.platform();
    AvailabilityTrace trace = availability == null ? null : TraceFile.read(availability);
    if (trace != null && options.deadline == null) {
      // the trace's end is the job's: the static plan is for the same lifespan
      options.deadline = trace.length();
    }
    PlanRequest request = options.request(platform, port.planRule());
    Plan plan = Strategies.byName(options.strategy).plan(request);
    Map<String, Object> expect = null;
    if (trace != null) {
      double horizon = request.deadline();
      expect = TraceRun.run(trace, platform, request, options.strategy, horizon, 10, 10.31, 1.43,
          dev.gleaner.common.sim.ClosedLoop.Interruptions.VACATE);
      Map<String, Object> up = new LinkedHashMap<>();
      for (String node : trace.nodes().keySet()) {
        up.put(node, trace.upSeconds(node, horizon) / 3600);
      }
      expect.put("upHoursByWorker", up);
    }
    if (svg != null) {
      Files.writeString(svg, TimelineChart.svg(plan, platform, request));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> doc = document(plan, request);
      if (expect != null) {
        doc.put("availability", expect);
      }
      out.println(StatusView.json(doc));
    } else {
      human(out, plan, platform, request, expect == null);
      if (expect != null) {
        long saved = (Long) expect.get("committed");
        out.printf(java.util.Locale.ROOT, "expect: %d of %d units saved (%.1f%%) by %.2f h with the workers lent as %s"
            + " says (the master's controller on the simulator, playing the trace), at most %d by any schedule (ratio"
            + " %.4f); hours up:%s%n", saved, request.units(), 100.0 * saved / request.units(),
            (Double) expect.get("horizon") / 3600, availability, (Long) expect.get("bound"),
            (Double) expect.get("ratio"), upHours(expect));
      }
      if (svg != null) {
        out.println("timeline drawn to " + svg);
      }
    }
    return 0;
  }

  private static String upHours(Map<String, Object> expect) {
    StringBuilder sb = new StringBuilder();
    @SuppressWarnings("unchecked")
    Map<String, Double> up = (Map<String, Double>) expect.get("upHoursByWorker");
    up.forEach((k, v) -> sb.append(String.format(java.util.Locale.ROOT, " %s %.1f", k, v)));
    return sb.toString();
  }

  static Map<String, Object> document(Plan plan, PlanRequest request) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("strategy", plan.strategy());
    doc.put("reason", plan.reason());
    doc.put("work", request.units());
    Map<String, Timeline.Lane> lanes = lanes(plan);
    List<String> order = new ArrayList<>();
    List<Object> allocations = new ArrayList<>();
    for (Assignment a : plan.order()) {
      if (a.chunks().isEmpty()) {
        continue;
      }
      order.add(a.workerId());
      Map<String, Object> alloc = new LinkedHashMap<>();
      alloc.put("worker", a.workerId());
      alloc.put("units", a.units());
      List<Object> chunks = new ArrayList<>();
      for (ChunkPlan c : a.chunks()) {
        chunks.add(chunk(c));
      }
      alloc.put("chunks", chunks);
      Timeline.Lane lane = lanes.get(a.workerId());
      if (lane != null) {
        alloc.put("dataBy", lane.firstData());
        alloc.put("finishBy", lane.end());
      }
      allocations.add(alloc);
    }
    if (plan.order().isEmpty()) {
      // pool-only plans (self-scheduling): who takes which chunk, as the timeline predicts when
      // no one is interrupted
      for (Timeline.Lane lane : plan.timeline().lanes()) {
        order.add(lane.worker());
        Map<String, Object> alloc = new LinkedHashMap<>();
        alloc.put("worker", lane.worker());
        alloc.put("units", lane.units());
        List<Object> chunks = new ArrayList<>();
        for (Timeline.Piece piece : lane.pieces()) {
          chunks.add(chunk(new ChunkPlan(piece.from(), piece.to(), new long[0])));
        }
        alloc.put("chunks", chunks);
        alloc.put("dataBy", lane.firstData());
        alloc.put("finishBy", lane.end());
        allocations.add(alloc);
      }
    }
    doc.put("order", order);
    doc.put("allocations", allocations);
    // a pool-only plan's chunks are in the predicted allocations above
    doc.put("demandDriven", plan.order().isEmpty());
    List<Object> pool = new ArrayList<>();
    for (ChunkPlan c : plan.order().isEmpty() ? List.<ChunkPlan>of() : plan.pool()) {
      pool.add(chunk(c));
    }
    doc.put("pool", pool);
    doc.put("deployed", plan.timeline().deployed());
    doc.put("replicated", plan.replicated());
    doc.put("makespan", plan.timeline().makespan());
    doc.put("riskModel", request.risk().name());
    doc.put("expectedWork", plan.expectedWork());
    return doc;
  }

  private static Map<String, Object> chunk(ChunkPlan c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("start", c.start());
    m.put("end", c.end());
    m.put("checkpoints", c.checkpoints());
    return m;
  }

  static Map<String, Timeline.Lane> lanes(Plan plan) {
    Map<String, Timeline.Lane> byWorker = new HashMap<>();
    for (Timeline.Lane l : plan.timeline().lanes()) {
      byWorker.put(l.worker(), l);
    }
    return byWorker;
  }

  /** A figure for the table: whole above 1,000 (no exponent beside whole counts), else four digits. */
  private static String plain(double v) {
    return Math.abs(v) >= 1000 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.4g", v);
  }

  /**
   * The plan for people, one fact a line; with {@code ownFigure}, the plan's own expectation (left
   * out when a trace's expectation follows: the simulator playing the trace is the figure to trust).
   */
  private static void human(PrintWriter out, Plan plan, Platform platform, PlanRequest request, boolean ownFigure) {
    out.printf(Locale.ROOT, "%s: %s%n", plan.strategy(), plan.reason());
    Map<String, Worker> byId = platform.byId();
    Map<String, Timeline.Lane> lanes = lanes(plan);
    boolean assigned = plan.order().stream().anyMatch(a -> !a.chunks().isEmpty());
    if (!assigned) {
      out.println("no worker is given units ahead: every chunk waits in the shared pool for whoever is free");
    } else {
      out.printf("%-4s %-12s %9s %10s %9s %10s %7s %6s %10s %10s%n", "#", "worker", "speed", "bandwidth", "risk",
          "units", "chunks", "saves", "data by s", "done by s");
    }
    int rank = 0;
    for (Assignment a : plan.order()) {
      if (a.chunks().isEmpty()) {
        continue;
      }
      Worker w = byId.get(a.workerId());
      Timeline.Lane lane = lanes.get(a.workerId());
      int saves = lane == null ? 0 : lane.pieces().size();
      out.printf(Locale.ROOT, "%-4d %-12s %9s %10s %9.3g %10d %7d %6d %10s %10s%n", ++rank, w.id(), plain(w.speed()),
          Double.isInfinite(w.bandwidth()) ? "-" : plain(w.bandwidth()), w.risk(), a.units(),
          a.chunks().size(), saves, lane == null ? "-" : plain(lane.firstData()), lane == null ? "-" : plain(lane.end()));
    }
    long pooled = 0;
    for (ChunkPlan c : plan.pool()) {
      pooled += c.units();
    }
    if (pooled > 0) {
      out.printf(Locale.ROOT, "left to the shared pool: %d units in %d chunks%n", pooled, plan.pool().size());
    }
    if (ownFigure) {
      out.printf(Locale.ROOT, "expected work: %.0f of %d units (%.1f%%), %s risk%s (the plan's own model%s)%n",
          plan.expectedWork(), request.units(), 100 * plan.expectedWork() / request.units(), request.risk().name(),
          request.hasDeadline() ? String.format(Locale.ROOT, ", deadline %.0f s", request.deadline()) : "",
          pooled > 0 ? ", which counts the pool as done" : "");
    }
  }
}
