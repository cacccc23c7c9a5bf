package dev.gleaner.worker;

import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.tls.ClientTls;
import java.time.Duration;
import java.time.Instant;

/**
 * Everything the worker is configured with.
 *
 * @param host master host
 * @param port master port
 * @param credential what it answers the master's challenge with: the shared secret or its worker token
 * @param workerId stable id of this worker (interruption history is kept under it)
 * @param cores threads used to compute a chunk
 * @param workloads workloads this worker accepts
 * @param slowdown 1 for full speed; k > 1 makes every piece take k times as long (to emulate a
 *     slower computer in demos, tests and benchmarks)
 * @param backoffInitial first wait before reconnecting
 * @param backoffCap longest wait before reconnecting
 * @param maxFrameBytes hard limit of one frame
 * @param drainTimeout how long a drain waits for the master's acknowledgements
 * @param availableUntil when this worker will surely be gone (it tells the master, and leaves
 *     then); null for no end
 * @param interrupt failure injection: the worker dies without draining at drawn times and comes
 *     back after drawn downtimes (tests and benchmarks); null for none
 * @param interruptSeed the seed of those draws
 * @param receiveBytesPerSecond reads from the master at most this fast, so TCP flow control slows
 *     the master's sends to it (a thin link on one machine); 0 for no limit
 * @param maxSpeed computes at most this many units per second (a slower computer of a given speed,
 *     whatever this one's is: tests and benchmarks); 0 for no limit
 * @param tls TLS to the master, trusting the cluster CA; null for clear text
 * @param owner the owner's policy (windows, activity sources, vacate or suspend); null for a
 *     computer that is always lent (a dedicated cluster)
 * @param crashFile failure injection driven from outside: while this file exists the worker is
 *     down as after a crash (what it had not reported is lost), and it comes back when the file
 *     goes ({@code gleaner replay --run --interruptions crash}); null for none
 * @param events what it tells of its failure injection and its vacates, beside its log
 *     ({@link WorkerEvents#NONE} for nobody)
 * @param alternates where else it may connect when {@code host:port} cannot be reached or its
 *     session there is lost: relays or the master, tried in this order after it
 */
public record WorkerConfig(String host, int port, PeerCredential credential, String workerId, int cores, Workloads workloads,
    double slowdown, Duration backoffInitial, Duration backoffCap, int maxFrameBytes, Duration drainTimeout,
    Instant availableUntil, FailureSchedule interrupt, long interruptSeed, long receiveBytesPerSecond,
    double maxSpeed, ClientTls tls, dev.gleaner.worker.owner.OwnerConfig owner, java.nio.file.Path crashFile,
    WorkerEvents events, java.util.List<java.net.InetSocketAddress> alternates) {

  public WorkerConfig {
    if (events == null) {
      events = WorkerEvents.NONE;
    }
    alternates = alternates == null ? java.util.List.of() : java.util.List.copyOf(alternates);
    if (cores < 1) {
      throw new IllegalArgumentException("cores must be at least 1, got " + cores);
    }
    if (!(slowdown >= 1)) {
      throw new IllegalArgumentException("slowdown must be at least 1, got " + slowdown);
    }
    if (!(maxSpeed >= 0)) {
      throw new IllegalArgumentException("the speed cap must not be negative, got " + maxSpeed);
    }
    if (credential.isToken() && !credential.id().equals(workerId)) {
      throw new IllegalArgumentException("the token is for worker '" + credential.id() + "', not '" + workerId
          + "': a worker logs in under its token's id (leave out --id, or make a token for this id)");
    }
    if (credential.isToken() && credential.role() != dev.gleaner.protocol.Role.WORKER) {
      throw new IllegalArgumentException("that is a " + credential + "; a worker needs a worker token"
          + " (`gleaner token worker ID`)");
    }
    if (receiveBytesPerSecond < 0) {
      throw new IllegalArgumentException("the receive rate must not be negative, got " + receiveBytesPerSecond);
    }
  }

  /** Defaults, with the shared cluster secret. */
  public static WorkerConfig defaults(String host, int port, byte[] secret, String workerId, Workloads workloads) {
    return defaults(host, port, PeerCredential.sharedSecret(secret), workerId, workloads);
  }

  public static WorkerConfig defaults(String host, int port, PeerCredential credential, String workerId, Workloads workloads) {
    return new WorkerConfig(host, port, credential, workerId, Runtime.getRuntime().availableProcessors(), workloads, 1,
        Duration.ofMillis(200), Duration.ofSeconds(30), Framing.DEFAULT_MAX_FRAME_BYTES, Duration.ofSeconds(20),
        null, null, 0, 0, 0, null, null, null, WorkerEvents.NONE, java.util.List.of());
  }

  public WorkerConfig withCores(int n) {
    return new WorkerConfig(host, port, credential, workerId, n, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed,
        tls, owner, crashFile, events, alternates);
  }

  public WorkerConfig withSlowdown(double k) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, k, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed,
        tls, owner, crashFile, events, alternates);
  }

  public WorkerConfig withBackoff(Duration initial, Duration cap) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, initial, cap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed,
        tls, owner, crashFile, events, alternates);
  }

  public WorkerConfig withAvailableUntil(Instant at) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, at, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed, tls, owner,
        crashFile, events, alternates);
  }

  public WorkerConfig withCrashFile(java.nio.file.Path file) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed, tls, owner,
        file, events, alternates);
  }

  public WorkerConfig withInterruptions(FailureSchedule schedule, long seed) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, schedule, seed, receiveBytesPerSecond, maxSpeed, tls,
        owner, crashFile, events, alternates);
  }

  public WorkerConfig withReceiveRate(long bytesPerSecond) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, bytesPerSecond, maxSpeed, tls,
        owner, crashFile, events, alternates);
  }

  public WorkerConfig withMaxSpeed(double unitsPerSecond) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond,
        unitsPerSecond, tls, owner, crashFile, events, alternates);
  }

  /** Tells {@code e} of its failure injection and its vacates, beside its log. */
  public WorkerConfig withEvents(WorkerEvents e) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed,
        tls, owner, crashFile, e, alternates);
  }

  /** Follows its owner's policy; null for a computer that is always lent. */
  public WorkerConfig withOwner(dev.gleaner.worker.owner.OwnerConfig o) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed,
        tls, o, crashFile, events, alternates);
  }

  /** Speaks TLS to the master, trusting the cluster CA; null for clear text. */
  public WorkerConfig withTls(ClientTls t) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed,
        t, owner, crashFile, events, alternates);
  }

  /** Connects to these too, in order, when the first cannot be reached or its session is lost. */
  public WorkerConfig withAlternates(java.util.List<java.net.InetSocketAddress> more) {
    return new WorkerConfig(host, port, credential, workerId, cores, workloads, slowdown, backoffInitial, backoffCap,
        maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond, maxSpeed,
        tls, owner, crashFile, events, more);
  }

  /** Every place it may connect to: {@code host:port} first, then the alternates. */
  public java.util.List<java.net.InetSocketAddress> upstreams() {
    java.util.List<java.net.InetSocketAddress> all = new java.util.ArrayList<>();
    all.add(java.net.InetSocketAddress.createUnresolved(host, port));
    all.addAll(alternates);
    return all;
  }

  /** Connects through the relay at {@code relayHost:relayPort} first, and where it connected before after it. */
  public WorkerConfig throughRelay(String relayHost, int relayPort) {
    java.util.List<java.net.InetSocketAddress> after = new java.util.ArrayList<>();
    after.add(java.net.InetSocketAddress.createUnresolved(host, port));
    after.addAll(alternates);
    return new WorkerConfig(relayHost, relayPort, credential, workerId, cores, workloads, slowdown, backoffInitial,
        backoffCap, maxFrameBytes, drainTimeout, availableUntil, interrupt, interruptSeed, receiveBytesPerSecond,
        maxSpeed, tls, owner, crashFile, events, after);
  }
}
