package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.OmniscientBound;
import dev.gleaner.common.trace.OwnerSchedule;
import dev.gleaner.deploy.format.PlatformFile;
import dev.gleaner.deploy.weekend.OwnerFiles;
import dev.gleaner.deploy.weekend.OwnerReplay;
import dev.gleaner.deploy.weekend.ReplayRun;
import dev.gleaner.deploy.weekend.TraceFile;
import dev.gleaner.master.web.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code gleaner replay}: drives local workers' owner files from an availability trace, in
 * compressed time. Owner present (the file {@code DIR/NODE.owner} holds {@code busy}) whenever the
 * trace does not have the node up.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
    header = "Rehearse a weekend: play an availability trace on local workers.", sortOptions = false,
    description = {"Rehearse a weekend: play an availability trace (FTA tab format) on local workers' owner files at"
        + " K times its pace. While the trace has node N down, DIR/N.owner exists and holds 'busy' (its owner is"
        + " present); while N is up, the file is gone. Start each worker with --owner-file DIR/N.owner and --id N.",
        "The files keep the state of the trace's end when the replay is over.", "",
        "With --run, a whole weekend on this computer: a master and one worker per node (local JVMs, each capped at its"
        + " --platform speed times K) count the primes below --work with the deadline at the trace's end, after a"
        + " warm-up job (2 s of work, 5 s at most) that is not counted (the JVMs' slow start would otherwise cost K times its"
        + " length in trace time; workers whose owner is present at the trace's start sit it out); then the saved"
        + " units are checked against the store (pieces and not-done ranges tile the range, the count is exact) and set"
        + " beside the omniscient bound, with eps the checkpoint round trip the master measured, times K. Every process"
        + " started is ended at the end, also on Ctrl-C; exit 0 when the result is exact.", "",
        "  gleaner replay --trace deploy/examples/desktops-6x60h-seed1.tab --speedup 3600 --owner-dir /tmp/owners",
        "  gleaner replay --trace desktops.tab --speedup 600 --platform desktops.json --eps 1",
        "  gleaner replay --run --trace deploy/examples/desktops-6x60h-seed1.tab --platform deploy/examples/desktops.json"
            + " --speedup 1200"})
public final class ReplayCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--trace", paramLabel = "FILE", required = true, description = "The availability trace.")
  Path trace;

  @Option(names = "--speedup", paramLabel = "K", required = true,
      description = "Trace seconds per second of the replay (3600: an hour of the trace per second).")
  double speedup;

  @Option(names = "--owner-dir", paramLabel = "DIR",
      description = "Where the owner files go (created if missing; default: a new temporary directory).")
  Path ownerDir;

  @Option(names = "--hours", paramLabel = "H", description = "Play only the first H hours (default: all of the trace).")
  Double hours;

  @Option(names = "--platform", paramLabel = "P.json",
      description = "The workers (ids = the trace's node ids, speeds in units/s): also print the most work any schedule"
          + " could save on the replayed trace (the omniscient bound), in trace time.")
  Path platform;

  @Option(names = "--eps", paramLabel = "E", defaultValue = "0",
      description = "With --platform: seconds each saved piece costs (default: ${DEFAULT-VALUE}).")
  double eps;

  @Option(names = "--quiet", description = "Do not print each change as it happens.")
  boolean quiet;

  @Option(names = "--run", description = "Run the weekend end to end on local processes (needs --platform).")
  boolean run;

  @Option(names = "--work", paramLabel = "N",
      description = "With --run: count the primes below N (default: every worker at full speed through the whole"
          + " trace, more than any schedule can save when a node is ever down).")
  Long work;

  @Option(names = "--expected-up", paramLabel = "HOURS", defaultValue = "10.31",
      description = "With --run: the master's prior, a worker is expected to be taken back after HOURS of the trace up"
          + " (passed as --expected-up HOURS/K; default: ${DEFAULT-VALUE}, as gleaner simulate's --mean-up).")
  double expectedUpHours;

  @Option(names = "--expected-down", paramLabel = "HOURS", defaultValue = "1.43",
      description = "With --run: the master's prior of outages, a worker taken back is expected to return after HOURS"
          + " of the trace (passed as --expected-down HOURS/K; default: ${DEFAULT-VALUE}, as gleaner simulate's"
          + " --mean-down).")
  double expectedDownHours;

  @Option(names = "--owner-poll", paramLabel = "TIME", defaultValue = "100ms",
      description = "With --run: how often each worker reads its owner file, real time (default: ${DEFAULT-VALUE}).")
  String ownerPoll;

  @Option(names = "--vacate-grace", paramLabel = "TIME", defaultValue = "5s",
      description = "With --run: each worker's vacate grace, real time (default: ${DEFAULT-VALUE}).")
  String vacateGrace;

  @Option(names = "--interruptions", paramLabel = "KIND", defaultValue = "vacate",
      description = "With --run: how the trace's outages are played. vacate: an owner's visit, through owner files and"
          + " each worker's owner policy, which saves the piece under way (default; a desktop trace); crash: a node"
          + " failure, the worker down without draining, what it had not reported lost (a failure trace).")
  String interruptions;

  @Option(names = "--strategy", paramLabel = "S", defaultValue = "auto",
      description = "With --run: the job's strategy, as for gleaner submit (default: ${DEFAULT-VALUE}); compare them"
          + " on the same trace.")
  String strategy;

  @Option(names = "--keep", description = "With --run: keep the logs, the store and the owner files after a good run.")
  boolean keep;

  @Override
  public Integer call() throws Exception {
    if (!(speedup > 0) || Double.isInfinite(speedup)) {
      throw new IllegalArgumentException("--speedup must be a positive number, got " + speedup);
    }
    if (!(eps >= 0) || Double.isInfinite(eps)) {
      throw new IllegalArgumentException("--eps must be a number of seconds >= 0, got " + eps);
    }
    AvailabilityTrace t = TraceFile.read(trace);
    double horizon = hours == null ? t.length() : hours * 3600;
    if (!(horizon > 0) || !Double.isFinite(horizon)) {
      throw new IllegalArgumentException("--hours must be a positive number, got " + hours);
    }
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    if (run) {
      if (parsed.hasMatchedOption("--eps")) {
        throw new IllegalArgumentException("--eps goes without --run: --run takes eps from the checkpoint round trip"
            + " the master measures");
      }
      return runWeekend(t, horizon);
    }
    for (String o : List.of("--work", "--expected-up", "--expected-down", "--owner-poll", "--vacate-grace", "--keep", "--strategy",
        "--interruptions")) {
      if (parsed.hasMatchedOption(o)) {
        throw new IllegalArgumentException(o + " goes with --run");
      }
    }
    List<OwnerSchedule.Change> changes = OwnerSchedule.changes(t, horizon);
    Path dir = ownerDir != null ? Files.createDirectories(ownerDir) : Files.createTempDirectory("gleaner-owners");
    OwnerFiles files = new OwnerFiles(dir);
    for (String node : t.nodes().keySet()) {
      files.path(node);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (platform != null) {
      Platform p = PlatformFile.read(platform);
      long bound = OmniscientBound.units(t, p, Long.MAX_VALUE / 4, eps, horizon);
      out.printf(Locale.ROOT, "omniscient bound over %.2f trace hours: %d units (%d workers, eps %s s)%n",
          horizon / 3600, bound, p.size(), TraceFile.number(eps));
    }
    out.printf(Locale.ROOT, "owner files in %s: %d nodes, %d changes over %.2f trace hours, %.1f s at %sx%n", dir,
        t.nodes().size(), changes.size(), horizon / 3600, horizon / speedup, TraceFile.number(speedup));
    out.flush();
    Ticker ticker = Ticker.SYSTEM;
    OwnerReplay replay = new OwnerReplay(changes, speedup, c -> {
      files.set(c.node(), c.present());
      if (!quiet) {
        out.printf(Locale.ROOT, "trace %8.3f h  node %s: owner %s%n", c.at() / 3600, c.node(),
            c.present() ? "present" : "away");
        out.flush();
      }
    }, ticker);
    replay.start();
    while (!replay.done()) {
      long wait = replay.nanosToNext();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
        if (Thread.interrupted()) {
          throw new IllegalStateException("the replay was interrupted at trace hour "
              + String.format(Locale.ROOT, "%.3f", replay.traceSeconds() / 3600));
        }
      }
      replay.applyDue();
    }
    Map<String, Boolean> last = new LinkedHashMap<>();
    changes.forEach(c -> last.put(c.node(), c.present()));
    long present = last.values().stream().filter(b -> b).count();
    out.printf("replay done: %d changes; at the trace's end %d of %d owners present%n", changes.size(), present,
        last.size());
    return 0;
  }

  private int runWeekend(AvailabilityTrace t, double horizon) throws Exception {
    if (platform == null) {
      throw new IllegalArgumentException("--run needs --platform (the workers' speeds, units/s in trace time)");
    }
    if (ownerDir != null) {
      throw new IllegalArgumentException("--run keeps its owner files in its own directory; leave out --owner-dir");
    }
    if (!(expectedUpHours > 0) || Double.isInfinite(expectedUpHours)) {
      throw new IllegalArgumentException("--expected-up must be a positive number of hours, got " + expectedUpHours);
    }
    if (!(expectedDownHours > 0) || Double.isInfinite(expectedDownHours)) {
      throw new IllegalArgumentException("--expected-down must be a positive number of hours, got "
          + expectedDownHours);
    }
    String strategyName = dev.gleaner.common.plan.Strategies.byName(strategy).name();
    boolean crashes = ClosedLoop.Interruptions.parse(interruptions) == ClosedLoop.Interruptions.CRASH;
    CommandLine.ParseResult given = spec.commandLine().getParseResult();
    for (String o : List.of("--owner-poll", "--vacate-grace")) {
      if (crashes && given.hasMatchedOption(o)) {
        throw new IllegalArgumentException(o + " applies to owners' visits; --interruptions crash plays the outages as"
            + " crashes, with no owner policy");
      }
    }
    Durations.parse("--owner-poll", ownerPoll);
    Durations.parse("--vacate-grace", vacateGrace);
    Platform p = PlatformFile.read(platform);
    long w = work != null ? work : (long) Math.ceil(p.workers().stream()
        .filter(x -> t.nodes().containsKey(x.id())).mapToDouble(x -> x.speed()).sum() * horizon);
    if (w < 1) {
      throw new IllegalArgumentException("--work must be at least 1, got " + w);
    }
    if (!quiet) {
      spec.commandLine().getOut().printf(Locale.ROOT, "replaying %.2f trace hours of %d nodes at %sx: %.1f s%n",
          horizon / 3600, t.nodes().size(), TraceFile.number(speedup), horizon / speedup);
    }
    Platform used = new Platform(p.workers().stream().filter(x -> t.nodes().containsKey(x.id())).toList());
    ReplayRun.Outcome o = new ReplayRun(new ReplayRun.Settings(t, horizon, speedup, used, w, expectedUpHours * 3600,
        expectedDownHours * 3600, ownerPoll, vacateGrace, keep, strategyName, crashes), spec.commandLine().getOut()).call();
    return o.exact() ? 0 : 1;
  }
}
