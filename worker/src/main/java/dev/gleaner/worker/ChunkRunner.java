package dev.gleaner.worker;

import com.google.protobuf.ByteString;
import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Piece;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes assigned chunks one after another, in the order they were assigned, and reports a
 * piece at every checkpoint and at the chunk's end.
 *
 * <p>How: a splittable workload (an index range) is computed in steps of about a quarter of a
 * second, each step cut across the cores and merged in unit order; between steps the runner
 * notices cancellation, draining and its owner (a vacate stops like a drain; a suspension waits
 * there), so a drain or a vacate reports everything computed so far as one last piece. A workload
 * with input consumes the chunk's bytes in the order they arrive, cut at the checkpoints, and stops
 * at a checkpoint when draining or vacating (a cut elsewhere could split a line); an exec piece
 * runs its program to the end, or is killed when the owner's grace runs out.
 */
final class ChunkRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ChunkRunner.class);
  /** Below this many units per core a step is not worth splitting across threads. */
  static final long MIN_UNITS_PER_THREAD = 1 << 16;

  /** Where the runner's reports go (the current connection to the master). */
  interface Reporter {
    void piece(Piece piece);

    void failed(String jobId, long chunkId, String message);

    /** The chunk's task is over (complete, failed, cancelled or stopped by a drain). */
    default void ended(String jobId, long chunkId) {}
  }

  private final Workloads workloads;
  private final int cores;
  private final double slowdown;
  private final double maxSpeed;
  private final Map<String, Double> speeds;
  /** The largest result of one piece the master accepts (its Welcome says); a larger one fails its chunk. */
  private volatile long maxResultBytes;
  private final ExecutorService sequencer;
  private final ExecutorService pool;
  private final Map<String, ChunkTask> tasks = new ConcurrentHashMap<>();
  private final AtomicInteger pending = new AtomicInteger();
  private volatile boolean draining;
  /** Vacated for the owner: the current chunk reports what it has and stops; no chunk runs until {@link #resume}. */
  private volatile boolean away;
  /** Suspended for the owner: computing waits between steps until {@link #resume} or {@link #vacate}. */
  private volatile boolean suspended;
  private final Object gate = new Object();
  /** Units computed, counted as each step ends (see {@link WorkerCounters#unitsComputed}). */
  private volatile java.util.concurrent.atomic.LongAdder computed = new java.util.concurrent.atomic.LongAdder();

  ChunkRunner(Workloads workloads, int cores, double slowdown, double maxSpeed, Map<String, Double> speeds) {
    this(workloads, cores, slowdown, maxSpeed, speeds, DEFAULT_MAX_RESULT_BYTES);
  }

  /** The result limit until a master's Welcome names its own: 256 MiB. */
  static final long DEFAULT_MAX_RESULT_BYTES = 256L * 1024 * 1024;

  /** @param maxResultBytes the largest result of one piece: a larger one fails its chunk, it is not sent */
  ChunkRunner(Workloads workloads, int cores, double slowdown, double maxSpeed, Map<String, Double> speeds,
      long maxResultBytes) {
    this.maxResultBytes = maxResultBytes;
    this.workloads = workloads;
    this.cores = cores;
    this.slowdown = slowdown;
    this.maxSpeed = maxSpeed;
    this.speeds = speeds;
    this.sequencer = Executors.newSingleThreadExecutor(r -> daemon(r, "gleaner-chunks"));
    AtomicInteger n = new AtomicInteger();
    this.pool = Executors.newFixedThreadPool(cores, r -> daemon(r, "gleaner-compute-" + n.incrementAndGet()));
  }

  /** Counts the units it computes into {@code into}. */
  void countComputed(java.util.concurrent.atomic.LongAdder into) {
    computed = into;
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  void assign(Assign assign, InputFlow flow, Reporter reporter) {
    ChunkTask task = new ChunkTask(assign, flow);
    tasks.put(task.key(), task);
    pending.incrementAndGet();
    sequencer.execute(() -> {
      try {
        run(task, reporter);
      } finally {
        tasks.remove(task.key());
        task.close();
        pending.decrementAndGet();
        reporter.ended(assign.getJobId(), assign.getChunkId());
      }
    });
  }

  /**
   * Input for a chunk whose first bytes arrived at {@code arrivingSince}; takes over one reference to
   * {@code payload}. Returns the chunk's input bytes and the nanoseconds from its first byte to its
   * last when this completes it (once per chunk), else null.
   */
  long[] data(String jobId, long chunkId, ByteBuf payload, long arrivingSince) {
    ChunkTask task = tasks.get(ChunkTask.key(jobId, chunkId));
    if (task != null) {
      return task.offer(payload, arrivingSince);
    }
    payload.release();
    log.debug("input for chunk {} of job {}, which is not here (cancelled?)", chunkId, jobId);
    return null;
  }

  /**
   * The chunk's tail went to another worker: it stops at {@code end}, or at its next step if already
   * past. Returns the input's arrival, as {@link #data} does, when what arrived now covers the chunk.
   */
  long[] truncate(String jobId, long chunkId, long end) {
    ChunkTask task = tasks.get(ChunkTask.key(jobId, chunkId));
    return task == null ? null : task.truncate(end);
  }

  /** Cancels one chunk, or every chunk of the job when {@code chunkId} is 0. */
  void cancel(String jobId, long chunkId) {
    for (ChunkTask t : tasks.values()) {
      if (t.assign.getJobId().equals(jobId) && (chunkId == 0 || t.assign.getChunkId() == chunkId)) {
        t.cancel();
      }
    }
  }

  /** The master's limit on one piece's result, from its Welcome. */
  void maxResultBytes(long bytes) {
    if (bytes > 0) {
      maxResultBytes = bytes;
    }
  }

  /** Whether the chunk is here and still waits for input that has not all arrived. */
  boolean awaitsInput(String key) {
    ChunkTask t = tasks.get(key);
    return t != null && t.awaitsInput();
  }

  /** Every chunk stops (an injected crash, too many pieces waiting for an absent master). */
  void cancelAll() {
    for (ChunkTask t : tasks.values()) {
      t.cancel();
    }
  }

  /** Stop after reporting what the current chunk has computed; queued chunks are not started. */
  void drain() {
    draining = true;
  }

  /**
   * The owner is back: the running chunk reports what it computed up to its current step (an input
   * workload: up to its current checkpoint) and stops; chunks queued or assigned later do not run
   * until {@link #resume}.
   */
  void vacate() {
    synchronized (gate) {
      away = true;
      suspended = false;
      gate.notifyAll();
    }
  }

  /** A short visit of the owner: computing pauses between steps, keeping every chunk. */
  void suspend() {
    synchronized (gate) {
      suspended = true;
    }
  }

  /** The owner left: chunks run again. */
  void resume() {
    synchronized (gate) {
      away = false;
      suspended = false;
      gate.notifyAll();
    }
  }

  /** Whether chunks stop where they are (a drain, or a vacate for the owner). */
  private boolean stopping() {
    return draining || away;
  }

  /** Waits while suspended; a cancel, a vacate or a resume ends the wait. */
  private void pauseWhileSuspended(ChunkTask task) throws InterruptedException {
    synchronized (gate) {
      while (suspended && !away && !task.cancelled()) {
        // woken by resume() or vacate(); a cancel is noticed within a second
        gate.wait(1000);
      }
    }
  }

  /** Chunks assigned and not yet finished or abandoned. */
  int pending() {
    return pending.get();
  }

  private void run(ChunkTask task, Reporter reporter) {
    Assign a = task.assign;
    if (task.cancelled() || stopping()) {
      return;
    }
    try {
      Workload w = workloads.get(a.getWorkload());
      if (w.splittable() && !task.hasInput()) {
        runSplittable(task, w, reporter);
      } else {
        runInOrder(task, w, reporter);
      }
    } catch (CancellationException e) {
      log.debug("chunk {} stopped: {}", task.key(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof CancellationException) {
        return;
      }
      if (cause instanceof ProgramFailure) {
        // the user's program, not the worker: one line an admin does not read as a bug
        log.warn("chunk {} failed: {}", task.key(), cause.getMessage());
      } else {
        log.error("chunk {} failed: {}", task.key(), cause.toString(), cause);
      }
      reporter.failed(a.getJobId(), a.getChunkId(), String.valueOf(cause.getMessage()));
    }
  }

  /** The end of the piece that starts at {@code pos < end}: the next checkpoint, or {@code end}. */
  private static long nextBound(ChunkTask task, long pos, long end) {
    for (long cp : task.assign.getCheckpointsList()) {
      if (cp > pos && cp < end) {
        return cp;
      }
    }
    return end;
  }

  private void runSplittable(ChunkTask task, Workload w, Reporter reporter) throws Exception {
    Assign a = task.assign;
    double speed = speeds.getOrDefault(w.name(), 0.0);
    long step = speed > 0 ? Math.max(1, (long) (speed * slowdown * 0.25)) : Long.MAX_VALUE;
    long pos = a.getStart();
    // the end is read once per piece: a truncation may move it at any time
    for (long end = task.end(); pos < end; end = task.end()) {
      long pieceStart = pos;
      long bound = nextBound(task, pos, end);
      byte[] acc = w.empty();
      long nanos = 0;
      while (pos < Math.min(bound, task.end())) {
        pauseWhileSuspended(task);
        if (stopping()) {
          // vacated while suspended: what this piece has so far is its last
          if (pos > pieceStart) {
            report(reporter, a, pieceStart, pos, acc, false, nanos);
          }
          return;
        }
        long stop = Math.min(bound, task.end());
        if (stop <= pos) {
          // truncated behind us meanwhile (a cancel while suspended): what this piece has is its last
          break;
        }
        long to = stop - pos <= step ? stop : pos + step;
        long t0 = System.nanoTime();
        acc = w.merge(acc, computeParallel(w, a.getParamsMap(), pos, to, task));
        throttle(System.nanoTime() - t0, to - pos);
        nanos += System.nanoTime() - t0;
        computed.add(to - pos);
        pos = to;
        if (task.cancelled()) {
          return;
        }
        if (stopping() && pos < stop) {
          report(reporter, a, pieceStart, pos, acc, false, nanos);
          return;
        }
      }
      if (pos <= pieceStart) {
        return;
      }
      report(reporter, a, pieceStart, pos, acc, pos >= task.end(), nanos);
      if (stopping() && pos < task.end()) {
        return;
      }
    }
  }

  /** The workload's computation of {@code [from, to)}, told the master's result limit. */
  private ChunkComputation open(Workload w, Map<String, String> params, long from, long to) {
    ChunkComputation c = w.open(params, from, to);
    c.limitResult(maxResultBytes);
    return c;
  }

  private byte[] computeParallel(Workload w, Map<String, String> params, long from, long to, ChunkTask task)
      throws Exception {
    ChunkComputation.Cancellation cancel = task::cancelled;
    int parts = (int) Math.max(1, Math.min(cores, (to - from) / MIN_UNITS_PER_THREAD));
    if (parts == 1) {
      try (ChunkComputation c = open(w, params, from, to)) {
        c.compute(from, to, null, cancel);
        return c.take();
      }
    }
    List<Future<byte[]>> futures = new ArrayList<>(parts);
    long size = (to - from) / parts;
    for (int i = 0; i < parts; i++) {
      long lo = from + i * size;
      long hi = i == parts - 1 ? to : lo + size;
      futures.add(pool.submit(() -> {
        try (ChunkComputation c = open(w, params, lo, hi)) {
          c.compute(lo, hi, null, cancel);
          return c.take();
        }
      }));
    }
    byte[] acc = w.empty();
    for (Future<byte[]> f : futures) {
      acc = w.merge(acc, f.get());
    }
    return acc;
  }

  /**
   * A workload that consumes its input in order (or cannot be split across threads): one piece per
   * checkpoint, each up to where the chunk ends now; the time waiting for input is not compute time.
   */
  private void runInOrder(ChunkTask task, Workload w, Reporter reporter) throws Exception {
    Assign a = task.assign;
    ChunkComputation.Cancellation cancel = task::cancelled;
    try (ChunkComputation c = open(w, a.getParamsMap(), a.getStart(), a.getEnd())) {
      long pos = a.getStart();
      for (long end = task.end(); pos < end; end = task.end()) {
        pauseWhileSuspended(task);
        if (stopping()) {
          return;
        }
        long pieceStart = pos;
        long bound = nextBound(task, pos, end);
        long nanos = 0;
        c.beginPiece(pos, bound);
        if (task.hasInput()) {
          // a truncation may move the end before the bound: the input past it is not coming
          for (long stop = Math.min(bound, task.end()); pos < stop; stop = Math.min(bound, task.end())) {
            pauseWhileSuspended(task);
            ByteBuffer slice = task.next(pos, stop - pos);
            if (slice == null) {
              break;
            }
            int n = slice.remaining();
            long t0 = System.nanoTime();
            c.compute(pos, pos + n, slice, cancel);
            nanos += System.nanoTime() - t0;
            computed.add(n);
            pos += n;
          }
        } else {
          long t0 = System.nanoTime();
          c.compute(pos, bound, null, cancel);
          nanos += System.nanoTime() - t0;
          computed.add(bound - pos);
          pos = bound;
        }
        long t0 = System.nanoTime();
        byte[] result = c.take();
        nanos += System.nanoTime() - t0;
        nanos = throttle(nanos, pos - pieceStart);
        if (task.cancelled()) {
          return;
        }
        if (pos <= pieceStart) {
          // truncated before this piece had a unit
          return;
        }
        report(reporter, a, pieceStart, pos, result, pos >= task.end(), nanos);
        if (stopping() && pos < task.end()) {
          return;
        }
      }
    }
  }

  /**
   * Emulates a slower computer: waits until the work has taken slowdown times as long as it did,
   * and at least {@code units / maxSpeed}; returns the time it took in all, nanoseconds.
   */
  private long throttle(long workedNanos, long units) throws InterruptedException {
    long target = (long) (workedNanos * slowdown);
    if (maxSpeed > 0) {
      target = Math.max(target, (long) (units / maxSpeed * 1e9));
    }
    if (target > workedNanos) {
      TimeUnit.NANOSECONDS.sleep(target - workedNanos);
    }
    return Math.max(target, workedNanos);
  }

  private void report(Reporter reporter, Assign a, long from, long to, byte[] result, boolean last,
      long computeNanos) {
    Piece.Builder p = Piece.newBuilder().setJobId(a.getJobId()).setChunkId(a.getChunkId()).setStart(from).setEnd(to)
        .setResult(ByteString.copyFrom(result)).setFinal(last).setComputeNanos(Math.max(0, computeNanos));
    if (result.length > maxResultBytes) {
      throw new IllegalStateException("the result of units [" + from + ", " + to + ") is " + result.length
          + " bytes, over the master's limit of " + maxResultBytes + " bytes for one piece (gleaner master"
          + " --max-result-mib); give the job smaller chunks or more checkpoints");
    }
    reporter.piece(p.build());
  }

  @Override
  public void close() {
    cancelAll();
    sequencer.shutdownNow();
    pool.shutdownNow();
  }
}
