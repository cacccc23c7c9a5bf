package dev.gleaner.master.status;

import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last status reply the control loop built for each request (all jobs, or one job), so that a
 * status asked while the loop is busy is answered at once from these instead of waiting behind its
 * work. While someone asked for a status lately, the loop builds the reply of all jobs again on its
 * ticks, once a second or, when that reply is costly (thousands of workers), seldom enough that
 * building it takes at most a tenth of the loop's time; a single job's reply (its recovery lists
 * cost O(workers^2)) is built only when asked, and a busy loop answers for it from the newer of its
 * own last reply and the job's line in the last reply of all jobs. While nobody asks, it builds none.
 * Written on the loop's thread, read on any.
 */
final class StatusSnapshots {
  /** How long after a request its reply is still kept current. */
  static final long WATCHED_MILLIS = 30_000;
  /** The oldest a kept-current reply gets while the loop is not stuck in one task. */
  static final long REFRESH_MILLIS = 1_000;
  /** Requests kept current at most: a status of all jobs and a few single jobs. */
  static final int KEYS = 8;

  private record Asked(long atMillis) {}

  private final Map<String, StatusReply> replies = new ConcurrentHashMap<>();
  private final Map<String, Asked> asked = new ConcurrentHashMap<>();
  /** Jobs submitted that no reply built since shows yet (the loop has not come to them), the latest few. */
  private final Map<String, JobStatus> notYetShown = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, JobStatus> eldest) {
          return size() > StatusReport.JOBS_SHOWN;
        }
      });

  /** A job was submitted: until a reply shows it, the last figures show it as {@code queued}. */
  void submitted(JobStatus queued) {
    notYetShown.put(queued.getJobId(), queued);
  }

  /** What the last reply of all jobs took to build, in ms: the refresh keeps to a tenth of the loop's time. */
  private volatile long allCostMillis;

  /** A status for {@code jobId} ("" for all) was asked at {@code nowMillis}. */
  void asked(String jobId, long nowMillis) {
    if (asked.size() < KEYS || asked.containsKey(jobId)) {
      asked.put(jobId, new Asked(nowMillis));
    }
  }

  /** The loop built {@code reply} for {@code jobId} in {@code costMillis}. */
  void built(String jobId, StatusReply reply, long costMillis) {
    if (jobId.isEmpty()) {
      allCostMillis = costMillis;
    }
    for (JobStatus j : reply.getJobsList()) {
      notYetShown.remove(j.getJobId());
    }
    if (jobId.isEmpty() || asked.containsKey(jobId)) {
      replies.put(jobId, reply);
    }
  }

  /**
   * The last reply built for {@code jobId}; for a single job without one, that job cut from the last
   * reply of all jobs; in both, the jobs submitted since as queued. Null if there is none, or the
   * job is in none.
   */
  StatusReply latest(String jobId) {
    StatusReply r = replies.get(jobId);
    StatusReply all = replies.get("");
    if (jobId.isEmpty()) {
      if (all == null) {
        return null;
      }
      StatusReply.Builder b = all.toBuilder();
      java.util.Set<String> shown = new java.util.HashSet<>();
      all.getJobsList().forEach(j -> shown.add(j.getJobId()));
      synchronized (notYetShown) {
        notYetShown.values().stream().filter(j -> !shown.contains(j.getJobId())).forEach(b::addJobs);
      }
      return b.build();
    }
    if (r != null && (all == null || r.getAsOfMillis() >= all.getAsOfMillis())) {
      return r;
    }
    JobStatus queued = notYetShown.get(jobId);
    if (all == null) {
      // no figures at all yet: what its submit said, as of then
      return queued == null ? null : StatusReply.newBuilder().addJobs(queued)
          .setAsOfMillis(queued.getSubmittedAtMillis()).build();
    }
    StatusReply.Builder one = all.toBuilder().clearJobs().setJobsOmitted(0);
    all.getJobsList().stream().filter(j -> j.getJobId().equals(jobId)).forEach(one::addJobs);
    if (one.getJobsCount() == 0 && queued != null) {
      one.addJobs(queued);
    }
    return one.getJobsCount() == 0 ? r : one.build();
  }

  /**
   * Whether the loop should build the reply of all jobs again now: a status was asked within
   * {@link #WATCHED_MILLIS}, and the last reply is older than a second and than ten times what it
   * took to build.
   */
  boolean allDue(long nowMillis) {
    asked.entrySet().removeIf(e -> nowMillis - e.getValue().atMillis() > WATCHED_MILLIS);
    // a single job's reply nobody watches any more is dropped; the one of all jobs stays, for any job
    replies.keySet().removeIf(k -> !k.isEmpty() && !asked.containsKey(k));
    if (asked.isEmpty()) {
      return false;
    }
    StatusReply all = replies.get("");
    return all == null || nowMillis - all.getAsOfMillis() >= Math.max(REFRESH_MILLIS, 10 * allCostMillis);
  }
}
