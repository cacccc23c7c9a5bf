package dev.gleaner.master;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.Framing;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything the master is configured with.
 *
 * @param bind address and port to listen on (port 0: an ephemeral port)
 * @param dataDir where the SQLite store lives
 * @param secret the shared cluster secret
 * @param heartbeatInterval how often workers send heartbeats
 * @param heartbeatTimeout silence after which a worker is declared down
 * @param maxFrameBytes hard limit of one frame
 * @param concurrentSends how many chunk inputs stream at once (1: the one-port model)
 * @param control the controller's tuning: window, re-plans, splits, leases
 * @param ticker the clock for heartbeats and rates
 * @param workloads the workloads jobs may use
 * @param serve directories whose regular files jobs may name as input (none: no file input)
 */
public record MasterConfig(InetSocketAddress bind, Path dataDir, byte[] secret, Duration heartbeatInterval,
    Duration heartbeatTimeout, int maxFrameBytes, int concurrentSends, ControlConfig control, Ticker ticker,
    Workloads workloads, java.util.List<Path> serve) {

  public MasterConfig {
    serve = java.util.List.copyOf(serve);
    if (heartbeatTimeout.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException("heartbeat timeout (" + heartbeatTimeout
          + ") must be longer than the heartbeat interval (" + heartbeatInterval + ")");
    }
    if (concurrentSends < 1) {
      throw new IllegalArgumentException("concurrent sends must be at least 1");
    }
  }

  /** Defaults: heartbeat every 2 s, down after 10 s of silence, 16 MiB frames, one-port sends. */
  public static MasterConfig defaults(InetSocketAddress bind, Path dataDir, byte[] secret, Workloads workloads) {
    return new MasterConfig(bind, dataDir, secret, Duration.ofSeconds(2), Duration.ofSeconds(10),
        Framing.DEFAULT_MAX_FRAME_BYTES, 1, ControlConfig.defaults(), Ticker.SYSTEM, workloads, java.util.List.of());
  }

  public MasterConfig withHeartbeat(Duration interval, Duration timeout) {
    return new MasterConfig(bind, dataDir, secret, interval, timeout, maxFrameBytes, concurrentSends, control, ticker, workloads, serve);
  }

  public MasterConfig withTicker(Ticker t) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends, control, t, workloads, serve);
  }

  public MasterConfig withMaxFrameBytes(int max) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, max, concurrentSends, control, ticker, workloads, serve);
  }

  public MasterConfig withConcurrentSends(int n) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, n, control, ticker, workloads, serve);
  }

  public MasterConfig withWindow(int n) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends, control.withWindow(n), ticker, workloads, serve);
  }

  /** Leases of at least {@code floor} and {@code factor} times a piece's expected time (see {@link ControlConfig}). */
  public MasterConfig withLease(Duration floor, double factor) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control.withLease(floor.toMillis() / 1000.0, factor), ticker, workloads, serve);
  }

  /** Jobs may name regular files under these directories as input. */
  public MasterConfig withServe(Path... dirs) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, java.util.List.of(dirs));
  }

  /** Chunks a worker may hold at once (1 computing, the rest queued on it). */
  public int window() {
    return control.window();
  }
}
