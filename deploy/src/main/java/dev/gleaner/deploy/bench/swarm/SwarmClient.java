package dev.gleaner.deploy.bench.swarm;

import dev.gleaner.protocol.Credential;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.StatusRequest;
import dev.gleaner.protocol.Submit;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A client connection of the swarm bench, on the swarm's event loops: logs in with the shared
 * secret, submits the job and asks for status, one request at a time, as {@code gleaner submit} and
 * {@code gleaner status} do. Each request's future completes with the master's answer or fails with
 * its Error or the connection's loss.
 */
final class SwarmClient {
  private final ArrayDeque<CompletableFuture<Envelope>> pending = new ArrayDeque<>();
  private final CompletableFuture<SwarmClient> welcomed = new CompletableFuture<>();
  private final byte[] secret;
  private final String name;
  private Channel channel;

  private SwarmClient(byte[] secret, String name) {
    this.secret = secret;
    this.name = name;
  }

  /** Connects from {@code from} and logs in; completes once welcomed. */
  static CompletableFuture<SwarmClient> connect(SwarmFleet swarm, InetAddress from, String name) {
    SwarmClient c = new SwarmClient(swarm.secret(), name);
    swarm.bootstrap(from).handler(SwarmFleet.pipeline(c.new Handler())).connect(swarm.master()).addListener(f -> {
      if (!f.isSuccess()) {
        c.welcomed.completeExceptionally(new IOException("cannot reach the master: " + f.cause(), f.cause()));
      }
    });
    return c.welcomed;
  }

  CompletableFuture<String> submit(JobSpec spec) {
    return request(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(spec)).build())
        .thenApply(e -> expect(e, Envelope.BodyCase.SUBMIT_REPLY).getSubmitReply().getJobId());
  }

  CompletableFuture<StatusReply> status(String jobId) {
    return request(Envelope.newBuilder().setStatusRequest(StatusRequest.newBuilder().setJobId(jobId)).build())
        .thenApply(e -> expect(e, Envelope.BodyCase.STATUS_REPLY).getStatusReply());
  }

  private static Envelope expect(Envelope e, Envelope.BodyCase body) {
    if (e.hasError()) {
      throw new IllegalStateException("the master refused: " + e.getError().getCode() + ": " + e.getError().getMessage());
    }
    if (e.getBodyCase() != body) {
      throw new IllegalStateException("the master answered " + e.getBodyCase() + " where " + body + " was expected");
    }
    return e;
  }

  private CompletableFuture<Envelope> request(Envelope e) {
    CompletableFuture<Envelope> f = new CompletableFuture<>();
    channel.eventLoop().execute(() -> {
      if (!channel.isActive()) {
        f.completeExceptionally(new IOException("the connection to the master is closed"));
        return;
      }
      pending.add(f);
      channel.writeAndFlush(e);
    });
    return f;
  }

  void close() {
    if (channel != null) {
      channel.close();
    }
  }

  private final class Handler extends SimpleChannelInboundHandler<Envelope> {
    private boolean loggedIn;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      channel = ctx.channel();
      ctx.writeAndFlush(Envelope.newBuilder().setHello(Messages.hello(Role.CLIENT, name, "", 0, List.of()).getHello()
          .toBuilder().setCredential(Credential.SHARED_SECRET)).build());
      ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
      if (!loggedIn) {
        if (msg.hasChallenge()) {
          ctx.writeAndFlush(Messages.answer(msg.getChallenge(), PeerCredential.sharedSecret(secret), Role.CLIENT,
              name));
        } else if (msg.hasWelcome()) {
          loggedIn = true;
          welcomed.complete(SwarmClient.this);
        } else {
          welcomed.completeExceptionally(new IOException("the master refused the client: " + msg));
          ctx.close();
        }
        return;
      }
      CompletableFuture<Envelope> f = pending.poll();
      if (f != null) {
        f.complete(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      IOException closed = new IOException("the master closed the client connection");
      welcomed.completeExceptionally(closed);
      for (CompletableFuture<Envelope> f; (f = pending.poll()) != null; ) {
        f.completeExceptionally(closed);
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
