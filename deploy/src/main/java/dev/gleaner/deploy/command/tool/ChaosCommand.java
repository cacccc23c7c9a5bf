package dev.gleaner.deploy.command.tool;

import dev.gleaner.deploy.chaos.ChaosFault;
import dev.gleaner.deploy.chaos.ChaosJobs;
import dev.gleaner.deploy.chaos.ChaosReport;
import dev.gleaner.deploy.chaos.ChaosRun;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.launch.LocalRuns;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gleaner chaos}: seeded runs of a real master JVM and worker JVMs on loopback, with faults
 * injected while exact-answer jobs run (see {@link ChaosFault}); after each run, every answer is
 * checked and the store is read to check that each job's committed pieces tile its range. Exits 1
 * if any check failed. Run {@code i} (from 0) of {@code --seed S} has seed {@code S + i}, so
 * {@code --runs 1 --seed S+i} runs it again alone.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
    header = "Inject seeded faults into a local cluster and check every answer.",
    description = {"Seeded chaos runs on loopback: a master JVM and worker JVMs (each behind a TCP proxy) run"
        + " exact-answer jobs (primes, grep, exec) while workers are killed, stopped, terminated, cut off or stalled and"
        + " the master is killed and restarted; then every answer and the store's tiling of every job are checked.",
        "Exit status 1 if any check failed."})
public final class ChaosCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--runs", defaultValue = "10", description = "Runs (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the first run; run i has seed + i (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--workers", defaultValue = "4", description = "Worker JVMs (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--faults-per-run", defaultValue = "3", description = "Faults injected per run (default: ${DEFAULT-VALUE}).")
  int faultsPerRun;

  @Option(names = "--faults", split = ",", paramLabel = "KIND",
      defaultValue = "worker-kill,worker-stop,worker-term,master-kill,master-kill-commit,net-drop,net-stall,store-full,"
          + "clock-jump",
      description = "Fault kinds to draw from (default: all: ${DEFAULT-VALUE}).")
  List<String> kinds;

  @Option(names = "--in-order", description = "Take the --faults kinds one after another (cycling, across runs)"
      + " instead of drawing them; targets and timing are still drawn from the seed.")
  boolean inOrder;

  @Option(names = "--max-speed", defaultValue = "1000000", paramLabel = "UNITS/s",
      description = "Each worker's speed cap, units per second (default: ${DEFAULT-VALUE}); keeps the jobs long"
          + " enough for faults and the CPU free.")
  double maxSpeed;

  @Option(names = "--job-seconds", defaultValue = "6",
      description = "Primes and grep jobs of about this many seconds of the whole cluster at its cap (default: ${DEFAULT-VALUE}).")
  double jobSeconds;

  @Option(names = "--hang-seconds", defaultValue = "120",
      description = "A job not ended this long after the last fault is a hang (default: ${DEFAULT-VALUE}).")
  double hangSeconds;

  @Option(names = "--no-exec", description = "Leave out the exec job (it needs /bin/sh).")
  boolean noExec;

  @Option(names = "--keep", description = "Keep the runs' folders (logs, stores, inputs) instead of removing them.")
  boolean keep;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    LocalRuns.quietLogs();
    if (runs < 1 || runs > 10_000 || workers < 1 || workers > 64 || faultsPerRun < 0 || faultsPerRun > 1000
        || !(maxSpeed >= 1) || !(jobSeconds > 0) || !(hangSeconds > 0)) {
      throw new IllegalArgumentException("need --runs 1..10000, --workers 1..64, --faults-per-run 0..1000, and a"
          + " positive --max-speed, --job-seconds and --hang-seconds");
    }
    List<ChaosFault> faults = new ArrayList<>();
    for (String k : kinds) {
      ChaosFault f = ChaosFault.byLabel(k.trim());
      if (!faults.contains(f)) {
        faults.add(f);
      }
    }
    if (faults.isEmpty() && faultsPerRun > 0) {
      throw new IllegalArgumentException("--faults names no kind");
    }
    boolean exec = !noExec && ChaosJobs.execAvailable();
    ChaosRun.Settings settings = new ChaosRun.Settings(workers, faultsPerRun, faults, inOrder, maxSpeed, jobSeconds,
        hangSeconds, exec);
    PrintWriter out = spec.commandLine().getOut();
    Path dir = Files.createTempDirectory("gleaner-chaos-");
    List<ChaosRun.Report> reports = new ArrayList<>();
    try {
      for (int i = 0; i < runs; i++) {
        long s = seed + i;
        System.err.printf(Locale.ROOT, "chaos run %d of %d, seed %d%n", i + 1, runs, s);
        ChaosRun.Report r;
        try {
          r = new ChaosRun(settings, s, i, System.err).run(dir.resolve("run-" + s));
        } catch (IllegalStateException | java.io.IOException | java.sql.SQLException e) {
          // a master that does not come back, workers that never join: a failed run, and the series goes on
          System.err.println("chaos run with seed " + s + " could not go on: " + e.getMessage());
          r = ChaosRun.Report.stopped(s, e.getMessage());
        }
        reports.add(r);
        if (!json) {
          ChaosReport.table(r, settings, out);
        }
      }
    } finally {
      if (keep) {
        System.err.println("gleaner chaos: the runs' folders are in " + dir);
      } else {
        LocalRuns.deleteTree(dir, "chaos");
      }
    }
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("settings", ChaosReport.settings(settings, seed, runs));
      doc.put("summary", ChaosReport.summary(reports));
      List<Object> all = new ArrayList<>();
      for (ChaosRun.Report r : reports) {
        all.add(ChaosReport.toMap(r));
      }
      doc.put("runs", all);
      out.println(StatusView.json(doc));
    } else {
      ChaosReport.summaryTable(reports, out);
    }
    boolean ok = reports.stream().allMatch(ChaosRun.Report::ok);
    for (ChaosRun.Report r : reports) {
      if (!r.ok()) {
        spec.commandLine().getErr().println("gleaner chaos: the run with seed " + r.seed() + " failed; to run it again"
            + " alone: " + again(r));
      }
    }
    return ok ? 0 : 1;
  }

  /** The command line that runs this run again alone: the same seed, and its faults in the same order. */
  String again(ChaosRun.Report r) {
    // a run stopped before its faults: the kinds as given (its draws are the same)
    String faults = r.faults().isEmpty() ? String.join(",", kinds) + (inOrder ? " --in-order" : "")
        : String.join(",", r.faults().stream().map(f -> f.kind().label()).toList()) + " --in-order";
    return String.format(Locale.ROOT, "gleaner chaos --runs 1 --seed %d --workers %d --faults-per-run %d --faults %s"
        + " --max-speed %.0f --job-seconds %s --hang-seconds %s%s", r.seed(), workers, faultsPerRun, faults, maxSpeed,
        jobSeconds, hangSeconds, noExec ? " --no-exec" : "");
  }
}
