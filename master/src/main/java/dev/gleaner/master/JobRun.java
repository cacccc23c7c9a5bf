package dev.gleaner.master;

import dev.gleaner.common.plan.Assignment;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.protocol.JobSpec;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job while the master runs it: its chunks, the queues they wait in, and its progress. Guarded by
 * the dispatcher's lock.
 */
final class JobRun {
  final String id;
  final JobSpec spec;
  final Workload workload;
  /** The input streamed to workers, or null. */
  final FileInputSource input;
  final long start;
  final long end;
  final long submittedAtMillis;
  final long startedAtNanos;
  /** What every assignment of this job shares (job id, workload, parameters). */
  final dev.gleaner.protocol.Assign assignPrototype;
  JobState state = JobState.QUEUED;
  String strategy;
  String message = "";

  /** Remaining work not yet committed, to be planned when the job starts (more than one range after a restart). */
  List<long[]> unplanned;
  final Map<Long, Chunk> chunks = new HashMap<>();
  final Map<String, Deque<Chunk>> planned = new HashMap<>();
  final Deque<Chunk> pool = new ArrayDeque<>();
  final Map<String, Long> unitsByWorker = new HashMap<>();
  /** The plan's workers in recovery-scheme order (computer i of the scheme is members.get(i)). */
  List<String> members = List.of();
  dev.gleaner.common.recovery.RecoveryScheme recoveryScheme;
  final List<Reroute> reroutes = new java.util.ArrayList<>();

  /** Where some of a lost worker's unfinished work went. */
  record Reroute(String from, String origin, String to, long units, int chunks, long atMillis) {}
  long nextChunkId;
  /** Units in committed pieces. */
  long committed;
  long finishedAtMillis;
  /** Every unit is committed and the merge is under way; the state turns DONE once it is stored. */
  boolean finishing;
  /** The merged result as people read it, once DONE. */
  String resultText = "";

  JobRun(String id, JobSpec spec, Workload workload, FileInputSource input, long start, long end,
      long submittedAtMillis, long startedAtNanos, List<long[]> unplanned, long nextChunkId) {
    this.id = id;
    this.spec = spec;
    this.workload = workload;
    this.input = input;
    this.start = start;
    this.end = end;
    this.submittedAtMillis = submittedAtMillis;
    this.startedAtNanos = startedAtNanos;
    this.unplanned = unplanned;
    this.nextChunkId = nextChunkId;
    this.assignPrototype = dev.gleaner.protocol.Assign.newBuilder().setJobId(id).setWorkload(workload.name())
        .putAllParams(spec.getParamsMap()).build();
  }

  long units() {
    return end - start;
  }

  Chunk newChunk(long from, long to, long[] checkpoints) {
    Chunk c = new Chunk(this, ++nextChunkId, from, to, checkpoints);
    chunks.put(c.id, c);
    return c;
  }

  /** Turns a plan into queued chunks: assignments into per-worker queues, the rest into the pool. */
  void adopt(Plan plan) {
    strategy = plan.strategy();
    for (Assignment a : plan.order()) {
      Deque<Chunk> q = planned.computeIfAbsent(a.workerId(), k -> new ArrayDeque<>());
      for (ChunkPlan cp : a.chunks()) {
        Chunk c = newChunk(cp.start(), cp.end(), cp.checkpoints());
        c.origin = a.workerId();
        q.add(c);
      }
    }
    for (ChunkPlan cp : plan.pool()) {
      pool.add(newChunk(cp.start(), cp.end(), cp.checkpoints()));
    }
  }

  /** The next chunk for this worker: its own planned queue first, then the shared pool. */
  Chunk next(String workerId) {
    Deque<Chunk> own = planned.get(workerId);
    if (own != null && !own.isEmpty()) {
      return own.poll();
    }
    return pool.poll();
  }

  /** Gives the plan's workers their places in the recovery scheme for their number. */
  void adoptRecovery(List<String> workerIds) {
    members = List.copyOf(workerIds);
    recoveryScheme = members.size() < 2 ? null : dev.gleaner.common.recovery.RecoveryPlans.forWorkers(members.size());
  }

  /** The recovery list of a worker of the plan, as worker ids; empty if it is not one. */
  List<String> recoveryList(String workerId) {
    int i = members.indexOf(workerId);
    if (i < 0 || recoveryScheme == null) {
      return List.of();
    }
    List<String> out = new java.util.ArrayList<>();
    for (int c : recoveryScheme.list(i)) {
      out.add(members.get(c));
    }
    return out;
  }

  /** Takes the departed worker's planned, unsent chunks out of its queue. */
  List<Chunk> takePlanned(String workerId) {
    Deque<Chunk> own = planned.remove(workerId);
    return own == null ? List.of() : new java.util.ArrayList<>(own);
  }

  int minWorkers() {
    return Math.max(1, spec.getMinWorkers());
  }
}
