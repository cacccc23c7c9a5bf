package dev.gleaner.master.loop;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.util.RangeSet;
import dev.gleaner.master.store.JobTable;
import dev.gleaner.master.store.PieceTable;
import dev.gleaner.master.store.Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's end in the master: its result merged from its stored pieces ({@link ResultMerge}, off the
 * control thread for a large job), stored with its state and its units not done, and only then
 * shown and answered to those waiting for it. A small job that the pieces of a pass complete has
 * its end written in that pass's transaction ({@link Ending}), so its client hears DONE one fsync
 * after the last piece came. Confined to the control thread, but for the merge.
 */
final class JobEnds {
  // one logger for the whole loop: what an operator reads and filters is the control loop's
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  /** The most pieces a job may have for its end to be written in the pass of its last piece. */
  static final int END_WITH_LAST_PIECE = 256;

  private final Books b;
  private final ControlThread thread;

  JobEnds(Books b, ControlThread thread) {
    this.b = b;
    this.thread = thread;
  }

  /**
   * Before a pass commits: a small job that this pass's pieces complete has its result merged and
   * its end written in the same transaction (see {@link #finish}).
   */
  void endWithLastPieces() {
    for (MasterJob job : b.committing) {
      if (job.running() && job.piecesCommitted < END_WITH_LAST_PIECE && b.controller.endsWhenPendingCommit(job.id)) {
        long at = b.clock.epochMillis();
        job.ending = b.store.submit(tx -> Ending.write(tx, job, at));
      }
    }
    b.committing.clear();
  }

  /** The controller ended the job: its end is stored, then shown. */
  void finish(MasterJob job, Action.Finished f) {
    CompletableFuture<Ending> ending = job.ending;
    if (ending != null) {
      job.ending = null;
      // written with the last pieces (see endWithLastPieces): it completes in the same commit as they did
      ending.whenComplete((e, err) -> thread.then(() -> {
        if (err == null && e != null && f.phase() == JobPhase.DONE && f.message().isEmpty() && job.ended == null) {
          ended(job, JobPhase.DONE, e.text(), e.atMillis(), "");
        } else {
          finish(job, f);
        }
      }));
      return;
    }
    if (f.phase() == JobPhase.FAILED) {
      recordFailure(job, f.message());
      return;
    }
    // read and merged on the store's reader thread: merging a large job must not hold up the loop
    b.store.read(PieceTable.pieces(job.id)).whenComplete((pieces, err) -> {
      try {
        merged(job, f, pieces, err);
      } catch (RuntimeException | OutOfMemoryError e) {
        // nothing may vanish into the future: every unit is saved, so the job waits for a master
        // that can make its result (a restart takes it up and ends it at once)
        long bytes = pieces == null ? 0 : pieces.stream().mapToLong(p -> p.result().length).sum();
        String why = "its result (" + (pieces == null ? 0 : pieces.size()) + " pieces, " + bytes + " bytes) could not"
            + " be made: " + e + (e instanceof OutOfMemoryError ? "; restart the master with a larger heap"
            + " (JAVA_OPTS=-Xmx...): every unit is saved and it ends at the restart" : "");
        log.error("job {}: {}", job.id, why, e);
        thread.post(() -> job.message = why);
      }
    });
  }

  /** The job fails after the controller ended it (merging or storing its result failed). */
  void fail(MasterJob job, String message) {
    b.controller.fail(job.id, message, b.clock.now());
    recordFailure(job, message);
  }

  /** What a job holds only while it runs: its input file, its entry for checking results. */
  void release(MasterJob job) {
    b.workloadOf.remove(job.id);
    if (job.input != null) {
      try {
        job.input.close();
      } catch (IOException e) {
        log.warn("closing the input of job {} failed: {}", job.id, e.getMessage(), e);
      }
    }
  }

  /** Stores the result made from the job's pieces (read with {@code err} when that failed); on the reader's thread. */
  private void merged(MasterJob job, Action.Finished f, List<PieceTable.PieceRecord> pieces, Throwable err) {
    if (err != null) {
      thread.post(() -> fail(job, "cannot read the committed pieces: " + err.getMessage()));
      return;
    }
    RangeSet done = RangeSet.of(job.start, job.end);
    done.removeAll(f.notDone());
    ResultMerge.Merged result;
    try {
      result = ResultMerge.of(job.workload, pieces, done);
    } catch (ResultMerge.NoResult e) {
      if (e.getCause() != null) {
        log.error("job {}: {}", job.id, e.getMessage(), e.getCause());
      }
      thread.post(() -> fail(job, e.getMessage()));
      return;
    }
    String notDone = f.notDone().isEmpty() ? null : f.notDone().toString();
    long at = b.clock.epochMillis();
    Store.Op<Void> update = JobTable.updateJob(job.id, f.phase(), null, at, result.result(),
        f.message().isEmpty() ? null : f.message());
    Store.Op<Void> ranges = JobTable.jobNotDone(job.id, notDone);
    thread.post(() -> b.store.submit(tx -> {
      update.run(tx);
      return ranges.run(tx);
    }).whenComplete((ok, stored) -> thread.then(() -> {
      if (stored != null) {
        fail(job, "cannot store the result: " + stored.getMessage());
        return;
      }
      ended(job, f.phase(), result.text(), at, f.message());
    })));
  }

  /** The job's end is stored: it shows in the status, and those waiting for it hear of it. */
  private void ended(MasterJob job, JobPhase phase, String text, long atMillis, String message) {
    job.result(text);
    job.finishedAtMillis = atMillis;
    job.message = message;
    job.ended = phase;
    release(job);
    answerWaiting(job);
    String first = text.lines().findFirst().orElse("");
    log.info("job {} {} in {} ms: {}", job.id, switch (phase) {
      case DONE -> "done";
      case CANCELLED -> "cancelled";
      default -> "ended at its deadline";
    },
        atMillis - job.submittedAtMillis, first.length() > 200 ? first.substring(0, 200) + "... (" + text.length()
            + " characters in all: gleaner result " + job.id + ")" : first);
  }

  /** The job failed: stored, then shown and answered (a restart finds it failed, as its client heard). */
  private void recordFailure(MasterJob job, String message) {
    long at = b.clock.epochMillis();
    log.error("job {} failed: {}", job.id, message);
    // not running any more while its failure is written: nothing of it is merged or forecast again
    job.storingEnd = true;
    b.store.submit(JobTable.updateJob(job.id, JobPhase.FAILED, null, at, null, message))
        .whenComplete((ok, err) -> thread.then(() -> {
          if (err != null) {
            log.error("job {}: cannot store its failure (a restart will take it up again): {}", job.id,
                err.toString(), err);
          }
          job.storingEnd = false;
          job.ended = JobPhase.FAILED;
          job.message = message;
          job.finishedAtMillis = at;
          release(job);
          answerWaiting(job);
        }));
  }

  /** The job has ended (its state is set): what waits for its end runs now. */
  private static void answerWaiting(MasterJob job) {
    List<Runnable> waiting = new ArrayList<>(job.onEnd);
    job.onEnd.clear();
    waiting.forEach(Runnable::run);
  }
}
