package dev.gleaner.deploy.bench;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.Progress;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.Swarm;
import dev.gleaner.common.util.RangeSet;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The controller itself at the scale of a large fleet: a {@link Swarm} of simulated workers run
 * through {@link ClosedLoop}, which drives the master's own controller on a simulated clock, on
 * this thread. It measures the wall and CPU time this thread spends per simulated interval (the
 * controller, and the simulator's own bookkeeping around it), the chunks handed out and the units
 * committed in it, and the re-plans; at the end it checks that the job ended exact: every unit
 * committed once (the simulator refuses a unit committed twice), the committed units tiling the
 * job, the workers' shares adding up to it.
 *
 * <p>A wall time per simulated second below 1 means the controller keeps up with that fleet in
 * real time on this machine. Nothing here is a test: tests never time anything.
 *
 * <p>Run: {@code java -cp deploy/target/gleaner.jar dev.gleaner.deploy.bench.ControllerScaleBench
 * [--preset hundred-thousand|fast-four] [--workers N] [--min-speed S] [--max-speed S]
 * [--declared S] [--join SECONDS] [--units W] [--chunk C] [--strategy NAME] [--seed K]
 * [--every SECONDS] [--tick SECONDS] [--commit-delay SECONDS] [--horizon SECONDS]}.
 */
public final class ControllerScaleBench {
  /**
   * One simulated interval.
   *
   * @param until the simulated instant it ends at
   * @param wallSeconds wall time this thread spent in it
   * @param cpuSeconds CPU time this thread spent in it
   * @param handOuts chunks handed out in it
   * @param committed units committed in it
   * @param replans plans made in it
   */
  public record Row(double until, double wallSeconds, double cpuSeconds, long handOuts, long committed, int replans) {}

  /**
   * A run.
   *
   * @param problem null when the job ended exact; otherwise what was wrong
   */
  public record Report(Swarm swarm, List<Row> rows, JobPhase phase, double simulatedSeconds, double wallSeconds,
      double cpuSeconds, long handOuts, long committed, int replans, long events, String problem) {
    /** As one JSON-able map (for {@code gleaner bench --json}). */
    public Map<String, Object> toMap() {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("swarm", Map.of("workers", swarm.workers(), "minSpeed", swarm.minSpeed(), "maxSpeed", swarm.maxSpeed(),
          "declared", Double.isNaN(swarm.declared()) ? "true speed" : swarm.declared(), "joinSeconds",
          swarm.joinSeconds(), "units", swarm.units(), "chunkUnits", swarm.chunkUnits(), "strategy", swarm.strategy()));
      doc.put("phase", phase.name());
      doc.put("exact", problem == null);
      if (problem != null) {
        doc.put("problem", problem);
      }
      doc.put("simulatedSeconds", simulatedSeconds);
      doc.put("wallSeconds", wallSeconds);
      doc.put("cpuSeconds", cpuSeconds);
      doc.put("wallPerSimulatedSecond", wallSeconds / Math.max(1e-9, simulatedSeconds));
      doc.put("handOuts", handOuts);
      doc.put("handOutsPerWallSecond", handOuts / Math.max(1e-9, wallSeconds));
      doc.put("committed", committed);
      doc.put("replans", replans);
      doc.put("events", events);
      List<Map<String, Object>> out = new ArrayList<>();
      for (Row r : rows) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("until", r.until());
        m.put("wallSeconds", r.wallSeconds());
        m.put("cpuSeconds", r.cpuSeconds());
        m.put("handOuts", r.handOuts());
        m.put("committed", r.committed());
        m.put("replans", r.replans());
        out.add(m);
      }
      doc.put("intervals", out);
      return doc;
    }

    /** The rows and the summary, for people. */
    public void print(PrintStream out) {
      out.printf(Locale.ROOT, "%,d workers (%.3g-%.3g units/s%s), joining within %.3g s; %,d units, %s, chunks of %s%n",
          swarm.workers(), swarm.minSpeed(), swarm.maxSpeed(),
          Double.isNaN(swarm.declared()) ? "" : String.format(Locale.ROOT, ", declaring %.3g", swarm.declared()),
          swarm.joinSeconds(), swarm.units(), swarm.strategy(),
          swarm.chunkUnits() == 0 ? "its choice" : String.format(Locale.ROOT, "%,d units", swarm.chunkUnits()));
      out.printf(Locale.ROOT, "%12s %10s %10s %12s %16s %8s%n", "simulated", "wall s", "cpu s", "hand-outs",
          "units committed", "re-plans");
      for (Row r : rows) {
        out.printf(Locale.ROOT, "%12.3f %10.3f %10.3f %,12d %,16d %8d%n", r.until(), r.wallSeconds(), r.cpuSeconds(),
            r.handOuts(), r.committed(), r.replans());
      }
      out.printf(Locale.ROOT, "%s after %.3f simulated s: wall %.2f s (%.3f s per simulated s), cpu %.2f s; %,d hand-outs"
          + " (%,.0f per wall s), %,d re-plans, %,d events; %s%n", phase, simulatedSeconds, wallSeconds,
          wallSeconds / Math.max(1e-9, simulatedSeconds), cpuSeconds, handOuts, handOuts / Math.max(1e-9, wallSeconds),
          replans, events, problem == null ? "exact: every unit committed once" : "NOT EXACT: " + problem);
    }
  }

  private ControllerScaleBench() {}

  /** Runs the swarm, a row per {@code every} simulated seconds. */
  public static Report run(Swarm swarm, ClosedLoop.Setup setup, double every) {
    if (!(every > 0)) {
      throw new IllegalArgumentException("the interval must be positive, got " + every);
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    List<Row> rows = new ArrayList<>();
    String job = swarm.job().id();
    // what each interval starts from: wall ns, cpu ns, hand-outs, committed, re-plans
    long[] mark = {System.nanoTime(), threads.getCurrentThreadCpuTime(), 0, 0, 0};
    long[] events = {0};
    double[] next = {every};
    long wall0 = mark[0];
    long cpu0 = mark[1];
    ClosedLoop.Observer observer = (Controller c, double now) -> {
      events[0]++;
      if (now < next[0]) {
        return;
      }
      Progress p = c.views().progress(job);
      long wall = System.nanoTime();
      long cpu = threads.getCurrentThreadCpuTime();
      rows.add(new Row(now, (wall - mark[0]) / 1e9, (cpu - mark[1]) / 1e9, p.handedOut() - mark[2],
          p.committed() - mark[3], (int) (p.replans() - mark[4])));
      mark[0] = wall;
      mark[1] = cpu;
      mark[2] = p.handedOut();
      mark[3] = p.committed();
      mark[4] = p.replans();
      next[0] = (Math.floor(now / every) + 1) * every;
    };
    ClosedLoop.Result result;
    try {
      result = ClosedLoop.run(swarm.job(), swarm.hosts(), setup, observer);
    } catch (IllegalStateException e) {
      // the simulator refuses a unit committed twice, or a controller that never settles
      return new Report(swarm, rows, JobPhase.FAILED, Double.NaN, (System.nanoTime() - wall0) / 1e9,
          (threads.getCurrentThreadCpuTime() - cpu0) / 1e9, mark[2], mark[3], (int) mark[4], events[0], e.getMessage());
    }
    long wall = System.nanoTime();
    long cpu = threads.getCurrentThreadCpuTime();
    Progress p = result.controller().views().progress(job);
    if (p.handedOut() > mark[2] || p.committed() > mark[3]) {
      rows.add(new Row(result.end(), (wall - mark[0]) / 1e9, (cpu - mark[1]) / 1e9, p.handedOut() - mark[2],
          p.committed() - mark[3], (int) (p.replans() - mark[4])));
    }
    return new Report(swarm, rows, result.phase(), result.end(), (wall - wall0) / 1e9, (cpu - cpu0) / 1e9,
        p.handedOut(), p.committed(), p.replans(), events[0], exactness(swarm, result));
  }

  /** Null when the job is done with every unit committed once; otherwise what is wrong. */
  static String exactness(Swarm swarm, ClosedLoop.Result result) {
    String job = swarm.job().id();
    if (result.phase() != JobPhase.DONE) {
      return "the job ended " + result.phase() + " at " + result.end() + " s: "
          + result.controller().views().job(job).message();
    }
    RangeSet committed = result.controller().views().committedUnits(job);
    if (!committed.equals(RangeSet.of(0, swarm.units()))) {
      return "the committed units " + committed + " do not tile [0, " + swarm.units() + ")";
    }
    long shares = result.controller().views().job(job).shares().values().stream().mapToLong(Long::longValue).sum();
    if (shares != swarm.units()) {
      return "the workers' shares add up to " + shares + " units, not " + swarm.units();
    }
    String ledger = result.controller().views().checkLedger(job);
    return ledger;
  }

  /** See the class comment for the options. */
  public static void main(String[] args) {
    Swarm s = Swarm.hundredThousand();
    double every = Double.NaN;
    double tick = 0.5;
    double commitDelay = 0.005;
    double horizon = Double.NaN;
    Map<String, String> o = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        System.err.println("gleaner: expected --option value, got '" + args[i] + "'");
        System.exit(2);
      }
      o.put(args[i].substring(2), args[++i]);
    }
    try {
      String preset = o.getOrDefault("preset", "hundred-thousand");
      s = switch (preset) {
        case "hundred-thousand" -> Swarm.hundredThousand();
        case "fast-four" -> Swarm.fastFour();
        default -> throw new IllegalArgumentException("unknown preset '" + preset + "'; known: hundred-thousand,"
            + " fast-four");
      };
      s = new Swarm(integer(o, "workers", s.workers()), number(o, "min-speed", s.minSpeed()),
          number(o, "max-speed", s.maxSpeed()), number(o, "declared", s.declared()), number(o, "join", s.joinSeconds()),
          (long) number(o, "units", s.units()), (long) number(o, "chunk", s.chunkUnits()),
          o.getOrDefault("strategy", s.strategy()), (long) number(o, "seed", s.seed()));
      every = number(o, "every", Double.NaN);
      tick = number(o, "tick", tick);
      commitDelay = number(o, "commit-delay", commitDelay);
      horizon = number(o, "horizon", Double.NaN);
    } catch (IllegalArgumentException e) {
      System.err.println("gleaner: " + e.getMessage());
      System.exit(2);
    }
    double ideal = s.units() / (s.workers() * (s.minSpeed() + s.maxSpeed()) / 2);
    if (Double.isNaN(every)) {
      // about twenty rows
      every = Math.max(1e-3, Math.pow(10, Math.floor(Math.log10(Math.max(1e-3, s.joinSeconds() + ideal) / 20))));
    }
    if (Double.isNaN(horizon)) {
      horizon = 100 * (s.joinSeconds() + ideal) + 60;
    }
    Report r = run(s, new ClosedLoop.Setup(ControlConfig.defaults(), tick, commitDelay, horizon), every);
    r.print(System.out);
    System.exit(r.problem() == null ? 0 : 1);
  }

  private static double number(Map<String, String> o, String key, double fallback) {
    String v = o.get(key);
    if (v == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + key + " must be a number, got '" + v + "'", e);
    }
  }

  private static int integer(Map<String, String> o, String key, int fallback) {
    double v = number(o, key, fallback);
    if (v != Math.rint(v) || v < 1 || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--" + key + " must be a whole number of at least 1, got '" + o.get(key) + "'");
    }
    return (int) v;
  }
}
