package dev.gleaner.deploy.bench.tree;

import dev.gleaner.deploy.testbed.Rate;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of {@code gleaner bench --tree}, mixed into the bench command. */
public final class TreeOptions {
  @Option(names = "--tree", paramLabel = "RATE@R,...", split = ",",
      description = "Instead: build a network of namespaces here (root only) with relays: one worker JVM per"
          + " RATE@R, behind a link of that rate, under relay R (1, 2, ...; 0: the master), each relay behind its own"
          + " link (--tree-relays), the master behind --tree-uplink; run a wc job over a served file with the"
          + " workers through their relays (the tree) and straight to the master (the flat star), in turn, and print"
          + " each one's steady rate beside paper 002's. E.g. --tree 10mbit@1,10mbit@1,20mbit@2,20mbit@2")
  List<String> workers;

  @Option(names = "--tree-relays", paramLabel = "RATE,...", split = ",",
      description = "Tree: each relay's link, everything sent to it (default: one unlimited relay per R named).")
  List<String> relays;

  @Option(names = "--tree-uplink", paramLabel = "RATE", defaultValue = "unlimited",
      description = "Tree: the master's uplink, everything it sends (default: ${DEFAULT-VALUE}).")
  String uplink;

  @Option(names = "--tree-file-mib", defaultValue = "64",
      description = "Tree: the served file's size in MiB (default: ${DEFAULT-VALUE}).")
  double fileMib;

  @Option(names = "--tree-chunk-mib", defaultValue = "1",
      description = "Tree: the job's chunks (its tasks), in MiB (default: ${DEFAULT-VALUE}).")
  double chunkMib;

  @Option(names = "--tree-repeat", defaultValue = "1",
      description = "Tree: runs of each shape, interleaved (default: ${DEFAULT-VALUE}).")
  int repeat;

  @Option(names = "--tree-concurrent-sends", defaultValue = "fit", paramLabel = "share|fit|N",
      description = "Tree: the master's --concurrent-sends (default: ${DEFAULT-VALUE}).")
  String concurrentSends;

  @Option(names = "--tree-relay-buffer", paramLabel = "BYTES", defaultValue = "8M",
      description = "Tree: each relay's --buffer (default: ${DEFAULT-VALUE}).")
  String relayBuffer;

  @Option(names = "--tree-input-at-relays",
      description = "Tree: each relay holds a copy of the served file (gleaner relay --serve) and sends it to its"
          + " workers itself; only assignments cross its link.")
  boolean inputAtRelays;

  @Option(names = "--relay-kill", paramLabel = "SEEDS", defaultValue = "0",
      description = "Instead: on loopback, a master, a relay and two workers behind it; once per seed, a primes job"
          + " with the relay killed (SIGKILL) part way: print whether each answer is exact, how long the workers took"
          + " to reach the master directly, and the units they computed (more than the job's: work done twice).")
  public int relayKill;

  /** Whether {@code --relay-kill} asks for its bench. */
  public boolean killRequested() {
    return relayKill > 0;
  }

  public boolean requested() {
    return workers != null && !workers.isEmpty();
  }

  public TreeBench.Settings settings() {
    List<Rate> links = new ArrayList<>();
    List<Integer> under = new ArrayList<>();
    int relayCount = 0;
    for (String w : workers) {
      int at = w.lastIndexOf('@');
      if (at < 0) {
        throw new IllegalArgumentException("--tree: '" + w
            + "' is not RATE@R (R: its relay, 1, 2, ...; 0: the master)");
      }
      int r;
      try {
        r = Integer.parseInt(w.substring(at + 1).trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--tree: '" + w + "': R must be a relay's number (0: the master)", e);
      }
      if (r < 0 || r > 50) {
        throw new IllegalArgumentException("--tree: '" + w + "': R must be 0 to 50");
      }
      links.add(Rate.parse(w.substring(0, at)));
      under.add(r);
      relayCount = Math.max(relayCount, r);
    }
    List<Rate> relayLinks = new ArrayList<>();
    for (int r = 0; r < relayCount; r++) {
      relayLinks.add(relays == null || relays.isEmpty() ? Rate.UNLIMITED : Rate.parse(relays.get(Math.min(r,
          relays.size() - 1))));
    }
    if (relays != null && relays.size() > 1 && relays.size() != relayCount) {
      throw new IllegalArgumentException("--tree-relays: give one rate for all or one per relay (" + relayCount
          + "), not " + relays.size());
    }
    if (!(fileMib > 0) || !(chunkMib > 0) || chunkMib > fileMib) {
      throw new IllegalArgumentException("--tree-file-mib and --tree-chunk-mib must be positive, the chunk no larger");
    }
    if (repeat < 1 || repeat > 100) {
      throw new IllegalArgumentException("--tree-repeat must be 1 to 100, got " + repeat);
    }
    return new TreeBench.Settings(Rate.parse(uplink), relayLinks, links, under, (long) (fileMib * (1 << 20)),
        (long) (chunkMib * (1 << 20)), repeat, concurrentSends, relayBuffer, inputAtRelays);
  }
}
