package dev.gleaner.master.status;

import dev.gleaner.master.auth.Caller;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;

/**
 * The status as one caller may read it, on the framed port and on the web page alike. Reading is
 * shared in a lab: every job is listed with its owner, state and progress. The result of another
 * client's job is for its owner and operators, as {@code gleaner result} is. A master started with
 * {@code --private-jobs} also keeps the name and messages of another client's job (what its
 * parameters show) from the other clients.
 */
public final class ReadableStatus {
  private ReadableStatus() {}

  /** {@code reply} as {@code caller} may read it: the same object when nothing is kept from it. */
  public static StatusReply of(StatusReply reply, Caller caller, boolean privateJobs) {
    if (caller.isOperator()) {
      return reply;
    }
    StatusReply.Builder b = null;
    for (int i = 0; i < reply.getJobsCount(); i++) {
      JobStatus j = reply.getJobs(i);
      if (caller.refusal("read", j.getJobId(), j.getOwner()) == null) {
        continue;
      }
      JobStatus view = privateJobs ? numbersOnly(j) : withoutResult(j);
      if (view != j) {
        if (b == null) {
          b = reply.toBuilder();
        }
        b.setJobs(i, view);
      }
    }
    return b == null ? reply : b.build();
  }

  private static JobStatus withoutResult(JobStatus j) {
    if (j.getResult().isEmpty() && j.getResultSize() == 0) {
      return j;
    }
    return j.toBuilder().clearResult().setResultTruncated(false).setResultSize(0)
        .setMessage(j.getMessage() + (j.getMessage().isEmpty() ? "" : "; ") + "its result is for " + whose(j)
            + " to read").build();
  }

  private static JobStatus numbersOnly(JobStatus j) {
    return j.toBuilder().clearName().clearResult().setResultTruncated(false).setResultSize(0).clearMismatches()
        .setMessage("its name, messages and result are for " + whose(j) + " to read (this master keeps jobs private)")
        .build();
  }

  private static String whose(JobStatus j) {
    return (j.getOwner().isEmpty() ? "" : Caller.ownerText(j.getOwner()) + " and ") + "operators";
  }
}
