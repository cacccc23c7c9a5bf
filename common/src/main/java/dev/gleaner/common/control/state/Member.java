package dev.gleaner.common.control.state;

import dev.gleaner.common.control.WorkerInfo;
import dev.gleaner.common.control.WorkerState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A worker as the controller tracks it, across its sessions. */
public final class Member {
  public final String id;
  public Set<String> workloads;
  public int cores;
  public double availableUntil;
  /** Its owner policy saves the piece under way when its owner comes back (see {@link WorkerInfo}). */
  public boolean savesOnVacate;
  /** The relay its session came through ("" straight to the master). */
  public String relay = "";
  public WorkerState state = WorkerState.READY;
  public double upSince;
  /** Chunks it holds, in the order it computes them. */
  public final List<Chunk> chunks = new ArrayList<>();
  public long unitsDone;
  /** Sessions so far (1 for the first). */
  public int sessions;
  /** Known only from a restarted master's store, as the holder of reserved chunks; not seen yet. */
  public boolean unseen;
  /**
   * Its last session was ended by the master for a refused request: its joins re-plan nothing (it
   * is served from the pool and others' queues) until a piece of it counts.
   */
  public boolean refused;
  /**
   * Why it was given nothing at its last look although work waited (it would hold the master's port
   * longer than the work's owner), or null; the views show it only while it still idles and work still
   * waits in others' queues.
   */
  public HeldBack heldBack;

  /** A worker held back from the work of {@code owner}: its link and the owner's, bytes/s. */
  public record HeldBack(String owner, double link, double ownerLink) {}
  /** Whether its place in the indexes of chunks waits to be brought up to date (see {@link ControlState#touch}). */
  boolean touched;
  /** The line of {@link WaitLines} it waits in, or null. */
  WaitLines.Line line;

  public Member(WorkerInfo info, double now) {
    this.id = info.id();
    update(info, now);
  }

  /** A worker the store says holds chunks, before it connects to this master. */
  public static Member unseen(String id, String workload, double now) {
    Member m = new Member(new WorkerInfo(id, Set.of(workload), 1, Map.of(), Double.POSITIVE_INFINITY, 0, 0), now);
    m.state = WorkerState.GONE;
    m.sessions = 0;
    m.unseen = true;
    return m;
  }

  /** A new session with what the worker says of itself. */
  public void update(WorkerInfo info, double now) {
    workloads = info.workloads();
    cores = info.cores();
    availableUntil = info.availableUntil();
    savesOnVacate = info.savesOnVacate();
    relay = info.relay();
    state = WorkerState.READY;
    upSince = now;
    sessions++;
  }

  /** Whether it takes work. */
  public boolean up() {
    return state == WorkerState.READY;
  }

  public boolean accepts(String workload) {
    return workloads.contains(workload);
  }

  @Override
  public String toString() {
    return id;
  }
}
