package dev.gleaner.common.control.state;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.estimate.Estimator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the controller knows, in one object its decisions share and nothing else holds: the
 * workers, the jobs with their ledgers and indexes, the estimator's figures, the waiting workers'
 * lines, and the actions decided since the body last took them. It offers the few changes every
 * decision makes the same way (a chunk ends, a worker's chunks changed, an action is decided), and
 * decides nothing itself. Like the controller, it belongs to one thread.
 */
public final class ControlState {
  public final ControlConfig config;
  public final Estimator estimator = new Estimator();
  public final Map<String, Member> members = new LinkedHashMap<>();
  /** Every job known, ended ones too (their status is read until they are forgotten). */
  public final Map<String, JobLedger> jobs = new LinkedHashMap<>();
  /** The workers that want work, in their lines. */
  public final WaitLines waiting = new WaitLines();
  /** Work appeared (or time moved) since the last pump: the waiting workers look again. */
  public boolean workChanged = true;
  /**
   * How the master's port sends chunk input now, its budget in bytes/s: what the planner's timelines
   * and its risk-free sizes assume (the papers' one port until the master says otherwise).
   */
  public dev.gleaner.common.port.PortRule port = dev.gleaner.common.port.PortRule.ONE_PORT;
  /** Owners' weights in the fair share of the workers, as an operator set them (1 for an owner not here). */
  public final Map<String, Double> shareWeights = new HashMap<>();
  /** Chunks reserved for workers that have not come back yet (see {@link Chunk#reservedUntil}). */
  public int reserved;
  /** After the store failed, nothing is handed out before this time (no busy loop on a full disk). */
  public double storeHoldUntil = Double.NEGATIVE_INFINITY;

  /**
   * The jobs that have not ended, in the order they came: what every pass, pump and hand-out looks
   * at, so a master that has run thousands of jobs costs what its running ones do. Replaced, never
   * changed, when a job comes or ends, so a loop over it may start or end jobs.
   */
  private List<JobLedger> live = List.of();
  private final List<JobLedger> arrived = new ArrayList<>();
  private boolean liveStale;
  private final List<Action> out = new ArrayList<>();
  /** Workers whose chunks (or speed) changed since the indexes of chunks were last brought up to date. */
  private final List<Member> touched = new ArrayList<>();
  /** Up workers by workload they accept (see {@link #accepting}). */
  private final Map<String, Integer> upByWorkload = new HashMap<>();

  public ControlState(ControlConfig config) {
    this.config = config;
    estimator.listen(this::estimateChanged);
  }

  /** An action decided: the body carries it out after the event. */
  public void emit(Action a) {
    out.add(a);
  }

  /** The actions decided since the last call, in order; none are kept. */
  public List<Action> takeActions() {
    List<Action> a = List.copyOf(out);
    out.clear();
    return a;
  }

  /** A new job's ledger, not known yet (see {@link #add}). */
  public JobLedger ledger(JobDef def) {
    return new JobLedger(def, id -> {
      Member w = members.get(id);
      return w == null ? Double.NaN : speed(w, def.workload());
    });
  }

  /** The job is known, and live, from now on. */
  public void add(JobLedger j) {
    jobs.put(j.def.id(), j);
    arrived.add(j);
    liveStale = true;
  }

  /** The job ended: it leaves the live jobs (its ledger stays for its status). */
  public void ended(JobLedger j) {
    liveStale = true;
  }

  /** An ended job is dropped from the books (its status, its counts). */
  public void forget(String job) {
    JobLedger j = jobs.get(job);
    if (j != null && j.phase.ended()) {
      jobs.remove(job);
      liveStale = true;
    }
  }

  /** The jobs that have not ended (see {@link #live}); the list is never changed once returned. */
  public List<JobLedger> live() {
    if (liveStale) {
      List<JobLedger> next = new ArrayList<>(live.size() + arrived.size());
      for (List<JobLedger> from : List.of(live, arrived)) {
        for (JobLedger j : from) {
          if (!j.phase.ended() && jobs.get(j.def.id()) == j) {
            next.add(j);
          }
        }
      }
      arrived.clear();
      live = next;
      liveStale = false;
    }
    return live;
  }

  /** The chunk is over (complete, lost, cancelled): its worker's next chunk starts. */
  public void removeChunk(Chunk c, double now) {
    if (c.job.chunks.remove(c.id) == null) {
      return;
    }
    if (c.reserved()) {
      c.reservedUntil = Double.NaN;
      reserved--;
    }
    c.job.ended.put(c.id, c.worker.id);
    Member m = c.worker;
    m.chunks.remove(c);
    if (!m.chunks.isEmpty()) {
      m.chunks.get(0).started(now);
    }
    touch(m);
    waiting.wake(m);
  }

  /** The worker's chunks, or its speed, changed: its place in the indexes of chunks is out of date. */
  public void touch(Member m) {
    // a flag, not a set: several touches per event, on the hand-out's hot path
    if (!m.touched) {
      m.touched = true;
      touched.add(m);
    }
  }

  /** Files every touched worker again in each running job's indexes of chunks (see {@link Finishes}, {@link Surplus}). */
  public void refile() {
    if (touched.isEmpty()) {
      return;
    }
    for (JobLedger j : live()) {
      if (j.phase.ended()) {
        continue;
      }
      for (Member m : touched) {
        // when it would finish its chunks, their input's time over its link included
        j.finishes.refile(m, throughput(m, j));
        j.surplus.refile(m, config.window());
      }
    }
    for (Member m : touched) {
      m.touched = false;
    }
    touched.clear();
  }

  /** Counts a worker in (or out of) the up workers of each workload it accepts. */
  public void counted(Member m, int delta) {
    for (String w : m.workloads) {
      upByWorkload.merge(w, delta, Integer::sum);
    }
  }

  /** Up workers that may take the job: those that accept its workload, less those set aside. */
  public int accepting(JobLedger j) {
    int n = upByWorkload.getOrDefault(j.def.workload(), 0);
    for (String id : j.setAside) {
      Member m = members.get(id);
      if (m != null && m.up() && m.accepts(j.def.workload())) {
        n--;
      }
    }
    return n;
  }

  public double speed(Member m, JobLedger j) {
    return speed(m, j.def.workload());
  }

  /**
   * Units/s the worker gets through of the job, its input included: its speed, slowed by its link when
   * the job streams input (the link's time per unit added to the computing's, as the plans count it);
   * NaN while its speed is unknown.
   */
  public double throughput(Member m, JobLedger j) {
    double speed = speed(m, j);
    if (!(speed > 0) || !j.def.hasInput()) {
      return speed;
    }
    double bandwidth = estimator.plannedBandwidth(m.id);
    return bandwidth > 0 && Double.isFinite(bandwidth) ? 1 / (1 / speed + j.def.bytesPerUnit() / bandwidth) : speed;
  }

  /** The worker's estimated speed for the workload, units/s; NaN while unknown. */
  public double speed(Member m, String workload) {
    Estimate e = estimator.speed(m.id, workload);
    return e.known() ? e.value() : Double.NaN;
  }

  /** Seconds the chunk's next piece may take: {@code leaseFactor} times its expected time, at least the floor. */
  public double lease(Member m, Chunk c) {
    double speed = speed(m, c.job);
    // a first piece of a job with input may wait for the one port behind every other worker's input
    if (!(speed > 0) || c.job.def.hasInput() && c.cursor == c.start) {
      return config.leaseFloor() * config.leaseFactor();
    }
    return Math.max(config.leaseFloor(), config.leaseFactor() * (c.nextCut() - c.cursor) / speed);
  }

  /** The estimator's figures of a worker changed (its speed, its bandwidth). */
  private void estimateChanged(String worker) {
    Member m = members.get(worker);
    if (m != null) {
      touch(m);
    }
    for (JobLedger j : live()) {
      j.queues.speedChanged(worker);
    }
  }
}
