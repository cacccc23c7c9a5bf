package dev.gleaner.master.net;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.loop.FileInputSource;
import dev.gleaner.master.loop.Relays;
import dev.gleaner.master.loop.WorkerLink;
import dev.gleaner.master.net.port.SendPort;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Cancel;
import dev.gleaner.protocol.Drain;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Fill;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.PieceAck;
import dev.gleaner.protocol.Truncate;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connected worker: its identity, its channel, and the link the control loop acts through:
 * each verb is one frame (or a change to the chunk's input stream), built here.
 */
final class WorkerSession implements WorkerLink {
  private static final Logger log = LoggerFactory.getLogger(WorkerSession.class);

  final String workerId;
  final String host;
  final int cores;
  final long instance;
  final Channel channel;
  /** The relay its connection came through (nearest it); "" when it came directly. */
  final String via;
  /** The relay nearest the master on its way ("" when it came directly): its site. */
  private final String site;
  private final SendPort port;
  private final Ticker ticker;
  /** The relays logged in, and the input files each holds. */
  private final Relays relays;
  /**
   * For each job streamed to it, whether its relay sends that job's input ("relay") or the master does:
   * chosen at the job's first stream and kept, so that one job's chunks come one way (a worker takes
   * its chunks in order, and a chunk sent fast behind one sent slowly fills its buffers first; the worker
   * reads on while its current chunk starves, but holds less when each job comes one way). The last
   * {@value #JOBS_REMEMBERED} jobs are remembered: one past them is decided again.
   */
  private final java.util.Map<String, Boolean> fedByRelay = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, Boolean> eldest) {
          return size() > JOBS_REMEMBERED;
        }
      });
  static final int JOBS_REMEMBERED = 256;
  /** The chunks whose input its relay sends, by "job/chunk", until their input arrived. */
  private final java.util.Set<String> filled = java.util.concurrent.ConcurrentHashMap.newKeySet();
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

  WorkerSession(String workerId, String host, int cores, long instance, String via, String site, Channel channel,
      SendPort port, Ticker ticker, Relays relays) {
    this.relays = relays;
    this.workerId = workerId;
    this.via = via;
    this.site = site;
    this.host = host;
    this.cores = cores;
    this.instance = instance;
    this.channel = channel;
    this.port = port;
    this.ticker = ticker;
    this.lastHeardNanos = ticker.nanos();
  }

  @Override
  public String workerId() {
    return workerId;
  }

  @Override
  public String via() {
    return via;
  }

  @Override
  public String site() {
    return site;
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
  public void assign(Assign template, long chunkId, long start, long end, long[] checkpoints, long inputBytes,
      int leaseMs) {
    Assign.Builder b = template.toBuilder().setChunkId(chunkId).setStart(start).setEnd(end).setDataBytes(inputBytes)
        .setLeaseMs(leaseMs);
    for (long cp : checkpoints) {
      b.addCheckpoints(cp);
    }
    send(Envelope.newBuilder().setAssign(b).build());
  }

  @Override
  public boolean stream(String job, long chunkId, FileInputSource input, long from, long to, int rank,
      double linkRate, Streamed streamed) {
    String name = heldByRelay(input);
    // decided at the job's first stream to this worker: the relay, if it holds the input and nothing the
    // master sends the worker is under way (that would have to arrive first); else the master, throughout
    boolean relay = fedByRelay.computeIfAbsent(job, j -> name != null && port.idle(channel));
    if (relay && name != null) {
      // the relay in front of the worker holds the same file: it sends these bytes, not the master
      filled.add(job + "/" + chunkId);
      send(Envelope.newBuilder().setFill(Fill.newBuilder().setRelayId(via).setJobId(job).setChunkId(chunkId)
          .setName(name).setFrom(from).setTo(to)).build());
      return false;
    }
    port.enqueue(channel, job, chunkId, input, from, to, rank, linkRate, streamed::streamed);
    return true;
  }

  /**
   * Whether its relay sent the input of that chunk (the port measured nothing of it): once, when it
   * arrived.
   */
  boolean filledByRelay(String job, long chunkId) {
    return filled.remove(job + "/" + chunkId);
  }

  /**
   * The name under which the relay in front of this worker holds the input, or null: it must hold a
   * file of the same size and SHA-256 (the master's digest is computed once, on a thread of its own,
   * when a relay holds a file of that size; until then the master sends the input itself). The relay
   * reads the frames between its hops (each encrypted on its own under TLS), so it can answer.
   */
  private String heldByRelay(FileInputSource input) {
    if (via.isEmpty() || relays == null || !relays.holdsSize(via, input.size())) {
      return null;
    }
    String digest = input.sha256IfKnown();
    return digest == null ? null : relays.heldName(via, input.size(), digest);
  }

  @Override
  public void truncate(String job, long chunkId, long end) {
    send(Envelope.newBuilder().setTruncate(Truncate.newBuilder().setJobId(job).setChunkId(chunkId).setEnd(end))
        .build());
    port.truncate(job, chunkId, end);
  }

  @Override
  public void cancel(String job, long chunkId) {
    filled.remove(job + "/" + chunkId);
    send(Envelope.newBuilder().setCancel(Cancel.newBuilder().setJobId(job).setChunkId(chunkId)).build());
    port.cancel(job, chunkId);
  }

  @Override
  public void stopStream(String job, long chunkId) {
    port.cancel(job, chunkId);
  }

  @Override
  public void ack(String job, long chunkId, long end, boolean counted) {
    send(Envelope.newBuilder().setPieceAck(PieceAck.newBuilder().setJobId(job).setChunkId(chunkId).setEnd(end)
        .setCounted(counted)).build());
  }

  @Override
  public void askToLeave(String reason) {
    send(Envelope.newBuilder().setDrain(Drain.newBuilder().setReason(reason)).build());
  }

  private void send(Envelope message) {
    if (channel.isActive()) {
      channel.writeAndFlush(message, channel.voidPromise());
    }
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
