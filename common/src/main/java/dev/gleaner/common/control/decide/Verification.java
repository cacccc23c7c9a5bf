package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import java.util.Set;

/**
 * Checks of committed pieces (a job's {@code verify} share, BOINC's quorum at a chosen cost):
 * which committed pieces are picked, paced so that the share checked follows the share asked for
 * as the job goes; another worker computes each again; the body compares; a disagreement is
 * settled by a third worker; three different results fail the job; checks that no connected
 * worker may take end the job's wait after {@link ControlConfig#CHECK_WAIT_SECONDS}.
 */
public final class Verification {
  private final ControlState s;
  private final Endings endings;

  Verification(ControlState s, Endings endings) {
    this.s = s;
    this.endings = endings;
  }

  /** A piece was committed: it is picked for a check when the share checked is behind the share asked for. */
  void committed(JobLedger j, String worker, long start, long end, long added) {
    if (added > 0 && j.def.verify() > 0 && j.active() && j.checkedSelected < j.def.verify() * j.committed.size()) {
      j.checks.addLast(new JobLedger.Check(start, end, Set.of(worker), worker, null));
      j.checkedSelected += end - start;
      s.workChanged = true;
    }
  }

  /** A piece of a check chunk: only its whole range compares; anything else sends the check back to the queue. */
  Verdict piece(JobLedger j, Chunk c, long start, long end, double now) {
    JobLedger.Check k = c.check;
    s.removeChunk(c, now);
    if (start != k.start() || end != k.end() || !j.phase.open()) {
      if (j.phase.open()) {
        j.checks.addFirst(k);
        s.workChanged = true;
      }
      return Verdict.DISCARD;
    }
    j.checking.put(c.id, k);
    return k.tieBreak() ? Verdict.TIE_BREAK : Verdict.CHECK;
  }

  /**
   * The body compared a check's result (see {@link Verdict#CHECK}, {@link Verdict#TIE_BREAK}).
   *
   * @param agrees whether it equals the committed result
   * @param agreesWithDissent for a tie-break: whether it equals the dissenting check's result (the
   *     body has then replaced the committed result with it)
   */
  public void checked(String worker, String job, long chunkId, boolean agrees, boolean agreesWithDissent, double now) {
    JobLedger j = s.jobs.get(job);
    JobLedger.Check k = j == null ? null : j.checking.remove(chunkId);
    if (k == null || j.phase.ended()) {
      return;
    }
    String range = "units [" + k.start() + ", " + k.end() + ")";
    if (!k.tieBreak()) {
      if (agrees) {
        j.verified += k.units();
      } else {
        JobLedger.Check notHere = k.excluding(worker);
        j.checks.addFirst(new JobLedger.Check(k.start(), k.end(), notHere.excluded(), k.committer(), worker));
        s.workChanged = true;
      }
    } else if (agrees) {
      j.verified += k.units();
      j.mismatches.add(range + ": " + k.dissenter() + " disagreed with " + k.committer() + "; " + worker
          + " agrees with " + k.committer() + ", whose result stands");
    } else if (agreesWithDissent) {
      j.verified += k.units();
      j.mismatches.add(range + ": " + k.committer() + "'s result was wrong; " + k.dissenter() + " and " + worker
          + " agree, and their result replaced it");
    } else {
      endings.finish(j, JobPhase.FAILED, range + " gave three different results (" + k.committer() + ", "
          + k.dissenter() + ", " + worker + "): the workload is not deterministic, or workers are faulty", now);
      return;
    }
    endings.endIfDone(j, now);
  }

  /** A check chunk ends unsettled: its check goes back to the queue, never to {@code worker} again. */
  void requeue(JobLedger j, Chunk c, String worker, double now) {
    JobLedger.Check k = c.check;
    s.removeChunk(c, now);
    j.checks.addFirst(k.excluding(worker));
    s.workChanged = true;
  }

  /**
   * A job with every unit committed whose remaining checks no connected worker may take (one
   * worker; a tie-break with two) ends after {@link ControlConfig#CHECK_WAIT_SECONDS} with them not
   * done, saying so, instead of waiting forever.
   */
  void settleStuck(double now) {
    for (JobLedger j : s.live()) {
      if (!j.active() || j.checks.isEmpty() || !j.checking.isEmpty() || j.committed.size() < j.units()
          || j.chunks.values().stream().anyMatch(c -> c.check != null)) {
        j.checksStuckSince = Double.NaN;
        continue;
      }
      boolean takeable = j.checks.stream().anyMatch(k -> s.members.values().stream()
          .anyMatch(m -> m.up() && j.takes(m) && !k.excluded().contains(m.id)));
      if (takeable) {
        j.checksStuckSince = Double.NaN;
        continue;
      }
      if (Double.isNaN(j.checksStuckSince)) {
        j.checksStuckSince = now;
        j.message = "waiting for a worker that may check the last pieces (not the one that computed them)";
      } else if (now - j.checksStuckSince >= ControlConfig.CHECK_WAIT_SECONDS) {
        long units = 0;
        for (JobLedger.Check k : j.checks) {
          units += k.units();
          if (k.tieBreak()) {
            j.mismatches.add("units [" + k.start() + ", " + k.end() + "): " + k.dissenter() + " disagreed with "
                + k.committer() + " and no third worker came to decide; " + k.committer() + "'s result stands");
          }
        }
        j.mismatches.add(units + " units picked for checking were not checked: no other worker within "
            + (long) ControlConfig.CHECK_WAIT_SECONDS + " s");
        j.checks.clear();
        endings.endIfDone(j, now);
      }
    }
  }
}
