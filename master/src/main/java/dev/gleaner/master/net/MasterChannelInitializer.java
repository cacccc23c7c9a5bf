package dev.gleaner.master.net;

import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.auth.PeerAuthenticator;
import dev.gleaner.master.auth.Revocations;
import dev.gleaner.master.auth.TokenSessions;
import dev.gleaner.master.loop.ControlLoop;
import dev.gleaner.master.loop.JobService;
import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.net.port.FileRegionSizeEstimator;
import dev.gleaner.master.net.port.SendPort;
import dev.gleaner.master.status.StatusService;
import dev.gleaner.protocol.Framing;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/**
 * The master's whole pipeline, in one place: TLS when configured (clear-text peers refused),
 * length-prefixed frames with a hard maximum, the protobuf envelope codec (with zero-copy data
 * frames), and the {@link HandshakeHandler}, which at the Welcome puts a {@link WorkerHandler} or a
 * {@link ClientHandler} in its place. Also owns the one port and the heartbeat monitor that every
 * connection shares.
 */
public final class MasterChannelInitializer extends ChannelInitializer<SocketChannel> {
  private final Services services;

  public MasterChannelInitializer(MasterConfig config, ControlLoop loop, JobService jobs, StatusService status,
      Revocations revocations, MasterMetrics metrics, MeterRegistry registry) {
    LoginGate gate = new LoginGate(metrics.connectionsEvicted::increment);
    metrics.loggingIn(gate::waiting);
    ResultBudget budget = ResultBudget.forHeap(Runtime.getRuntime().maxMemory(), config.maxResultBytes());
    metrics.resultsWaiting(budget::waiting);
    SendPort port = new SendPort(config.concurrentSends());
    metrics.egress(port::egress, port::egressBound);
    port.onHandover(seconds -> metrics.portHandover.record((long) (seconds * 1e9),
        java.util.concurrent.TimeUnit.NANOSECONDS));
    loop.streamsThrough(port);
    this.services = new Services(config, config.ticker(), new PeerAuthenticator(config.auth(), revocations), loop, jobs,
        status, port, new HeartbeatMonitor(loop, config.ticker(), config.heartbeatTimeout()),
        metrics, registry, gate, budget, revocations, new TokenSessions());
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ch.config().setMessageSizeEstimator(FileRegionSizeEstimator.INSTANCE);
    if (services.config().tls() != null) {
      // TLS only: the first bytes decide; a clear-text peer gets one readable error and the door
      ch.pipeline().addLast("tls", new TlsOnlyHandler(services.config().tls()));
    }
    // an HTTP request (GET /metrics) or the framed protocol: the first bytes tell
    ch.pipeline().addLast("sniff", new HttpSniffer(services));
    Framing.install(ch.pipeline(), services.config().maxFrameBytes());
    // until the peer has logged in, a frame may be no larger than a handshake needs
    Framing.decoder(ch.pipeline()).limit(LoginGate.FRAME_BYTES);
    ch.pipeline().addLast("handshake", new HandshakeHandler(services));
  }

  /** Ends every session that has been silent past the heartbeat timeout; returns how many. */
  public int sweepSilent() {
    return services.monitor().sweep();
  }
}
