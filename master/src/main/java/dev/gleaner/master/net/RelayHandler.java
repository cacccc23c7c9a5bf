package dev.gleaner.master.net;

import dev.gleaner.master.loop.Relays;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.HeldFile;
import dev.gleaner.protocol.HeldFiles;
import dev.gleaner.protocol.Messages;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay's own session, after its Welcome: while it lasts, the relay may put a Via naming this
 * session in front of the connections it passes up. It sends heartbeats (answered, as a worker's)
 * and the input files it holds, and nothing else; one silent past the heartbeat timeout is closed,
 * and so are the Vias it could still make.
 */
final class RelayHandler extends ConnectionHandler {
  private static final Logger log = LoggerFactory.getLogger(RelayHandler.class);

  private final Login login;
  private final String sessionId;
  private final Channel channel;
  private volatile long lastHeardNanos;
  private ScheduledFuture<?> silenceCheck;
  private boolean saidGoodbye;

  RelayHandler(Services services, Login login, String sessionId, Channel channel) {
    super(services);
    this.login = login;
    this.sessionId = sessionId;
    this.channel = channel;
    this.lastHeardNanos = services.ticker().nanos();
  }

  private String id() {
    return login.hello().getPeerId();
  }

  /** The relay is in the pipeline: its Vias are taken from now on, and its silence is watched. */
  void joined(ChannelHandlerContext ctx) {
    services.loop().relays().joined(new Relays.Relay(id(), sessionId, login.hello().getHost(), login.via(),
        services.ticker().epochMillis(),
        () -> TimeUnit.NANOSECONDS.toMillis(services.ticker().nanos() - lastHeardNanos), channel::close,
        channel.remoteAddress() instanceof java.net.InetSocketAddress a ? a.getAddress() : null));
    long every = Math.max(10, services.config().heartbeatInterval().toMillis());
    long timeout = services.config().heartbeatTimeout().toNanos();
    silenceCheck = ctx.executor().scheduleAtFixedRate(() -> {
      long silent = services.ticker().nanos() - lastHeardNanos;
      if (silent > timeout) {
        refuse(ctx, Error.Code.NOT_AUTHENTICATED, "relay " + id() + ": no heartbeat for "
            + TimeUnit.NANOSECONDS.toMillis(silent) + " ms");
      }
    }, every, every, TimeUnit.MILLISECONDS);
    log.info("relay {} joined from {}{}", id(), login.hello().getHost(),
        login.via().isEmpty() ? "" : " through relay " + login.parent());
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
    lastHeardNanos = services.ticker().nanos();
    if (closing()) {
      return;
    }
    switch (msg.getBodyCase()) {
      case HEARTBEAT -> ctx.writeAndFlush(Messages.heartbeat(msg.getHeartbeat().getSeq(),
          services.ticker().epochMillis()));
      case HELD_FILES -> held(ctx, msg.getHeldFiles());
      case GOODBYE -> {
        saidGoodbye = true;
        ctx.close();
      }
      default -> refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a relay may not send " + msg.getBodyCase()
          + " on its own session");
    }
  }

  /** The input files the relay holds: the workers behind it get a matching job's input from it. */
  private void held(ChannelHandlerContext ctx, HeldFiles files) {
    List<Relays.Held> held = new ArrayList<>();
    for (HeldFile f : files.getFilesList()) {
      if (f.getSha256().size() != 32 || f.getName().isEmpty()) {
        refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "relay " + id() + ": a held file needs a name and a 32-byte"
            + " SHA-256, got '" + f.getName() + "' with " + f.getSha256().size() + " bytes");
        return;
      }
      held.add(new Relays.Held(f.getName(), f.getSize(), HexFormat.of().formatHex(f.getSha256().toByteArray())));
    }
    try {
      services.loop().relays().holds(id(), sessionId, held);
    } catch (IllegalArgumentException e) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, e.getMessage());
      return;
    }
    log.info("relay {} holds {} input file{}", id(), held.size(), held.size() == 1 ? "" : "s");
    // the master's own copies are read now, so that a job over one has the relay send it from the start
    dev.gleaner.master.loop.FileInputSource.digestServedLater(services.config().serve(),
        held.stream().map(Relays.Held::size).collect(java.util.stream.Collectors.toSet()));
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (silenceCheck != null) {
      silenceCheck.cancel(false);
    }
    login.leave(services.tokenSessions());
    services.loop().relays().left(id(), sessionId);
    log.info("relay {} left ({})", id(), saidGoodbye ? "said goodbye" : "connection closed");
    ctx.fireChannelInactive();
  }
}
