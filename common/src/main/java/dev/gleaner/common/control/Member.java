package dev.gleaner.common.control;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** A worker as the controller tracks it, across its sessions. */
final class Member {
  /** A worker's state. */
  enum State {
    /** Connected and taking work. */
    UP,
    /** Finishing what it holds, taking nothing new. */
    DRAINING,
    /** Gone (lost or left); may come back. */
    DOWN
  }

  final String id;
  Set<String> workloads;
  int cores;
  double availableUntil;
  /** Its owner policy saves the piece under way when its owner comes back (see {@link WorkerInfo}). */
  boolean savesOnVacate;
  State state = State.UP;
  double upSince;
  /** Copies it holds, in the order it computes them. */
  final List<Copy> copies = new ArrayList<>();
  long unitsDone;
  /** Sessions so far (1 for the first). */
  int sessions;
  /** Known only from a restarted master's store, as the holder of reserved copies; not seen yet. */
  boolean unseen;
  /**
   * Its last session was ended by the master for a refused request: its joins re-plan nothing (it
   * is served from the pool and others' queues) until a piece of it counts.
   */
  boolean refused;
  /** Whether its place in the indexes of copies waits to be brought up to date (see {@link Controller#touch}). */
  boolean touched;
  /** The line of {@link Waiters} it waits in, or null. */
  Set<Member> line;

  Member(WorkerInfo info, double now) {
    this.id = info.id();
    update(info, now);
  }

  /** A worker the store says holds copies, before it connects to this master. */
  static Member unseen(String id, String workload, double now) {
    Member m = new Member(new WorkerInfo(id, Set.of(workload), 1, java.util.Map.of(), Double.POSITIVE_INFINITY, 0, 0), now);
    m.state = State.DOWN;
    m.sessions = 0;
    m.unseen = true;
    return m;
  }

  void update(WorkerInfo info, double now) {
    workloads = info.workloads();
    cores = info.cores();
    availableUntil = info.availableUntil();
    savesOnVacate = info.savesOnVacate();
    state = State.UP;
    upSince = now;
    sessions++;
  }

  boolean up() {
    return state == State.UP;
  }

  boolean accepts(String workload) {
    return workloads.contains(workload);
  }

  @Override
  public String toString() {
    return id;
  }
}
