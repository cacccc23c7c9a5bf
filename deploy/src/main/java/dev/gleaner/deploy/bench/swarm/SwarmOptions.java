package dev.gleaner.deploy.bench.swarm;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of {@code gleaner bench --swarm}, mixed into the bench command. */
public final class SwarmOptions {
  @Option(names = "--swarm", paramLabel = "N[@SPEED],...", split = ",",
      description = "Instead: N simulated workers in this process, each from its own loopback address, log in to a"
          + " master JVM at once and count primes in a job of many small chunks; per size, the time until all are"
          + " welcomed, sessions the master closed, chunks/s, status latency, the master's memory and how long"
          + " SIGTERM takes. SPEED: the units/s each declares (default 1e6). E.g. --swarm 1000,10000,4000@1e9")
  List<String> sizes;

  @Option(names = "--swarm-chunks", defaultValue = "100000",
      description = "Swarm: chunks in the job (default: ${DEFAULT-VALUE}).")
  long chunks;

  @Option(names = "--swarm-chunk-units", defaultValue = "1000",
      description = "Swarm: units (integers to test for primality) per chunk (default: ${DEFAULT-VALUE}).")
  long chunkUnits;

  @Option(names = "--swarm-strategy", defaultValue = "self",
      description = "Swarm: the job's strategy (default: ${DEFAULT-VALUE}, chunks of --swarm-chunk-units).")
  String strategy;

  @Option(names = "--swarm-stop-after", defaultValue = "0", paramLabel = "SECONDS",
      description = "Swarm: send SIGTERM this long after the submit, while the job runs; 0: once it has ended"
          + " (default: ${DEFAULT-VALUE}).")
  double stopAfter;

  @Option(names = "--swarm-job-seconds", defaultValue = "600",
      description = "Swarm: the longest wait for the job to end before SIGTERM (default: ${DEFAULT-VALUE}).")
  double jobSeconds;

  @Option(names = "--swarm-master-heap", defaultValue = "2g",
      description = "Swarm: the master JVM's -Xmx (default: ${DEFAULT-VALUE}).")
  String masterHeap;

  @Option(names = "--swarm-threads", defaultValue = "2",
      description = "Swarm: event-loop threads of the simulated workers (default: ${DEFAULT-VALUE}).")
  int ioThreads;

  /** Whether {@code --swarm} was given. */
  public boolean requested() {
    return sizes != null && !sizes.isEmpty();
  }

  /** The scenarios {@code --swarm} names, in order. */
  List<SwarmBench.Scenario> scenarios() {
    if (chunks < 1 || chunkUnits < 1 || chunks > 100_000_000 || Math.multiplyHigh(chunks, chunkUnits) != 0
        || chunks * chunkUnits > (1L << 40)) {
      throw new IllegalArgumentException("--swarm-chunks and --swarm-chunk-units must be positive, their product at"
          + " most 2^40");
    }
    if (ioThreads < 1 || ioThreads > 64 || !(jobSeconds > 0) || stopAfter < 0) {
      throw new IllegalArgumentException("--swarm-threads must be 1..64, --swarm-job-seconds positive,"
          + " --swarm-stop-after not negative");
    }
    List<SwarmBench.Scenario> out = new ArrayList<>();
    for (String s : sizes) {
      String[] parts = s.strip().split("@", 2);
      int n;
      double speed;
      try {
        n = Integer.parseInt(parts[0].strip());
        speed = parts.length > 1 ? Double.parseDouble(parts[1].strip()) : 1e6;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--swarm takes N or N@SPEED (e.g. 1000 or 4000@1e9), not '" + s + "'");
      }
      if (n < 1 || n > 1_000_000 || !(speed > 0) || Double.isInfinite(speed)) {
        throw new IllegalArgumentException("--swarm: N must be 1..1000000 and SPEED positive, got '" + s + "'");
      }
      out.add(new SwarmBench.Scenario(n, speed, chunks, chunkUnits, strategy, stopAfter, jobSeconds));
    }
    return out;
  }

  /** Runs every scenario in a temporary directory; the figures as one document. */
  public java.util.Map<String, Object> run(java.io.PrintStream progress) throws Exception {
    return new SwarmBench(List.of("-Xmx" + masterHeap), ioThreads, progress).runAll(scenarios());
  }
}
