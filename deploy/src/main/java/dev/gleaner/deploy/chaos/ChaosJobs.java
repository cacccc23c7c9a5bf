package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.audit.KnownPrimeCounts;
import dev.gleaner.deploy.audit.ReferenceSieve;
import dev.gleaner.protocol.JobSpec;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The jobs of one chaos run, drawn from its seed, each with the answer it must give, computed here
 * and not by the workload's code: primes over a range (counted by {@link ReferenceSieve}, or read
 * from {@link KnownPrimeCounts} for a published bound), grep over a file written here (matching
 * lines counted while writing it), and exec of a shell loop that prints its units (its output known
 * line by line).
 */
public final class ChaosJobs {
  static final String PATTERN = "CHAOS";
  static final int GREP_LINES_KEPT = 3;

  /** A job to submit, its units [from, to), and the exact result the master must report. */
  record Planned(String workload, JobSpec spec, long from, long to, String expected) {
    long units() {
      return to - from;
    }
  }

  private ChaosJobs() {}

  /**
   * Draws the run's jobs: each of about {@code units} units (primes: integers, grep: bytes), the grep
   * file written under {@code serve}; an exec job only if {@code exec}.
   */
  static List<Planned> choose(SplittableRandom rng, Path serve, long units, int minWorkers, boolean exec)
      throws IOException {
    List<Planned> out = new ArrayList<>();
    out.add(primes(rng, (long) (units * (0.6 + 0.8 * rng.nextDouble())), minWorkers));
    out.add(grep(rng, serve, (long) (units * (0.6 + 0.8 * rng.nextDouble())), minWorkers));
    int execUnits = rng.nextInt(2_000, 6_000);
    if (exec) {
      out.add(exec(rng, execUnits, minWorkers));
    }
    return out;
  }

  private static JobSpec.Builder common(SplittableRandom rng, String workload, long units, int minWorkers) {
    JobSpec.Builder b = JobSpec.newBuilder().setName("chaos-" + workload).setWorkload(workload).setMinWorkers(minWorkers);
    if (rng.nextBoolean()) {
      b.setStrategy("self").setChunkUnits(Math.max(1, units / rng.nextInt(12, 40)));
    } else {
      b.setStrategy("auto");
    }
    return b.setCheckpoints(rng.nextInt(0, 4));
  }

  static Planned primes(SplittableRandom rng, long units, int minWorkers) {
    long from;
    long to;
    String expected;
    Long known = null;
    for (long bound : KnownPrimeCounts.PI.keySet()) {
      if (bound <= 2 * units && bound >= units / 2 && (known == null || bound > known)) {
        known = bound;
      }
    }
    if (known != null && rng.nextInt(4) == 0) {
      from = 0;
      to = known;
      expected = KnownPrimeCounts.pi(known) + " primes";
    } else {
      from = rng.nextLong(0, 4_000_000_000L);
      to = from + Math.max(1, units);
      expected = ReferenceSieve.count(from, to) + " primes";
    }
    JobSpec spec = common(rng, "primes", to - from, minWorkers).putParams("from", Long.toString(from))
        .putParams("to", Long.toString(to)).build();
    return new Planned("primes", spec, from, to, expected);
  }

  static Planned grep(SplittableRandom rng, Path serve, long bytes, int minWorkers) throws IOException {
    Path file = serve.resolve("reads-" + Long.toHexString(rng.nextLong()) + ".txt");
    char[] bases = {'A', 'C', 'G', 'T'};
    List<String> first = new ArrayList<>();
    long matching = 0;
    long written = 0;
    StringBuilder line = new StringBuilder(160);
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
      for (long n = 0; written < bytes; n++) {
        line.setLength(0);
        int len = rng.nextInt(20, 120);
        for (int i = 0; i < len; i++) {
          line.append(bases[rng.nextInt(4)]);
        }
        if (rng.nextInt(30) == 0) {
          line.insert(rng.nextInt(len), " " + PATTERN + "-" + n + " ");
        }
        String text = line.toString();
        if (text.contains(PATTERN)) {
          matching++;
          if (first.size() < GREP_LINES_KEPT) {
            first.add(text);
          }
        }
        out.write(text);
        out.write('\n');
        written += text.length() + 1;
      }
    }
    StringBuilder expected = new StringBuilder().append(matching).append(" matching lines");
    for (String l : first) {
      expected.append('\n').append(l);
    }
    if (matching > first.size()) {
      expected.append("\n... (").append(matching - first.size()).append(" more)");
    }
    JobSpec spec = common(rng, "grep", written, minWorkers).putParams("file", file.toString())
        .putParams("pattern", PATTERN).putParams("max-lines", Integer.toString(GREP_LINES_KEPT)).build();
    return new Planned("grep", spec, 0, written, expected.toString());
  }

  static Planned exec(SplittableRandom rng, int units, int minWorkers) {
    long from = rng.nextLong(0, 1_000_000);
    long to = from + units;
    StringBuilder expected = new StringBuilder();
    for (long i = from; i < to; i++) {
      expected.append(i).append('\n');
    }
    // a pause per piece so that the job is still running when faults come
    String command = "sh -c 'sleep 0.2; i={start}; while [ $i -lt {end} ]; do echo $i; i=$((i+1)); done'";
    JobSpec spec = JobSpec.newBuilder().setName("chaos-exec").setWorkload("exec").setMinWorkers(minWorkers)
        .putParams("command", command).putParams("from", Long.toString(from)).putParams("to", Long.toString(to))
        .setStrategy("self").setChunkUnits(Math.max(1, units / rng.nextInt(15, 30))).setCheckpoints(rng.nextInt(0, 3))
        .build();
    return new Planned("exec", spec, from, to, expected.toString());
  }

  /** Whether this machine can run the exec job (a POSIX shell). */
  public static boolean execAvailable() {
    return Files.isExecutable(Path.of("/bin/sh"));
  }
}
