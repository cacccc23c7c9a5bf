package dev.gleaner.master.net;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.control.ControlLoop;
import dev.gleaner.master.control.FileInputSource;
import dev.gleaner.master.control.WorkerLink;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Messages;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One connected worker: its identity, its channel, and the link the control loop acts through. */
final class WorkerSession implements WorkerLink {
  private static final Logger log = LoggerFactory.getLogger(WorkerSession.class);

  final String workerId;
  final String host;
  final int cores;
  final long instance;
  final Channel channel;
  private final SendPort port;
  private final ControlLoop loop;
  private final Ticker ticker;
  /**
   * Why the master closed this session for a broken rule (a bad result, an unexpected message);
   * null while it has not. Such an end is the master's doing, not the computer going away, so it
   * is not counted as an interruption.
   */
  volatile String refusal;
  /** Written by the connection's event loop, read by the heartbeat sweep and status. */
  volatile long lastHeardNanos;
  /** What its last heartbeat said it computed so far. */
  volatile long unitsComputed;

  WorkerSession(String workerId, String host, int cores, long instance, Channel channel, SendPort port,
      ControlLoop loop, Ticker ticker) {
    this.workerId = workerId;
    this.host = host;
    this.cores = cores;
    this.instance = instance;
    this.channel = channel;
    this.port = port;
    this.loop = loop;
    this.ticker = ticker;
    this.lastHeardNanos = ticker.nanos();
  }

  @Override
  public String workerId() {
    return workerId;
  }

  @Override
  public String host() {
    return host;
  }

  @Override
  public int cores() {
    return cores;
  }

  @Override
  public long instance() {
    return instance;
  }

  @Override
  public long silentMillis() {
    return TimeUnit.NANOSECONDS.toMillis(ticker.nanos() - lastHeardNanos);
  }

  @Override
  public boolean isOpen() {
    return channel.isActive();
  }

  @Override
  public void send(Envelope message) {
    if (channel.isActive()) {
      channel.writeAndFlush(message, channel.voidPromise());
    }
  }

  @Override
  public void stream(String job, long copyId, FileInputSource input, long from, long to, int rank) {
    port.enqueue(channel, job, copyId, input, from, to, rank,
        (bytes, seconds) -> loop.streamed(this, job, copyId, bytes, seconds));
  }

  @Override
  public void truncateStream(String job, long copyId, long end) {
    port.truncate(job, copyId, end);
  }

  @Override
  public void cancelStream(String job, long copyId) {
    port.cancel(job, copyId);
  }

  @Override
  public void refuse(Error.Code code, String message) {
    if (code != Error.Code.LEASE_EXPIRED) {
      // a worker that stopped reporting (hung, or its computer too busy) is interrupted: its end counts
      refusal = message;
    }
    log.warn("closing the connection of worker {} from {}: {}", workerId, host, message);
    if (channel.isActive()) {
      channel.writeAndFlush(Messages.error(code, message)).addListener(ChannelFutureListener.CLOSE);
      // the error may sit behind input the worker is not reading: the session ends regardless
      channel.eventLoop().schedule((Runnable) channel::close, 5, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return workerId + "@" + host;
  }

  @Override
  public long unitsComputed() {
    return unitsComputed;
  }
}
