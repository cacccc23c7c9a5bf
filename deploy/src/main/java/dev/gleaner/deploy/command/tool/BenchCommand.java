package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.deploy.bench.ClosedLoopBench;
import dev.gleaner.deploy.bench.ClosedLoopReport;
import dev.gleaner.deploy.bench.LoopbackBench;
import dev.gleaner.deploy.bench.hostile.HostileBench;
import dev.gleaner.deploy.bench.hostile.HostileReport;
import dev.gleaner.deploy.bench.links.LinksBench;
import dev.gleaner.deploy.bench.links.LinksOptions;
import dev.gleaner.deploy.bench.shares.SharesBench;
import dev.gleaner.deploy.bench.shares.SharesOptions;
import dev.gleaner.deploy.bench.swarm.SwarmBench;
import dev.gleaner.deploy.bench.swarm.SwarmOptions;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.PlatformFile;
import dev.gleaner.deploy.launch.LocalRuns;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gleaner bench}: its options, and the figures the benches of {@code dev.gleaner.deploy.bench} return,
 * printed as tables or as one JSON document. By default {@link LoopbackBench} (round trips, a worker lost,
 * streaming beside a plain socket copy, the master's peak heap; run it as
 * {@code JAVA_OPTS=-Xmx256m deploy/bin/gleaner bench} to hold the master to 256 MB); {@code --closed-loop}
 * {@link ClosedLoopBench}; {@code --hostile} {@link HostileBench} (about 3.5 minutes); {@code --swarm
 * 1000,10000,4000@1e9} {@link SwarmBench}; {@code --links 80mbit,20mbit} {@link LinksBench} (root only: a network
 * of namespaces).
 */
@Command(name = "bench", mixinStandardHelpOptions = true, subcommands = BenchDriverCommand.class,
    header = "Measure the runtime end to end on loopback.",
    description = {"Measure the runtime end to end on loopback: chunk round-trips/s, streaming MB/s next to a"
        + " plain socket copy, and the master's peak heap. Run with JAVA_OPTS=-Xmx256m to cap the master's heap.",
        "--closed-loop, --hostile, --swarm, --links, --tree and --shares run other benches instead (see their"
            + " options)."})
public final class BenchCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--workers", split = ",", defaultValue = "16,64", description = "Worker counts for the round-trip test (default: ${DEFAULT-VALUE}).")
  List<Integer> workerCounts;

  @Option(names = "--chunks", defaultValue = "100000", description = "Tiny chunks per round-trip run (default: ${DEFAULT-VALUE}).")
  int chunks;

  @Option(names = "--window", defaultValue = "4", description = "Chunks a worker holds at once in the round-trip test (default: ${DEFAULT-VALUE}).")
  int window;

  @Option(names = "--jvm-chunks", defaultValue = "20000",
      description = "One-unit chunks through worker JVMs, then the cost of losing one of them; 0 skips (default: ${DEFAULT-VALUE}).")
  int jvmChunks;

  @Option(names = "--jvm-workers", defaultValue = "4", description = "Worker JVMs for that test (default: ${DEFAULT-VALUE}).")
  int jvmWorkers;

  @Option(names = "--stream-gib", defaultValue = "4", description = "Size of the streamed file in GiB; 0 skips streaming (default: ${DEFAULT-VALUE}).")
  double streamGib;

  @Option(names = "--stream-workers", defaultValue = "2", description = "Worker JVMs receiving the stream (default: ${DEFAULT-VALUE}).")
  int streamWorkers;

  @Option(names = "--json", description = "Print the figures as one JSON document on stdout.")
  boolean json;

  @Option(names = "--closed-loop", description = "Instead: run a platform file's computers as worker JVMs made as"
      + " slow, thin-linked and fragile as it says, grep to a deadline once per strategy and seed, and compare with"
      + " the simulator.")
  boolean closedLoop;

  @Option(names = "--platform", paramLabel = "P.json", defaultValue = "deploy/examples/lab-bench.json",
      description = "Closed loop: the platform (default: ${DEFAULT-VALUE}; speeds and bandwidths in bytes/s).")
  Path platform;

  @Option(names = "--strategies", split = ",", defaultValue = "auto,self,equal",
      description = "Closed loop: strategies to compare (default: ${DEFAULT-VALUE}).")
  List<String> strategies;

  @Option(names = "--runs", defaultValue = "20", description = "Closed loop: seeds per strategy (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--deadline", defaultValue = "60", description = "Closed loop: the job's deadline, seconds (default: ${DEFAULT-VALUE}).")
  double deadline;

  @Option(names = "--downtime", defaultValue = "15",
      description = "Closed loop: mean seconds a worker stays down after an interruption (default: ${DEFAULT-VALUE}).")
  double downtime;

  @Option(names = "--hostile", description = "Instead: a master JVM (-Xmx256m) and two worker JVMs count primes while"
      + " this process opens hostile connections of every kind to the master and a client asks for the status every"
      + " second; once in clear text with a shared secret, once over TLS with tokens. Exits 1 if the master dies, a"
      + " job's answer is wrong, a status request fails or a hostile peer logs in.")
  boolean hostile;

  @Option(names = "--connections", defaultValue = "10000",
      description = "Hostile: connections against the shared-secret master (default: ${DEFAULT-VALUE}).")
  int hostileConnections;

  @Option(names = "--tls-connections", defaultValue = "2000",
      description = "Hostile: connections against the TLS master; 0 skips that run (default: ${DEFAULT-VALUE}).")
  int tlsConnections;

  @Option(names = "--concurrency", defaultValue = "200",
      description = "Hostile: sockets open at once, at most (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(names = "--churn-seconds", defaultValue = "0",
      description = "Hostile: at the end of the clear-text run, connect and close as fast as 4 threads can for this"
          + " long and report the master's live heap; 0 skips (default: ${DEFAULT-VALUE}).")
  int churnSeconds;

  @Option(names = "--seed", defaultValue = "1", description = "Hostile: seed of the attacks' order and bytes (default: ${DEFAULT-VALUE}).")
  long seed;

  @CommandLine.Mixin
  SwarmOptions swarm;

  @CommandLine.Mixin
  LinksOptions links;

  @CommandLine.Mixin
  SharesOptions shares;

  @CommandLine.Mixin
  dev.gleaner.deploy.bench.tree.TreeOptions tree;

  @Override
  public Integer call() throws Exception {
    LocalRuns.quietLogs();
    PrintWriter out = spec.commandLine().getOut();
    if (swarm.requested()) {
      Map<String, Object> doc = swarm.run(System.err);
      if (json) {
        out.println(StatusView.json(doc));
      } else {
        SwarmBench.print(out, doc);
      }
      return Boolean.TRUE.equals(doc.get("ok")) ? 0 : 1;
    }
    if (shares.requested()) {
      Map<String, Object> doc = new SharesBench(shares.settings(), System.err).run();
      if (json) {
        out.println(StatusView.json(doc));
      } else {
        SharesBench.print(out, doc);
      }
      return 0;
    }
    if (tree.killRequested()) {
      Map<String, Object> doc = new dev.gleaner.deploy.bench.tree.RelayKillBench(tree.relayKill, System.err).run();
      if (json) {
        out.println(StatusView.json(doc));
      } else {
        dev.gleaner.deploy.bench.tree.RelayKillBench.print(out, doc);
      }
      return 0;
    }
    if (tree.requested()) {
      Map<String, Object> doc = new dev.gleaner.deploy.bench.tree.TreeBench(tree.settings(), System.err).run();
      if (json) {
        out.println(StatusView.json(doc));
      } else {
        dev.gleaner.deploy.bench.tree.TreeBench.print(out, doc);
      }
      return 0;
    }
    if (links.requested()) {
      Map<String, Object> doc = new LinksBench(links.settings(), System.err).run();
      if (json) {
        out.println(StatusView.json(doc));
      } else {
        LinksBench.print(out, doc);
      }
      return 0;
    }
    if (closedLoop) {
      if (runs < 1 || runs > 10_000 || !(deadline > 0) || !(downtime > 0)) {
        throw new IllegalArgumentException("--runs must be 1..10000, --deadline and --downtime positive");
      }
      for (String s : strategies) {
        Strategies.byName(s);
      }
      Platform p = PlatformFile.read(platform);
      List<ClosedLoopBench.Run> results = new ClosedLoopBench(p, strategies, runs, deadline, downtime, 1.5,
          System.err).run();
      Map<String, Object> doc = ClosedLoopReport.of(results, strategies);
      if (json) {
        out.println(StatusView.json(doc));
      } else {
        ClosedLoopReport.print(out, doc);
      }
      return 0;
    }
    if (hostile) {
      Map<String, Object> doc = HostileBench.run(new HostileBench.Settings(hostileConnections, tlsConnections,
          concurrency, seed, churnSeconds), spec.commandLine().getErr());
      if (json) {
        out.println(StatusView.json(doc));
      } else {
        HostileReport.print(out, doc);
      }
      return Boolean.TRUE.equals(doc.get("ok")) ? 0 : 1;
    }
    Map<String, Object> figures = new LoopbackBench(new LoopbackBench.Settings(workerCounts, chunks, window, jvmChunks,
        jvmWorkers, streamGib, streamWorkers), spec.commandLine().getErr()).run();
    if (json) {
      out.println(StatusView.json(figures));
    } else {
      LoopbackBench.print(out, figures);
    }
    return 0;
  }
}
