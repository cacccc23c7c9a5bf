package dev.gleaner.deploy.chaos;

/** The faults {@code gleaner chaos} injects while jobs run; one at a time, each bounded in time. */
public enum ChaosFault {
  /** SIGKILL a worker JVM, then start it again under the same {@code --id}. */
  WORKER_KILL("worker-kill"),
  /** SIGSTOP a worker JVM for 1-6 s (shorter or longer than the heartbeat timeout), then SIGCONT. */
  WORKER_STOP("worker-stop"),
  /** SIGTERM a worker JVM (it drains: reports, waits for the store, says goodbye), then start it again. */
  WORKER_TERM("worker-term"),
  /** SIGKILL the master while chunks are out, then start it again on the same data directory. */
  MASTER_KILL("master-kill"),
  /** SIGKILL the master right after a piece went through to it (aiming at a commit in progress), then restart it. */
  MASTER_KILL_COMMIT("master-kill-commit"),
  /** Reset (RST) every connection of a worker at its proxy; the worker connects again. */
  NET_DROP("net-drop"),
  /** Stop forwarding a worker's connection at its proxy for 1-6 s, bytes and closes alike. */
  NET_STALL("net-stall"),
  /** The master's store takes no new page for 1-6 s, as on a full disk (SQLITE_FULL), then space again. */
  STORE_FULL("store-full"),
  /** The master's wall clock jumps 20 min to 2 h, forward or back (it stays there, and across restarts). */
  CLOCK_JUMP("clock-jump");

  private final String label;

  ChaosFault(String label) {
    this.label = label;
  }

  /** The name on the command line and in reports. */
  public String label() {
    return label;
  }

  boolean restartsMaster() {
    return this == MASTER_KILL || this == MASTER_KILL_COMMIT;
  }

  /** It is done to the master (not to one worker). */
  boolean onMaster() {
    return restartsMaster() || this == STORE_FULL || this == CLOCK_JUMP;
  }

  public static ChaosFault byLabel(String label) {
    for (ChaosFault f : values()) {
      if (f.label.equals(label)) {
        return f;
      }
    }
    StringBuilder known = new StringBuilder();
    for (ChaosFault f : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(f.label);
    }
    throw new IllegalArgumentException("unknown fault '" + label + "'; known: " + known);
  }
}
