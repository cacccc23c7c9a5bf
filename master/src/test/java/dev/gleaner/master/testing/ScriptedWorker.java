package dev.gleaner.master.testing;

import com.google.protobuf.ByteString;
import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Piece;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A worker written with the raw peer and the real workload code: computes what it is assigned,
 * one piece per checkpoint, and records the assignments it received. Its thread stops when the
 * connection closes or the test closes it.
 */
public final class ScriptedWorker implements AutoCloseable {
  public final RawPeer peer;
  public final List<Assign> assigned = Collections.synchronizedList(new ArrayList<>());
  private final Workloads workloads = Workloads.of();
  private final java.util.ArrayDeque<Assign> pending = new java.util.ArrayDeque<>();
  private final Thread thread;
  private volatile boolean stop;
  public volatile Throwable failure;

  /** What a test does once a chunk's input is all here, before the worker says so. */
  public interface BeforeArrival {
    void run(Assign a) throws Exception;
  }

  /** Run once each chunk's input has all come, before the worker's word of it; nothing by default. */
  public volatile BeforeArrival beforeArrival = a -> { };

  public ScriptedWorker(int port, byte[] secret, String id) throws IOException {
    this(RawPeer.worker(port, secret, id), id);
  }

  /** A worker logged in with {@code token} (a worker token for {@code id}). */
  public ScriptedWorker(int port, dev.gleaner.protocol.PeerCredential token, String id) throws IOException {
    this(RawPeer.worker(port, token, id), id);
  }

  private ScriptedWorker(RawPeer peer, String id) {
    this.peer = peer;
    thread = new Thread(this::loop, "scripted-" + id);
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    try {
      while (!stop) {
        if (!pending.isEmpty()) {
          compute(pending.poll());
          continue;
        }
        Envelope e = peer.readSkippingAcks(100);
        if (e != null && e.hasAssign()) {
          assigned.add(e.getAssign());
          pending.add(e.getAssign());
        }
      }
    } catch (IOException e) {
      if (!stop && !peer.socket.isClosed()) {
        failure = e;
      }
    } catch (Exception e) {
      failure = e;
    }
  }

  private void compute(Assign a) throws Exception {
    byte[] input = null;
    if (a.getDataBytes() > 0) {
      ByteArrayOutputStream data = new ByteArrayOutputStream();
      while (data.size() < a.getDataBytes()) {
        Envelope e = peer.readSkippingAcks(10_000);
        if (e != null && e.hasAssign()) {
          assigned.add(e.getAssign());
          pending.add(e.getAssign());
          continue;
        }
        if (e == null || !e.hasData()) {
          throw new IllegalStateException("expected data, got " + e);
        }
        e.getData().getPayload().writeTo(data);
      }
      input = data.toByteArray();
      beforeArrival.run(a);
      // as a worker does: the master's port counts the stream on the wire until it hears this
      peer.send(Envelope.newBuilder().setInputArrived(dev.gleaner.protocol.InputArrived.newBuilder()
          .setJobId(a.getJobId()).setChunkId(a.getChunkId()).setBytes(input.length).setNanos(1)).build());
    }
    Workload w = workloads.get(a.getWorkload());
    List<Long> bounds = new ArrayList<>(a.getCheckpointsList());
    bounds.add(a.getEnd());
    try (ChunkComputation c = w.open(a.getParamsMap(), a.getStart(), a.getEnd())) {
      long at = a.getStart();
      for (long b : bounds) {
        c.beginPiece(at, b);
        ByteBuffer slice = input == null ? null
            : ByteBuffer.wrap(input, (int) (at - a.getStart()), (int) (b - at)).slice();
        long t0 = System.nanoTime();
        c.compute(at, b, slice, ChunkComputation.Cancellation.NEVER);
        // as a worker does: the piece's computing time, which the master's speed estimate rests on
        long nanos = Math.max(1, System.nanoTime() - t0);
        peer.send(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(a.getJobId()).setChunkId(a.getChunkId())
            .setStart(at).setEnd(b).setResult(ByteString.copyFrom(c.take())).setFinal(b == a.getEnd())
            .setComputeNanos(nanos)).build());
        at = b;
      }
    }
  }

  @Override
  public void close() throws Exception {
    stop = true;
    peer.close();
    thread.join(5_000);
  }
}
