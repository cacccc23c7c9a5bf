package dev.gleaner.master;

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
 * @param window chunks a worker may hold at once (1 computing, the rest queued on it)
 * @param ticker the clock for heartbeats and rates
 * @param workloads the workloads jobs may use
 */
public record MasterConfig(InetSocketAddress bind, Path dataDir, byte[] secret, Duration heartbeatInterval,
    Duration heartbeatTimeout, int maxFrameBytes, int concurrentSends, int window, Ticker ticker,
    Workloads workloads) {

  public MasterConfig {
    if (heartbeatTimeout.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException("heartbeat timeout (" + heartbeatTimeout
          + ") must be longer than the heartbeat interval (" + heartbeatInterval + ")");
    }
    if (concurrentSends < 1 || window < 1) {
      throw new IllegalArgumentException("concurrent sends and window must be at least 1");
    }
  }

  /** Defaults: heartbeat every 2 s, down after 10 s of silence, 16 MiB frames, one-port sends. */
  public static MasterConfig defaults(InetSocketAddress bind, Path dataDir, byte[] secret, Workloads workloads) {
    return new MasterConfig(bind, dataDir, secret, Duration.ofSeconds(2), Duration.ofSeconds(10),
        Framing.DEFAULT_MAX_FRAME_BYTES, 1, 2, Ticker.SYSTEM, workloads);
  }

  public MasterConfig withHeartbeat(Duration interval, Duration timeout) {
    return new MasterConfig(bind, dataDir, secret, interval, timeout, maxFrameBytes, concurrentSends, window, ticker, workloads);
  }

  public MasterConfig withTicker(Ticker t) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends, window, t, workloads);
  }

  public MasterConfig withMaxFrameBytes(int max) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, max, concurrentSends, window, ticker, workloads);
  }

  public MasterConfig withConcurrentSends(int n) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, n, window, ticker, workloads);
  }

  public MasterConfig withWindow(int n) {
    return new MasterConfig(bind, dataDir, secret, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends, n, ticker, workloads);
  }
}
