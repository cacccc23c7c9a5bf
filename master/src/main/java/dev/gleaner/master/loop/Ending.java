package dev.gleaner.master.loop;

import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.util.RangeSet;
import dev.gleaner.master.store.JobTable;
import dev.gleaner.master.store.PieceTable;
import dev.gleaner.master.store.Store;
import java.sql.SQLException;

/**
 * A small job's end written in the transaction of its last pieces: its result merged from its
 * pieces and stored with state DONE, so the client hears DONE one fsync after the last piece came.
 *
 * <p>How: the control loop asks for it before a pass commits, when the controller says the job
 * ends as soon as the pieces of the pass are committed ({@code endsWhenPendingCommit}). Run inside
 * that transaction, the pieces written earlier in it are read with the rest. Whatever does not fit
 * (overlapping pieces, a gap, a result the workload cannot merge or render) writes nothing: the
 * job then ends the usual way, which reports the fault.
 *
 * @param text the rendered result
 * @param atMillis when it ended (wall clock, as stored)
 */
record Ending(String text, long atMillis) {
  /** Merges the job's pieces and stores its end as DONE; null, writing nothing, when they do not make a result. */
  static Ending write(Store.Tx tx, MasterJob job, long atMillis) throws SQLException {
    ResultMerge.Merged merged;
    try {
      merged = ResultMerge.of(job.workload, PieceTable.pieces(job.id).run(tx), RangeSet.of(job.start, job.end));
    } catch (ResultMerge.NoResult e) {
      // the job ends the usual way, which merges again and reports why
      return null;
    }
    JobTable.updateJob(job.id, JobPhase.DONE, null, atMillis, merged.result(), null).run(tx);
    JobTable.jobNotDone(job.id, null).run(tx);
    return new Ending(merged.text(), atMillis);
  }
}
