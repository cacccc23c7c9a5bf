package dev.gleaner.deploy.launch;

import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The one wait of the tools that launch workers and then time or check them (the benches, the chaos
 * runs, the replay) until their workers have joined the master. A worker has joined when the master's
 * status lists it {@code READY}: connected, known to the master's controller and up, so that a job
 * submitted next can hand it work at once (not {@code AWAY} with its owner, {@code DRAINING} or
 * {@code GONE}).
 *
 * <p>Every wait is bounded by its time limit, and a launched process that has exited ends it at once,
 * with the end of its log, instead of when the limit has passed.
 */
public final class WorkersJoined {
  /** How often the master's status is asked for while waiting. */
  private static final long POLL_MILLIS = 100;

  /** The master's status as it is now, through whatever the tool holds (its client, an in-process master). */
  @FunctionalInterface
  public interface StatusSource {
    StatusReply status() throws IOException;
  }

  /** The processes a tool launched, as the wait looks at them. */
  public interface Launched {
    /** Nothing launched: the workers (and the master) run in this JVM. */
    Launched IN_PROCESS = new Launched() {
      @Override
      public void requireAlive() {}

      @Override
      public String logs() {
        return "";
      }
    };

    /** Throws, naming the process and with the end of its log, if any of them has exited. */
    void requireAlive();

    /** The end of each one's log, for a wait that ran out of time. */
    String logs();
  }

  private WorkersJoined() {}

  /** Waits until at least {@code count} workers are READY at the master. */
  public static void awaitWorkers(StatusSource master, int count, Duration limit, Launched launched)
      throws IOException {
    long until = System.nanoTime() + limit.toNanos();
    while (true) {
      launched.requireAlive();
      StatusReply s = master.status();
      int ready = s.getWorkersByStateOrDefault("READY", 0);
      if (ready >= count) {
        return;
      }
      if (System.nanoTime() - until >= 0) {
        throw new IllegalStateException(ready + " of " + count + " workers joined (READY at the master) within "
            + seconds(limit) + "; the master lists " + states(s.getWorkersList()) + launchedLogs(launched));
      }
      pause();
    }
  }

  /** Waits until every worker of {@code ids} is READY at the master; the status must list them all. */
  public static void awaitWorkers(StatusSource master, Collection<String> ids, Duration limit, Launched launched)
      throws IOException {
    long until = System.nanoTime() + limit.toNanos();
    while (true) {
      launched.requireAlive();
      Map<String, String> listed = new LinkedHashMap<>();
      for (WorkerStatus w : master.status().getWorkersList()) {
        listed.put(w.getWorkerId(), w.getState());
      }
      List<String> missing = new ArrayList<>();
      for (String id : ids) {
        if (!"READY".equals(listed.get(id))) {
          missing.add(id + " " + listed.getOrDefault(id, "not listed"));
        }
      }
      if (missing.isEmpty()) {
        return;
      }
      if (System.nanoTime() - until >= 0) {
        throw new IllegalStateException(missing.size() + " of " + ids.size() + " workers did not join (READY at the"
            + " master) within " + seconds(limit) + ": " + String.join(", ", missing) + launchedLogs(launched));
      }
      pause();
    }
  }

  private static String states(List<WorkerStatus> workers) {
    if (workers.isEmpty()) {
      return "no worker";
    }
    List<String> out = new ArrayList<>();
    for (WorkerStatus w : workers) {
      out.add(w.getWorkerId() + " " + w.getState());
    }
    return String.join(", ", out);
  }

  private static String launchedLogs(Launched launched) {
    String logs = launched.logs();
    return logs.isEmpty() ? "" : "\n" + logs;
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
  }

  private static void pause() {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
    if (Thread.interrupted()) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the workers to join");
    }
  }
}
