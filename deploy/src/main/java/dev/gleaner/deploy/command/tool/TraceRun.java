package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.Forecast;
import dev.gleaner.common.sim.TraceSimulation;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.weekend.TraceFile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** {@code gleaner simulate --trace}: the controller on the simulator with availability from a trace, against the bound. */
final class TraceRun {
  private final PrintWriter out;
  private final PlanOptions options;
  private final Path file;
  private final int history;
  private final double meanUpHours;
  private final double meanDownHours;
  private final boolean json;
  private final ClosedLoop.Interruptions interruptions;

  TraceRun(PrintWriter out, PlanOptions options, Path file, int history, double meanUpHours, double meanDownHours,
      boolean json, ClosedLoop.Interruptions interruptions) {
    this.out = out;
    this.options = options;
    this.file = file;
    this.history = history;
    this.meanUpHours = meanUpHours;
    this.meanDownHours = meanDownHours;
    this.json = json;
    this.interruptions = interruptions;
  }

  int call() {
    if (history < 0 || history > 1_000_000) {
      throw new IllegalArgumentException("--history must be between 0 and 1000000, got " + history);
    }
    if (!(meanUpHours > 0) || !Double.isFinite(meanUpHours)) {
      throw new IllegalArgumentException("--mean-up must be a positive number of hours, got " + meanUpHours);
    }
    if (!(meanDownHours > 0) || !Double.isFinite(meanDownHours)) {
      throw new IllegalArgumentException("--mean-down must be a positive number of hours, got " + meanDownHours);
    }
    AvailabilityTrace trace = TraceFile.read(file);
    Platform platform = options.platform();
    PlanRequest request = options.request(platform);
    double horizon = request.hasDeadline() ? request.deadline() : trace.length();
    Map<String, Object> doc = run(trace, platform, request, options.strategy, horizon, history, meanUpHours,
        meanDownHours, interruptions);
    if (json) {
      out.println(StatusView.json(doc));
      return 0;
    }
    out.printf(Locale.ROOT, "trace %s: %d workers over %.2f h, %d returns after %s%s%n", file,
        platform.size(), horizon / 3600, (Integer) doc.get("returns"),
        interruptions == ClosedLoop.Interruptions.VACATE ? "an owner's visit (each vacate saves the piece under way)"
            : "a crash (each loses what was computed since the last saved piece)",
        ((java.util.List<?>) doc.get("neverUp")).isEmpty() ? "" : "; never up: " + doc.get("neverUp"));
    String by = doc.get("phase").equals("done")
        ? String.format(Locale.ROOT, "all done at %.2f h", (Double) doc.get("end") / 3600)
        : "by " + (request.hasDeadline() ? "the deadline" : "the trace's end");
    out.printf(Locale.ROOT, "closed loop (the master's controller, strategy %s, eps %s s): %d units saved of %d %s;"
        + " %d plans, %d splits, %d reroutes%n", options.strategy, TraceFile.number(request.eps()),
        (Long) doc.get("committed"), request.units(), by, (Long) doc.get("plans"), (Long) doc.get("splits"),
        (Long) doc.get("reroutes"));
    out.printf(Locale.ROOT, "where the rest went: %d units computed and lost at interruptions; %d in pieces cancelled under"
        + " way (at the deadline); %d in pieces under way at the end; %d units' time spent saving pieces (eps); %.2f of"
        + " %.2f worker-hours up spent idle%n", (Long) doc.get("lostUnits"), (Long) doc.get("cancelledUnits"),
        (Long) doc.get("inProgressUnits"), (Long) doc.get("savingUnits"), (Double) doc.get("idleUpHours"),
        (Double) doc.get("upHours"));
    out.printf(Locale.ROOT, "longest saved piece: %.2f h of its worker's work (what a crash at its worst moment would"
        + " lose)%n", (Double) doc.get("longestPieceHours"));
    out.printf(Locale.ROOT, "omniscient bound (H6 over the trace): %d units; saved / bound = %.4f%n",
        (Long) doc.get("bound"), (Double) doc.get("ratio"));
    @SuppressWarnings("unchecked")
    Map<String, Object> f = (Map<String, Object>) doc.get("forecastAtQuarter");
    if (f == null) {
      out.println("forecast at a quarter of the run: none (the job had ended, or no worker could take it)");
    } else {
      out.printf(Locale.ROOT, "forecast at a quarter of the run (at %.2f h, %d runs): %.0f units saved (%.0f to %.0f);"
          + " error %+.2f%% of the saved figure%n", (Double) f.get("at") / 3600, (Integer) f.get("runs"),
          (Double) f.get("units"), (Double) f.get("unitsLow"), (Double) f.get("unitsHigh"), 100 * (Double) f.get("error"));
    }
    return 0;
  }

  /** One run; the document {@code --json} prints. */
  static Map<String, Object> run(AvailabilityTrace trace, Platform platform, PlanRequest request, String strategy,
      double horizon, int history, double meanUpHours, double meanDownHours, ClosedLoop.Interruptions interruptions) {
    JobDef job = JobDef.of("sim", "sim", 0, request.units(), strategy)
        .withChunking(request.chunkUnits(), request.checkpoints()).withMinWorkers(1)
        .withReplication(request.replication()).withRisk(request.risk()).withDeadline(horizon);
    if (platform.workers().stream().anyMatch(w -> Double.isFinite(w.bandwidth()))) {
      job = job.withInput(1, x -> x);
    }
    double ideal = request.units() / platform.totalSpeed();
    // a tick per thousandth of the shorter of the job's ideal length and the horizon, at least every half second
    double tick = Math.max(0.5, Math.min(ideal, horizon) / 1000);
    ClosedLoop.Setup setup = new ClosedLoop.Setup(ControlConfig.defaults(), tick, request.eps(), horizon + 1,
        interruptions);
    TraceSimulation.Prior prior = history == 0 ? TraceSimulation.Prior.NONE
        : new TraceSimulation.Prior(history, history * meanUpHours * 3600, history, history * meanDownHours * 3600);
    // the forecast a status would show at a quarter of the run, made as the master makes it
    Forecast.Outlook[] quarter = new Forecast.Outlook[1];
    TraceSimulation.Result r = TraceSimulation.run(trace, platform, job, setup, prior, (c, now) -> {
      if (quarter[0] == null && now >= horizon / 4) {
        dev.gleaner.common.control.Outset o = c.views().outset("sim", now);
        // null: the job ended at this event (then the quarter's forecast is the end itself)
        quarter[0] = o == null ? null : Forecast.run(o, setup.config(), setup.tick(), Forecast.RUNS, 1);
      }
    });
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("work", request.units());
    doc.put("horizon", horizon);
    doc.put("strategy", strategy);
    doc.put("eps", request.eps());
    doc.put("interruptions", interruptions.name().toLowerCase(Locale.ROOT));
    doc.put("committed", r.run().committed());
    doc.put("bound", r.bound());
    doc.put("ratio", r.ratio());
    doc.put("returns", r.returns());
    doc.put("neverUp", r.neverUp());
    doc.put("lostUnits", Math.round(r.run().lostUnits()));
    doc.put("inProgressUnits", Math.round(r.run().inProgressUnits()));
    doc.put("cancelledUnits", Math.round(r.run().cancelledUnits()));
    doc.put("savingUnits", Math.round(r.run().savingUnits()));
    doc.put("longestPieceHours", r.run().longestPieceSeconds() / 3600);
    doc.put("idleUpHours", Math.max(0, r.run().upSeconds() - r.run().busySeconds()) / 3600);
    doc.put("upHours", r.run().upSeconds() / 3600);
    doc.put("phase", r.run().phase().name().toLowerCase(Locale.ROOT));
    doc.put("end", r.run().end());
    doc.put("plans", r.run().replans());
    doc.put("splits", r.run().truncations());
    doc.put("reroutes", r.run().reroutes());
    Map<String, Object> f = null;
    if (quarter[0] != null) {
      f = new LinkedHashMap<>();
      f.put("at", quarter[0].at());
      f.put("runs", quarter[0].runs());
      f.put("units", quarter[0].units());
      f.put("unitsLow", quarter[0].unitsLow());
      f.put("unitsHigh", quarter[0].unitsHigh());
      f.put("error", (quarter[0].units() - r.run().committed()) / Math.max(1, r.run().committed()));
    }
    doc.put("forecastAtQuarter", f);
    return doc;
  }
}
