package dev.gleaner.master;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Cancel;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PieceAck;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes plans: hands chunks to workers with free capacity, accepts their pieces, commits them
 * durably before acknowledging, and gives a departed worker's unfinished units back to the queue.
 *
 * <p>How: one lock guards all job, chunk and session state. Every entry point decides under the
 * lock (which chunk goes where, what a piece means) and acts after releasing it (writes to
 * channels, store operations), so no I/O ever runs under the lock. A piece's units count only once
 * its commit returns; a piece already committed (a retransmission) counts nothing.
 */
final class ChunkDispatcher {
  private static final Logger log = LoggerFactory.getLogger(ChunkDispatcher.class);

  /** Why a message from a worker was refused; the connection answers with it and closes. */
  static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;
    final Error.Code code;

    Refusal(Error.Code code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }

  private final Object lock = new Object();
  private final Map<String, WorkerSession> workers = new LinkedHashMap<>();
  private final Map<String, WorkerSession> lastSessions = new LinkedHashMap<>();
  private final Map<String, Integer> interruptions = new LinkedHashMap<>();
  private final Map<String, JobRun> jobs = new LinkedHashMap<>();
  private final Store store;
  private final SendPort sendPort;
  private final MasterMetrics metrics;
  private final Ticker ticker;
  private final int window;

  ChunkDispatcher(Store store, SendPort sendPort, MasterMetrics metrics, Ticker ticker, int window) {
    this.store = store;
    this.sendPort = sendPort;
    this.metrics = metrics;
    this.ticker = ticker;
    this.window = window;
  }

  void addJob(JobRun job) {
    synchronized (lock) {
      jobs.put(job.id, job);
    }
    pump();
  }

  /** A worker authenticated. A previous session under the same id is ended first. */
  void join(WorkerSession session) {
    WorkerSession old;
    synchronized (lock) {
      old = workers.put(session.workerId, session);
      lastSessions.put(session.workerId, session);
    }
    if (old != null && old != session) {
      leave(old, "replaced by a new connection from " + session.host, true);
      old.channel.close();
    }
    store.submit(Store.interruptions(session.workerId)).thenAccept(past -> {
      synchronized (lock) {
        interruptions.merge(session.workerId, past, Math::max);
      }
    });
    store.submit(Store.workerSeen(session.workerId, session.host, session.cores, System.currentTimeMillis()));
    log.info("worker {} joined from {} with {} cores", session.workerId, session.host, session.cores);
    pump();
  }

  /** The worker asked to leave: it gets nothing new; what it is computing it still reports. */
  void drain(WorkerSession session) {
    synchronized (lock) {
      if (session.state == WorkerState.READY) {
        session.state = WorkerState.DRAINING;
      }
    }
    log.info("worker {} is draining", session.workerId);
  }

  /**
   * The session ended (closed, silent, replaced, drained). Its unfinished units go back to the
   * front of the shared pool, cut at the end of the last piece it sent.
   *
   * @param interrupted whether this counts in the worker's interruption history
   */
  void leave(WorkerSession session, String why, boolean interrupted) {
    long givenBack = 0;
    int chunks = 0;
    synchronized (lock) {
      if (session.state == WorkerState.GONE) {
        return;
      }
      boolean wasDraining = session.state == WorkerState.DRAINING;
      interrupted &= !wasDraining || !session.running.isEmpty();
      session.state = WorkerState.GONE;
      workers.remove(session.workerId, session);
      Map<JobRun, List<Chunk>> orphans = new java.util.LinkedHashMap<>();
      for (Chunk c : session.running) {
        if (c.received < c.end && c.state == ChunkState.RUNNING) {
          c.state = ChunkState.REROUTED;
          Chunk rest = c.job.newChunk(c.received, c.end, c.checkpointsAfter(c.received));
          rest.origin = c.origin != null ? c.origin : session.workerId;
          orphans.computeIfAbsent(c.job, j -> new ArrayList<>()).add(rest);
        }
      }
      for (JobRun job : jobs.values()) {
        List<Chunk> queued = job.takePlanned(session.workerId);
        if (!queued.isEmpty()) {
          orphans.computeIfAbsent(job, j -> new ArrayList<>()).addAll(queued);
        }
      }
      for (Map.Entry<JobRun, List<Chunk>> e : orphans.entrySet()) {
        for (Chunk c : e.getValue()) {
          givenBack += c.units();
          chunks++;
        }
        reroute(e.getKey(), session.workerId, e.getValue());
      }
      session.running.clear();
      if (interrupted) {
        interruptions.merge(session.workerId, 1, Integer::sum);
      }
    }
    if (interrupted) {
      metrics.workerFailures.increment();
      log.warn("worker {} is down: {}; {} units of {} chunks rerouted", session.workerId, why, givenBack, chunks);
    } else {
      log.info("worker {} left: {}; {} units rerouted", session.workerId, why, givenBack);
    }
    metrics.chunksRerouted.increment(chunks);
    store.submit(Store.workerEvent(session.workerId, System.currentTimeMillis(), interrupted ? "interrupted" : "left", why));
    pump();
  }

  /**
   * Sends a lost worker's unfinished chunks along the recovery lists: each goes to the end of the
   * queue of the first worker on its origin's list that is up (the origin is the worker of the plan
   * whose share it is, so work that already moved once keeps following its own list). Without a
   * live worker on the list, or for a worker outside the plan, it goes to the front of the shared
   * queue. Called under the lock.
   */
  private void reroute(JobRun job, String lost, List<Chunk> orphans) {
    Map<List<String>, long[]> moved = new java.util.LinkedHashMap<>();
    List<Chunk> toPool = new ArrayList<>();
    for (Chunk c : orphans) {
      String origin = c.origin == null ? lost : c.origin;
      String to = null;
      for (String candidate : job.recoveryList(origin)) {
        WorkerSession s = workers.get(candidate);
        if (s != null && s.state == WorkerState.READY) {
          to = candidate;
          break;
        }
      }
      if (to == null) {
        toPool.add(c);
      } else {
        c.origin = origin;
        job.planned.computeIfAbsent(to, k -> new java.util.ArrayDeque<>()).addLast(c);
      }
      long[] m = moved.computeIfAbsent(List.of(origin, to == null ? "" : to), k -> new long[2]);
      m[0] += c.units();
      m[1]++;
    }
    for (int i = toPool.size() - 1; i >= 0; i--) {
      job.pool.addFirst(toPool.get(i));
    }
    long now = System.currentTimeMillis();
    for (Map.Entry<List<String>, long[]> e : moved.entrySet()) {
      String to = e.getKey().get(1);
      job.reroutes.add(new JobRun.Reroute(lost, e.getKey().get(0), to, e.getValue()[0], (int) e.getValue()[1], now));
      log.info("job {}: {} units of {}'s work from lost worker {} go to {}", job.id, e.getValue()[0], e.getKey().get(0),
          lost, to.isEmpty() ? "the shared queue (no live worker on the recovery list)" : to);
    }
  }

  void speeds(WorkerSession session, Map<String, Double> speeds) {
    session.speeds.putAll(speeds);
  }

  /**
   * A piece arrived: checks it continues the chunk the worker holds, commits it, and acknowledges
   * it after the commit.
   *
   * @throws Refusal if the worker holds no such chunk or the piece does not follow the last one
   */
  void piece(WorkerSession session, Piece p) throws Refusal {
    Chunk c;
    boolean freed = false;
    synchronized (lock) {
      JobRun job = jobs.get(p.getJobId());
      c = job == null ? null : job.chunks.get(p.getChunkId());
      if (c == null || c.worker != session) {
        throw new Refusal(Error.Code.UNKNOWN_CHUNK, "piece for chunk " + p.getChunkId() + " of job '" + p.getJobId()
            + "', which was never assigned to worker " + session.workerId);
      }
      if (session.state == WorkerState.GONE || c.state == ChunkState.REROUTED) {
        return;
      }
      boolean duplicate = p.getEnd() <= c.received && p.getStart() >= c.start;
      if (!duplicate) {
        if (p.getStart() != c.received || p.getEnd() <= p.getStart() || p.getEnd() > c.end) {
          throw new Refusal(Error.Code.UNKNOWN_CHUNK, "piece [" + p.getStart() + ", " + p.getEnd() + ") of chunk "
              + c + " does not continue from unit " + c.received);
        }
        c.received = p.getEnd();
        if (c.received == c.end) {
          // every unit has arrived: the worker's slot is free now; durability only gates the ack
          c.state = ChunkState.DONE;
          session.running.remove(c);
          freed = true;
        }
      }
    }
    if (freed) {
      metrics.chunksCompleted.increment();
      pump();
    }
    long t0 = ticker.nanos();
    Chunk chunk = c;
    store.submit(Store.commitPiece(p.getJobId(), c.id, c.start, c.end, p.getStart(), p.getEnd(), session.workerId,
            p.getResult().toByteArray(), System.currentTimeMillis()))
        .whenComplete((isNew, err) -> {
          if (err != null) {
            log.error("cannot commit a piece of job {}: {}", chunk.job.id, err.getMessage(), err);
            fail(chunk.job, "the store failed: " + err.getMessage());
            return;
          }
          metrics.pieceCommit.record(ticker.nanos() - t0, TimeUnit.NANOSECONDS);
          committed(session, chunk, p, isNew);
        });
  }

  private void committed(WorkerSession session, Chunk c, Piece p, boolean isNew) {
    boolean jobDone = false;
    long units = p.getEnd() - p.getStart();
    JobRun job = c.job;
    synchronized (lock) {
      if (isNew) {
        job.committed += units;
        job.unitsByWorker.merge(session.workerId, units, Long::sum);
        session.unitsDone += units;
      }
      if (job.committed == job.units() && job.state == JobState.RUNNING && !job.finishing) {
        job.finishing = true;
        jobDone = true;
      }
    }
    if (isNew) {
      metrics.unitsCommitted.increment(units);
    } else {
      metrics.piecesDuplicate.increment();
    }
    if (session.channel.isActive()) {
      session.channel.writeAndFlush(Envelope.newBuilder().setPieceAck(PieceAck.newBuilder()
          .setJobId(p.getJobId()).setChunkId(p.getChunkId()).setEnd(p.getEnd())).build());
    }
    if (jobDone) {
      finish(job);
    }
  }

  /** The worker cannot compute this chunk: the job fails with its message. */
  void chunkFailed(WorkerSession session, String jobId, long chunkId, String message) throws Refusal {
    JobRun job;
    synchronized (lock) {
      job = jobs.get(jobId);
      Chunk c = job == null ? null : job.chunks.get(chunkId);
      if (c == null || c.worker != session) {
        throw new Refusal(Error.Code.UNKNOWN_CHUNK, "failure report for chunk " + chunkId + " of job '" + jobId
            + "', which was never assigned to worker " + session.workerId);
      }
      session.running.remove(c);
    }
    fail(job, "worker " + session.workerId + " could not compute a chunk: " + message);
  }

  private void fail(JobRun job, String message) {
    List<WorkerSession> holding = new ArrayList<>();
    synchronized (lock) {
      if (job.state == JobState.DONE || job.state == JobState.FAILED) {
        return;
      }
      job.state = JobState.FAILED;
      job.message = message;
      job.finishedAtMillis = System.currentTimeMillis();
      for (Chunk c : job.chunks.values()) {
        if (c.state == ChunkState.RUNNING && c.worker != null) {
          c.worker.running.remove(c);
          holding.add(c.worker);
        }
      }
      job.pool.clear();
      job.planned.clear();
    }
    log.error("job {} failed: {}", job.id, message);
    for (WorkerSession s : holding) {
      s.channel.writeAndFlush(Envelope.newBuilder().setCancel(Cancel.newBuilder().setJobId(job.id)).build());
    }
    store.submit(Store.updateJob(job.id, JobState.FAILED.name(), null, job.finishedAtMillis, null, message));
    pump();
  }

  /** Merges the committed pieces in unit order, checks they tile the job exactly, stores the result. */
  private void finish(JobRun job) {
    store.submit(Store.pieces(job.id)).whenComplete((pieces, err) -> {
      if (err != null) {
        fail(job, "cannot read the committed pieces: " + err.getMessage());
        return;
      }
      byte[] result = job.workload.empty();
      long at = job.start;
      for (Store.PieceRecord piece : pieces) {
        if (piece.start() != at) {
          fail(job, "committed pieces do not tile the job: expected a piece at unit " + at + ", found " + piece.start());
          return;
        }
        result = job.workload.merge(result, piece.result());
        at = piece.end();
      }
      if (at != job.end) {
        fail(job, "committed pieces stop at unit " + at + " instead of " + job.end);
        return;
      }
      String text = job.workload.render(result);
      long now = System.currentTimeMillis();
      store.submit(Store.updateJob(job.id, JobState.DONE.name(), null, now, result, null)).whenComplete((ok, stored) -> {
        if (stored != null) {
          fail(job, "cannot store the result: " + stored.getMessage());
          return;
        }
        synchronized (lock) {
          job.resultText = text;
          job.finishedAtMillis = now;
          job.state = JobState.DONE;
        }
        closeInput(job);
        log.info("job {} done in {} ms: {}", job.id, now - job.submittedAtMillis, text.lines().findFirst().orElse(""));
      });
    });
  }

  /** Every unit of a DONE job has arrived, so no stream still reads its input. */
  private static void closeInput(JobRun job) {
    if (job.input != null) {
      try {
        job.input.close();
      } catch (java.io.IOException e) {
        log.warn("closing the input of job {} failed: {}", job.id, e.getMessage(), e);
      }
    }
  }

  /** Hands out chunks to every worker with free capacity; plans jobs that have enough workers. */
  void pump() {
    List<Runnable> sends = new ArrayList<>();
    synchronized (lock) {
      for (JobRun job : jobs.values()) {
        if (job.state == JobState.QUEUED) {
          planIfPossible(job);
        }
      }
      for (WorkerSession s : workers.values()) {
        while (s.state == WorkerState.READY && s.running.size() < window) {
          Chunk c = nextFor(s);
          if (c == null) {
            break;
          }
          c.state = ChunkState.RUNNING;
          c.worker = s;
          s.running.add(c);
          sends.add(assign(s, c));
        }
      }
    }
    for (Runnable r : sends) {
      r.run();
    }
  }

  private Chunk nextFor(WorkerSession s) {
    for (JobRun job : jobs.values()) {
      if (job.state == JobState.RUNNING && s.workloads.contains(job.workload.name())) {
        Chunk c = job.next(s.workerId);
        if (c != null) {
          return c;
        }
      }
    }
    return null;
  }

  private void planIfPossible(JobRun job) {
    List<Worker> eligible = new ArrayList<>();
    for (WorkerSession s : workers.values()) {
      if (s.state == WorkerState.READY && s.workloads.contains(job.workload.name())) {
        eligible.add(Worker.ofSpeed(s.workerId, s.speed(job.workload.name())));
      }
    }
    if (eligible.size() < job.minWorkers()) {
      job.message = "waiting for " + job.minWorkers() + " worker(s) that accept workload '" + job.workload.name()
          + "' (" + eligible.size() + " connected)";
      return;
    }
    LongUnaryOperator align = job.input == null ? LongUnaryOperator.identity() : pos -> job.workload.align(pos, job.input);
    try {
      Platform platform = new Platform(eligible);
      String strategy = job.spec.getStrategy().isBlank() ? Strategies.DEFAULT : job.spec.getStrategy();
      for (long[] range : job.unplanned) {
        Plan plan = Strategies.byName(strategy).plan(new PlanRequest(range[0], range[1], platform,
            job.spec.getChunkUnits(), job.spec.getCheckpoints(), align));
        plan.requireCovers(range[0], range[1]);
        job.adopt(plan);
      }
      job.unplanned = List.of();
      List<String> members = new ArrayList<>();
      for (Worker w : eligible) {
        members.add(w.id());
      }
      job.adoptRecovery(members);
      job.state = JobState.RUNNING;
      job.message = "";
      log.info("job {} planned with strategy {} over {} workers: {} chunks", job.id, job.strategy, eligible.size(), job.chunks.size());
      store.submit(Store.updateJob(job.id, JobState.RUNNING.name(), job.strategy, null, null, null));
      if (job.committed == job.units()) {
        job.finishing = true;
        finish(job);
      }
    } catch (RuntimeException e) {
      job.state = JobState.FAILED;
      job.message = "cannot plan: " + e.getMessage();
      log.error("job {}: {}", job.id, job.message, e);
      store.submit(Store.updateJob(job.id, JobState.FAILED.name(), null, System.currentTimeMillis(), null, job.message));
    }
  }

  private Runnable assign(WorkerSession s, Chunk c) {
    JobRun job = c.job;
    boolean hasInput = job.input != null;
    Assign.Builder a = job.assignPrototype.toBuilder().setChunkId(c.id).setStart(c.start).setEnd(c.end)
        .setDataBytes(hasInput ? c.units() : 0);
    for (long cp : c.checkpoints) {
      a.addCheckpoints(cp);
    }
    Envelope e = Envelope.newBuilder().setAssign(a).build();
    return () -> {
      metrics.chunksAssigned.increment();
      s.channel.writeAndFlush(e);
      if (hasInput) {
        sendPort.enqueue(s, c, job.input, c.start, c.end);
      }
    };
  }

  // ---- views for status ----

  record JobView(String id, String name, String workload, String state, String strategy, String message, long units,
      long committed, double unitsPerSecond, String result, long submittedAt, long finishedAt, Map<String, Long> shares,
      String recoveryScheme, Map<String, List<String>> recovery, List<JobRun.Reroute> reroutes) {}

  record WorkerView(String id, String host, int cores, String state, double speed, long unitsDone, int interruptions,
      String currentChunk, long silentMillis) {}

  List<JobView> jobs() {
    synchronized (lock) {
      List<JobView> out = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (JobRun j : jobs.values()) {
        long end = j.finishedAtMillis > 0 ? j.finishedAtMillis : now;
        double seconds = Math.max(1e-3, (end - j.submittedAtMillis) / 1000.0);
        out.add(new JobView(j.id, j.spec.getName(), j.workload.name(), j.state.name(),
            j.strategy == null ? "" : j.strategy, j.message, j.units(), j.committed, j.committed / seconds,
            j.resultText, j.submittedAtMillis, j.finishedAtMillis, Map.copyOf(j.unitsByWorker),
            j.recoveryScheme == null ? "" : j.recoveryScheme.name(), recoveryLists(j), List.copyOf(j.reroutes)));
      }
      return out;
    }
  }

  private static Map<String, List<String>> recoveryLists(JobRun j) {
    Map<String, List<String>> out = new java.util.LinkedHashMap<>();
    for (String w : j.members) {
      out.put(w, j.recoveryList(w));
    }
    return out;
  }

  List<WorkerView> workers() {
    synchronized (lock) {
      List<WorkerView> out = new ArrayList<>();
      long now = ticker.nanos();
      for (WorkerSession s : lastSessions.values()) {
        String current = s.running.stream().map(Chunk::toString).findFirst().orElse("");
        double speed = s.speeds.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        out.add(new WorkerView(s.workerId, s.host, s.cores, s.state.name(), speed, s.unitsDone,
            interruptions.getOrDefault(s.workerId, 0), current,
            s.state == WorkerState.GONE ? 0 : TimeUnit.NANOSECONDS.toMillis(now - s.lastHeardNanos)));
      }
      return out;
    }
  }

  List<WorkerSession> liveSessions() {
    synchronized (lock) {
      return new ArrayList<>(workers.values());
    }
  }
}
