package dev.gleaner.master.loop;

import dev.gleaner.common.control.Held;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.JobView;
import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.store.JobTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is asked of a job at the loop: take it up (submitted, resumed after a restart, or ended
 * before this master started), cancel it, forget it, read its result, ask a worker to leave. A
 * client may change or read only its own jobs, as the one owner check says
 * ({@link Caller#refusal}). Confined to the control thread, but for {@link #result}.
 */
final class JobCalls {
  // one logger for the whole loop: what an operator reads and filters is the control loop's
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  /**
   * Seconds a restarted master keeps the chunks its store says were handed out for their workers to
   * claim (workers reconnect within seconds; the backoff is capped at 30 s).
   */
  static final double REJOIN_GRACE_SECONDS = 60;

  private final Books b;
  private final ControlThread thread;
  private final JobEnds ends;
  private final List<LoopListener> listeners;

  JobCalls(Books b, ControlThread thread, JobEnds ends, List<LoopListener> listeners) {
    this.b = b;
    this.thread = thread;
    this.ends = ends;
    this.listeners = listeners;
  }

  /**
   * Gives a job to the controller (its plan's first chunk records join the pass that stores the
   * job's row), with the chunks handed out before a restart that still stand and its memories (its
   * plan's recovery lists and its checks; null for none). A job that has ended is kept for status.
   */
  void add(MasterJob job, JobDef def, List<Held> handedOut, String planMemory, String checksMemory) {
    b.jobs.put(job.id, job);
    if (job.ended != null) {
      return;
    }
    b.workloadOf.put(job.id, job.workload);
    listeners.forEach(l -> l.jobAdded(job));
    try {
      b.controller.addJob(def, handedOut, REJOIN_GRACE_SECONDS, planMemory, checksMemory, b.clock.now());
    } catch (IllegalArgumentException e) {
      // a memory that does not parse: the job was not added
      log.error("job {}: its stored plan and checks cannot be read ({}); it is planned afresh", job.id,
          e.getMessage(), e);
      b.controller.addJob(def, handedOut, REJOIN_GRACE_SECONDS, null, null, b.clock.now());
    }
  }

  /** A submitted job's row could not be stored: the job fails here and is forgotten, since no restart will know it. */
  void notStored(MasterJob job, Throwable cause) {
    log.error("job {}: cannot store it; it fails: {}", job.id, cause.getMessage(), cause);
    b.metrics.storeFailures.increment();
    b.controller.fail(job.id, "the master could not store the job: " + cause.getMessage(), b.clock.now());
    b.jobs.remove(job.id);
    b.controller.forget(job.id);
    ends.release(job);
  }

  /**
   * Ends a running job, keeping what is saved and, within {@code graceMs}, what its workers
   * computed since their last pieces. The cancel is stored first: a master restarted before the job
   * has ended ends it at once.
   */
  void cancel(String jobId, String reason, long graceMs, Caller caller, CompletableFuture<JobOutcome> out) {
    MasterJob job = b.jobs.get(jobId);
    JobOutcome refused = refused(job, jobId, "cancel", caller);
    if (refused != null) {
      out.complete(refused);
      return;
    }
    if (job.ended != null || !b.controller.cancel(jobId, reason, graceMs / 1000.0, b.clock.now())) {
      out.complete(JobOutcome.refused("job " + jobId + " has already ended"
          + (job.ended == null ? "" : " (" + job.ended + ")")));
      return;
    }
    log.info("job {} is cancelled: {}{}", jobId, reason, graceMs > 0
        ? " (its workers have up to " + graceMs + " ms to report what they computed since their last pieces)" : "");
    JobView v = b.controller.views().job(jobId);
    JobOutcome outcome = new JobOutcome(v.phase().name(), v.message(), false);
    // the reply waits for the stored cancel: a master restarted after it does not run the job again
    b.store.submit(JobTable.cancelRequested(jobId, reason)).whenComplete((ok, err) -> {
      if (err != null) {
        log.error("job {}: cannot store its cancel; it ends all the same, but a restart before its end would run it"
            + " again: {}", jobId, err.toString(), err);
      }
      out.complete(outcome);
    });
  }

  /** Drops an ended job and everything stored of it. */
  void forget(String jobId, Caller caller, CompletableFuture<JobOutcome> out) {
    MasterJob job = b.jobs.get(jobId);
    JobOutcome refused = refused(job, jobId, "forget", caller);
    if (refused != null) {
      out.complete(refused);
      return;
    }
    if (job.ended == null) {
      out.complete(JobOutcome.refused("job " + jobId + " has not ended; `gleaner cancel " + jobId + "` first"));
      return;
    }
    b.store.submit(JobTable.forgetJob(jobId)).whenComplete((rows, err) -> thread.then(() -> {
      if (err != null) {
        log.error("job {}: cannot forget it: {}", jobId, err.toString(), err);
        out.complete(JobOutcome.refused("the master could not drop job " + jobId + ": " + err.getMessage()));
        return;
      }
      b.jobs.remove(jobId);
      b.controller.forget(jobId);
      log.info("job {} is forgotten ({} stored rows dropped)", jobId, rows);
      out.complete(new JobOutcome("FORGOTTEN", rows + " stored rows dropped", false));
    }));
  }

  /**
   * The job whose whole result {@code caller} may read; throws with a sentence when the job is
   * unknown, another client's, still running, or failed.
   */
  MasterJob readable(String jobId, Caller caller) {
    MasterJob j = b.jobs.get(jobId);
    if (j == null) {
      throw new JobOutcome.UnknownJob("the master knows no job '" + jobId + "'");
    }
    String refusal = caller.refusal("read the result of", jobId, j.spec.getOwner());
    if (refusal != null) {
      throw new Caller.NotAllowed(refusal);
    }
    if (j.ended == null) {
      throw new IllegalArgumentException("job " + jobId + " has not ended yet: `gleaner wait " + jobId
          + "` follows it to its end, `gleaner status --job " + jobId + "` shows it now");
    }
    if (j.ended == JobPhase.FAILED) {
      throw new IllegalArgumentException("job " + jobId + " failed: " + j.message);
    }
    return j;
  }

  /**
   * The whole rendered result of a readable job: kept, or rendered again from the store off the
   * loop's thread. Safe from any thread: it reads what the loop set before the job ended, which no
   * longer changes.
   */
  CompletableFuture<byte[]> result(MasterJob j) {
    if (j.resultWhole) {
      return CompletableFuture.completedFuture(j.resultHead.getBytes(StandardCharsets.UTF_8));
    }
    return b.store.read(JobTable.jobResult(j.id)).thenApplyAsync(merged -> {
      if (merged == null) {
        throw new IllegalStateException("the store holds no result of job " + j.id);
      }
      return j.workload.render(merged).getBytes(StandardCharsets.UTF_8);
    }, ForkJoinPool.commonPool());
  }

  /** Asks a connected worker to leave; false when no such worker is connected. */
  boolean askToLeave(String workerId, String reason) {
    WorkerLink link = b.links.get(workerId);
    if (link == null || !link.isOpen()) {
      return false;
    }
    link.askToLeave(reason);
    log.info("worker {} is asked to leave: {}", workerId, reason);
    return true;
  }

  /** Ids of the workers with a session. */
  List<String> liveWorkers() {
    return new ArrayList<>(b.links.keySet());
  }

  /** The one owner check of a change to a job: null if {@code caller} may {@code verb} it, else the refusal. */
  private static JobOutcome refused(MasterJob job, String jobId, String verb, Caller caller) {
    if (job == null) {
      return JobOutcome.unknown("no job '" + jobId + "' (gleaner jobs lists them)");
    }
    String refusal = caller.refusal(verb, jobId, job.spec.getOwner());
    if (refusal == null) {
      return null;
    }
    log.info("job {}: a {} by {} is refused: it belongs to {}", jobId, verb, caller,
        Caller.ownerText(job.spec.getOwner()));
    return new JobOutcome(null, refusal, true);
  }
}
