package dev.gleaner.master;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.port.Sends;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.tls.ServerTls;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything the master is configured with.
 *
 * @param bind address and port to listen on (port 0: an ephemeral port)
 * @param dataDir where the SQLite store lives
 * @param auth the logins it takes: the shared secret, tokens of its cluster key, or both
 * @param heartbeatInterval how often workers send heartbeats
 * @param heartbeatTimeout silence after which a worker is declared down
 * @param maxFrameBytes hard limit of one frame
 * @param concurrentSends how chunk inputs stream, a code of {@link Sends}: {@link Sends#SHARE} (the default)
 *     all at once, sharing the egress as TCP does; {@link Sends#FIT} as many as their links fit in the
 *     master's egress, as measured; n at least 1, n links at a time (1: the papers' one-port model)
 * @param control the controller's tuning: window, re-plans, splits, leases
 * @param ticker the clock for heartbeats and rates
 * @param workloads the workloads jobs may use
 * @param serve directories whose regular files jobs may name as input (none: no file input)
 * @param tls the master's TLS; null: clear text (a trusted lab network only)
 * @param maxResultBytes the largest result one piece may have (a result over one frame arrives as
 *     several); a larger one fails its chunk with an error that names this limit
 * @param metricsFromAnywhere whether {@code /metrics} answers every address (false: loopback only)
 * @param webFromAnywhere whether the web page and {@code /api/status} answer other addresses than
 *     loopback ones (false: loopback only), which then must show a client token or the shared secret
 * @param privateJobs whether a client reads other clients' jobs without their names, messages and results
 *     (false: every job in full but another client's result, as reading is shared in a lab)
 * @param expectedUpSeconds the risk prior: a worker with no history is expected to go down after
 *     this long up on average (worth 10 interruptions); 0: none, nobody is at risk until seen
 * @param expectedDownSeconds the outages' prior: a worker interrupted is expected back after this long
 *     on average (worth 10 outages), until its outages are seen; 0: none, the outages seen alone
 */
public record MasterConfig(InetSocketAddress bind, Path dataDir, MasterAuth auth, Duration heartbeatInterval,
    Duration heartbeatTimeout, int maxFrameBytes, int concurrentSends, ControlConfig control, Ticker ticker,
    Workloads workloads, java.util.List<Path> serve, ServerTls tls, long maxResultBytes,
    double expectedUpSeconds, double expectedDownSeconds, boolean metricsFromAnywhere, boolean webFromAnywhere, boolean privateJobs) {

  /** The default {@link #maxResultBytes}: 256 MiB. */
  public static final long DEFAULT_MAX_RESULT_BYTES = 256L * 1024 * 1024;

  public MasterConfig {
    serve = java.util.List.copyOf(serve);
    if (heartbeatTimeout.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException("heartbeat timeout (" + heartbeatTimeout
          + ") must be longer than the heartbeat interval (" + heartbeatInterval + ")");
    }
    if (!Sends.valid(concurrentSends)) {
      throw new IllegalArgumentException("concurrent sends must be share (0), fit (-1) or at least 1, got "
          + concurrentSends);
    }
    if (!(expectedUpSeconds >= 0)) {
      throw new IllegalArgumentException("the expected time up must not be negative, got " + expectedUpSeconds);
    }
    if (!(expectedDownSeconds >= 0)) {
      throw new IllegalArgumentException("the expected time down must not be negative, got " + expectedDownSeconds);
    }
    if (maxResultBytes < maxFrameBytes) {
      throw new IllegalArgumentException("the result limit (" + maxResultBytes + " bytes) must be at least one frame ("
          + maxFrameBytes + " bytes)");
    }
  }

  /** Defaults: heartbeat every 2 s, down after 10 s of silence, 16 MiB frames, one-port sends. */
  public static MasterConfig defaults(InetSocketAddress bind, Path dataDir, byte[] secret, Workloads workloads) {
    return new MasterConfig(bind, dataDir, MasterAuth.sharedSecret(secret), Duration.ofSeconds(2), Duration.ofSeconds(10),
        Framing.DEFAULT_MAX_FRAME_BYTES, 0, ControlConfig.defaults(), Ticker.SYSTEM, workloads, java.util.List.of(), null,
        DEFAULT_MAX_RESULT_BYTES, 0, 0, false, false, false);
  }

  public MasterConfig withHeartbeat(Duration interval, Duration timeout) {
    return new MasterConfig(bind, dataDir, auth, interval, timeout, maxFrameBytes, concurrentSends, control, ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  public MasterConfig withTicker(Ticker t) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends, control, t, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /**
   * Frames of at most {@code max} bytes. The result limit must hold one frame: below it, it is
   * raised to one frame (the command line refuses that case instead, naming both options).
   */
  public MasterConfig withMaxFrameBytes(int max) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, max, concurrentSends, control, ticker, workloads, serve, tls,
        Math.max(max, maxResultBytes), expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  public MasterConfig withConcurrentSends(int n) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, n, control, ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  public MasterConfig withWindow(int n) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends, control.withWindow(n), ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /** Leases of at least {@code floor} and {@code factor} times a piece's expected time (see {@link ControlConfig}). */
  public MasterConfig withLease(Duration floor, double factor) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control.withLease(floor.toMillis() / 1000.0, factor), ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /** Jobs may name regular files under these directories as input. */
  public MasterConfig withServe(Path... dirs) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, java.util.List.of(dirs), tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /** Takes these logins instead. */
  public MasterConfig withAuth(MasterAuth a) {
    return new MasterConfig(bind, dataDir, a, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /** Speaks TLS only, with this certificate; null: clear text. */
  public MasterConfig withTls(ServerTls t) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, t, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /** Pieces' results may be this large (at least one frame). */
  public MasterConfig withMaxResultBytes(long max) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, tls, max, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /** A worker with no history is expected to go down after this long up on average (0: no prior). */
  public MasterConfig withExpectedUp(double seconds) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, tls, maxResultBytes, seconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere, privateJobs);
  }

  /** A worker interrupted is expected back after this long on average, until its outages are seen (0: no prior). */
  public MasterConfig withExpectedDown(double seconds) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, seconds, metricsFromAnywhere,
        webFromAnywhere, privateJobs);
  }

  /** Whether {@code /metrics} answers every address, not only loopback ones. */
  public MasterConfig withMetricsFromAnywhere(boolean anywhere) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, anywhere, webFromAnywhere, privateJobs);
  }

  /**
   * Whether the web page and {@code /api/status} answer every address, not only loopback ones
   * (other addresses must then show a client token or the shared secret).
   */
  public MasterConfig withWebFromAnywhere(boolean anywhere) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, anywhere, privateJobs);
  }

  /**
   * Whether a client reads other clients' jobs as numbers only (their owner, state and progress),
   * without their names, messages and results; operators read every job in full.
   */
  public MasterConfig withPrivateJobs(boolean hide) {
    return new MasterConfig(bind, dataDir, auth, heartbeatInterval, heartbeatTimeout, maxFrameBytes, concurrentSends,
        control, ticker, workloads, serve, tls, maxResultBytes, expectedUpSeconds, expectedDownSeconds, metricsFromAnywhere, webFromAnywhere,
        hide);
  }

  /** Chunks a worker may hold at once (1 computing, the rest queued on it). */
  public int window() {
    return control.window();
  }
}
