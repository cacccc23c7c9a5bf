package dev.gleaner.common.control;

import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The controller read, never changed (raft's {@code status.go}): jobs, workers, recovery lists,
 * plans, where a job stands for a forecast, and an audit of a job's ledger. Every view is a copy
 * or an immutable record, built on the controller's thread.
 */
public final class ControllerViews {
  /** The latest mismatches a job view carries (a faulty worker may cause thousands). */
  static final int MISMATCHES_SHOWN = 50;

  private final ControlState s;

  ControllerViews(ControlState s) {
    this.s = s;
  }

  /** The job, or null for no such job. */
  public JobView job(String id) {
    JobLedger j = s.jobs.get(id);
    return j == null ? null : view(j);
  }

  /** Every job known, ended ones too, in the order they came. */
  public List<JobView> jobs() {
    List<JobView> out = new ArrayList<>();
    for (JobLedger j : s.jobs.values()) {
      out.add(view(j));
    }
    return out;
  }

  /** The job's progress, or null for no such job. */
  public Progress progress(String id) {
    JobLedger j = s.jobs.get(id);
    return j == null ? null : new Progress(j.phase, j.units(), j.committed.size(), j.nextChunkId - j.def.firstChunkId(),
        Math.max(0, j.replans));
  }

  /** The committed units of a job (a copy). */
  public RangeSet committedUnits(String job) {
    JobLedger j = s.jobs.get(job);
    return j == null ? new RangeSet() : j.committed.copy();
  }

  /** The job's current plan's timeline, or null for no such job. */
  public PlannedTimeline plannedTimeline(String job) {
    JobLedger j = s.jobs.get(job);
    return j == null ? null : new PlannedTimeline(j.lastPlanAt, j.timeline);
  }

  /**
   * The job's recovery lists (worker, where its unfinished work goes), each cut to its first
   * {@code entries}: N workers make N lists of N, too many to show whole.
   */
  public Map<String, List<String>> recovery(String job, int entries) {
    JobLedger j = s.jobs.get(job);
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (j == null || j.scheme == null) {
      return out;
    }
    int length = j.scheme.n() - 1;
    for (int i = 0; i < j.members.size(); i++) {
      // entry by entry: whole lists of 10,000 workers are 10^8 entries
      List<String> ids = new ArrayList<>(Math.min(entries, length));
      for (int k = 0; k < length && k < entries; k++) {
        ids.add(j.members.get(j.scheme.at(i, k)));
      }
      out.put(j.members.get(i), ids);
    }
    return out;
  }

  /** The length of every recovery list of the job (the number of its planned workers but one). */
  public int recoveryLength(String job) {
    JobLedger j = s.jobs.get(job);
    return j == null || j.scheme == null ? 0 : j.scheme.n() - 1;
  }

  public List<WorkerView> workers(double now) {
    return workers(now, Integer.MAX_VALUE);
  }

  /** The first {@code max} workers, in the order they first joined. */
  public List<WorkerView> workers(double now, int max) {
    List<WorkerView> out = new ArrayList<>(Math.min(max, s.members.size()));
    for (Member m : s.members.values()) {
      if (out.size() >= max) {
        break;
      }
      out.add(workerView(m, now));
    }
    return out;
  }

  /** The worker, or null if it never joined. */
  public WorkerView worker(String id, double now) {
    Member m = s.members.get(id);
    return m == null ? null : workerView(m, now);
  }

  /** Whether the worker has ever joined (since this controller started). */
  public boolean knowsWorker(String id) {
    return s.members.containsKey(id);
  }

  /** Each worker's id and state, cheaply: for counts. */
  public void forEachWorkerState(BiConsumer<String, WorkerState> each) {
    for (Member m : s.members.values()) {
      each.accept(m.id, m.state);
    }
  }

  /**
   * Where the job stands now, for a forecast: its units not yet saved, and the workers that can take
   * it, with the estimator's figures. Null for no such job, one that ended, or one with nothing left.
   */
  public Outset outset(String job, double now) {
    JobLedger j = s.jobs.get(job);
    return j == null || j.phase.ended() ? null : Outsets.of(s, j, now);
  }

  /**
   * Checks the ledger of a job: every unit of it is committed, pending, held, queued or (once it
   * ended at its deadline) not done; nothing is both held and queued (replicas aside), nothing both
   * committed and pending. For tests and assertions.
   *
   * @return null if consistent, else what is wrong
   */
  public String checkLedger(String job) {
    JobLedger j = s.jobs.get(job);
    return j == null ? "no job " + job : LedgerAudit.problem(j);
  }

  private JobView view(JobLedger j) {
    RangeSet notDone = new RangeSet();
    if (j.phase == JobPhase.DONE_PARTIAL || j.phase == JobPhase.CANCELLED) {
      notDone = RangeSet.of(j.def.start(), j.def.end());
      notDone.removeAll(j.committed);
    }
    // the units held is a set built from every chunk: once per view, not twice
    RangeSet held = j.held();
    return new JobView(j.def.id(), j.def.workload(), j.phase, j.message, j.strategy, j.reason, j.units(),
        j.committed.size(), notDone, j.expectedWork, Math.max(0, j.replans), j.def.deadline(),
        Map.copyOf(j.unitsByWorker), j.scheme == null ? "" : j.scheme.name(), List.copyOf(j.reroutes),
        j.phase.ended() ? 0 : j.unstarted(held), held.size(), j.verified,
        List.copyOf(j.mismatches.subList(Math.max(0, j.mismatches.size() - MISMATCHES_SHOWN), j.mismatches.size())));
  }

  private WorkerView workerView(Member m, double now) {
    Map<String, Estimate> speeds = new LinkedHashMap<>();
    for (String w : m.workloads) {
      speeds.put(w, s.estimator.speed(m.id, w));
    }
    List<String> chunks = new ArrayList<>();
    for (Chunk c : m.chunks) {
      chunks.add(c.toString());
    }
    return new WorkerView(m.id, m.state, speeds, s.estimator.bandwidth(m.id), s.estimator.risk(m.id, now), chunks,
        m.unitsDone, m.sessions, idleBecause(m));
  }

  /** Why the worker idles while work waits in others' queues, if it was held back (empty otherwise). */
  private String idleBecause(Member m) {
    Member.HeldBack h = m.heldBack;
    if (h == null || !m.up() || !m.chunks.isEmpty() || s.live().stream().noneMatch(j -> j.active()
        && j.queues.anyQueued())) {
      return "";
    }
    return String.format(Locale.ROOT, "its link (%.3g B/s) is thinner than %s's (%.3g B/s), whose input holds the"
        + " master's port: %s would end later, not sooner", h.link(), h.owner(), h.ownerLink(), h.owner());
  }
}
