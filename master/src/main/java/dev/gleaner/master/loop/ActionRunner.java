package dev.gleaner.master.loop;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.Ready;
import dev.gleaner.master.store.ChunkState;
import dev.gleaner.master.store.ChunkTable;
import dev.gleaner.master.store.JobTable;
import dev.gleaner.master.store.StoreErrors;
import dev.gleaner.protocol.Error;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the controller's decisions in the master, one {@link Ready} at a time, in raft's
 * rhythm: its records go into the current pass of the store, its messages are sent once that pass
 * has committed (a chunk's Assign after its record, and what the batch says later of the chunk
 * after the Assign), its notices are logged and counted at once. A message goes to the session that
 * was current when it was decided, or nowhere. Confined to the control thread.
 */
final class ActionRunner {
  // one logger for the whole loop: what an operator reads and filters is the control loop's
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  /** A chunk of a job. */
  private record ChunkKey(String job, long chunk) {}

  private final Books b;
  private final ControlThread thread;
  private final JobEnds ends;
  /** Chunks whose record failed in the pass being committed: nothing about them is sent. */
  private final Set<ChunkKey> unrecorded = new HashSet<>();

  ActionRunner(Books b, ControlThread thread, JobEnds ends) {
    this.b = b;
    this.thread = thread;
    this.ends = ends;
  }

  /** Persists the batch's records, sends its messages after they commit, and takes note of the rest. */
  void carryOut(Ready ready) {
    for (Action.Durable a : ready.toPersist()) {
      persist(a);
    }
    List<Action.Message> messages = ready.toSend();
    if (!messages.isEmpty()) {
      Sends sends = new Sends(messages);
      thread.afterCommit(sends::send);
    }
    for (Action.Notice a : ready.notices()) {
      note(a);
    }
  }

  /**
   * A pass is about to commit: the records that failed in the last commit concern only messages
   * that went out (or not) right after it, since every record decided before a commit ends with it.
   */
  void beforeCommit() {
    unrecorded.clear();
  }

  private void persist(Action.Durable a) {
    if (a instanceof Action.Assign x) {
      long leaseMs = leaseMillis(x);
      b.store.submit(ChunkTable.assigned(x.job(), x.chunkId(), x.worker(), x.start(), x.end(), x.checkpoints(), leaseMs,
          b.clock.epochMillis())).whenComplete((ok, err) -> {
            if (err != null) {
              // on the control thread (at once in a commit): not sent, nor anything about it; its units
              // are queued again
              thread.then(() -> {
                unrecorded.add(new ChunkKey(x.job(), x.chunkId()));
                Throwable cause = StoreErrors.cause(err);
                String why = StoreErrors.reason(cause);
                b.storeProblems.error("assign", "job " + x.job() + ": cannot record chunk " + x.chunkId()
                    + " for worker " + x.worker() + "; it is not sent: " + why, cause);
                b.metrics.storeFailures.increment();
                b.controller.assignFailed(x.worker(), x.job(), x.chunkId(), why, b.clock.now());
              });
            }
          });
    } else if (a instanceof Action.Truncate x) {
      b.store.submit(ChunkTable.truncated(x.job(), x.chunkId(), x.end()));
      if (x.split()) {
        b.metrics.splits.increment();
      }
      if (x.split()) {
        log.info("job {}: chunk {} of worker {} now ends at unit {}: {}", x.job(), x.chunkId(), x.worker(), x.end(),
            x.why());
      } else {
        // a stop (a cancel, the deadline): the worker keeps what it computed, up to its next step
        log.info("job {}: chunk {} of worker {} stops at its next step (unit {} at the earliest), keeping what it"
            + " computed: {}", x.job(), x.chunkId(), x.worker(), x.end(), x.why());
      }
    } else if (a instanceof Action.Cancel x) {
      b.store.submit(ChunkTable.chunkEnded(x.job(), x.chunkId(), ChunkState.CANCELLED));
      log.debug("job {}: chunk {} of worker {} cancelled: {}", x.job(), x.chunkId(), x.worker(), x.why());
    } else if (a instanceof Action.Withdrawn x) {
      b.store.submit(ChunkTable.chunkEnded(x.job(), x.chunkId(), ChunkState.WITHDRAWN));
    } else if (a instanceof Action.Planned p) {
      MasterJob job = b.jobs.get(p.job());
      // a re-plan that picks another strategy is stored, so the job's row keeps the one in use
      if (p.replan() == 0 || job != null && job.strategy != null && !job.strategy.equals(p.strategy())) {
        b.store.submit(JobTable.updateJob(p.job(), JobPhase.RUNNING, p.strategy(), null, null, null));
      }
    } else if (a instanceof Action.Remember r) {
      b.store.submit(JobTable.rememberJob(r.job(), r.plan(), r.checks())).whenComplete((ok, err) -> {
        if (err != null) {
          // the job goes on; its memories are written again, whole, at the next tick: said as the
          // store's other failures are, folded (a full disk fails it at every tick)
          thread.then(() -> {
            Throwable cause = StoreErrors.cause(err);
            b.storeProblems.error("remember", "job " + r.job() + ": cannot store its plan and checks for a restart"
                + " (tried again at the next tick): " + StoreErrors.reason(cause), cause);
            b.controller.memoryLost(r.job());
          });
        }
      });
    }
  }

  private void note(Action.Notice a) {
    if (a instanceof Action.Planned p) {
      b.metrics.plans.increment();
      MasterJob job = b.jobs.get(p.job());
      String before = job == null ? null : job.strategy;
      boolean changed = p.replan() > 0 && before != null && !before.equals(p.strategy());
      log.info("job {} {} with {}{} over {} workers ({}): {} units, {} expected; {}", p.job(),
          p.replan() == 0 ? "planned" : "re-planned", p.strategy(), changed ? " (was " + before + ")" : "",
          p.workers(), p.why(), p.units(), units(p.expectedWork()), p.reason());
      if (job != null) {
        job.strategy = p.strategy();
      }
    } else if (a instanceof Action.Rerouted r) {
      b.metrics.chunksRerouted.increment(r.chunks());
      log.info("job {}: {} units of {}'s work from worker {} go to {}", r.job(), r.units(), r.origin(), r.from(),
          r.to().isEmpty() ? "the shared queue (no live worker on the recovery list)" : r.to());
    } else if (a instanceof Action.Finished f) {
      MasterJob job = b.jobs.get(f.job());
      if (job != null) {
        ends.finish(job, f);
      }
    }
  }

  /**
   * Units as a log line shows them, rounded: not {@code String.format}, whose locale lookups cost a
   * tenth of the control thread's time in a run of one-chunk jobs.
   */
  private static String units(double units) {
    return Double.isFinite(units) ? Long.toString(Math.round(units)) : Double.toString(units);
  }

  /** A chunk's lease as the Assign carries it, in milliseconds. */
  private static long leaseMillis(Action.Assign x) {
    return (long) Math.min(Integer.MAX_VALUE, Math.ceil(x.lease() * 1000));
  }

  /** A batch's messages, each bound to the session of its worker when it was decided. */
  private final class Sends {
    private final List<Action.Message> messages;
    private final WorkerLink[] links;
    /** Whether the batch queues input: only then is the port held while it is sent. */
    private final boolean streams;

    Sends(List<Action.Message> messages) {
      this.messages = messages;
      this.links = new WorkerLink[messages.size()];
      boolean any = false;
      for (int i = 0; i < links.length; i++) {
        links[i] = b.links.get(messages.get(i).worker());
        any |= messages.get(i) instanceof Action.Stream;
      }
      this.streams = any;
    }

    /**
     * After the pass committed: each message to its session, if that is still the worker's; the
     * batch's input streams start together, in the port's order.
     */
    void send() {
      // a batch without input (most of a run of small jobs) does not touch the port's lock
      StreamBatch port = streams ? b.streamBatch : StreamBatch.NONE;
      port.begin();
      try {
        for (int i = 0; i < links.length; i++) {
          WorkerLink link = links[i];
          Action.Message m = messages.get(i);
          boolean recorded = unrecorded.isEmpty() || !unrecorded.contains(key(m));
          if (link != null && b.links.get(link.workerId()) == link && recorded) {
            send(link, m);
          }
        }
      } finally {
        port.end();
      }
    }

    private void send(WorkerLink link, Action.Message m) {
      if (m instanceof Action.Assign x) {
        MasterJob job = b.jobs.get(x.job());
        if (job != null) {
          link.assign(job.assignTemplate, x.chunkId(), x.start(), x.end(), x.checkpoints(), x.inputBytes(),
              (int) leaseMillis(x));
          b.metrics.chunksAssigned.increment();
        }
      } else if (m instanceof Action.Stream x) {
        MasterJob job = b.jobs.get(x.job());
        if (job != null && job.input != null) {
          boolean fromMaster = link.stream(x.job(), x.chunkId(), job.input, x.start(), x.end(), x.rank(),
              x.linkRate(), (bytes, seconds) -> b.metrics.bytesStreamed.increment(bytes));
          if (!fromMaster) {
            b.metrics.bytesFromRelays.increment(x.end() - x.start());
          }
        }
      } else if (m instanceof Action.Truncate x) {
        link.truncate(x.job(), x.chunkId(), x.end());
      } else if (m instanceof Action.Cancel x) {
        link.cancel(x.job(), x.chunkId());
      } else if (m instanceof Action.Withdrawn x) {
        // a worker that vacated stays connected: the input of the chunks taken back stops going to it
        link.stopStream(x.job(), x.chunkId());
      } else if (m instanceof Action.Drop x) {
        link.refuse(Error.Code.LEASE_EXPIRED, "worker " + x.worker() + " lost its work: " + x.why());
      }
    }
  }

  /** The chunk a message is about; null for none (a dropped session). */
  private static ChunkKey key(Action.Message m) {
    if (m instanceof Action.Assign x) {
      return new ChunkKey(x.job(), x.chunkId());
    } else if (m instanceof Action.Stream x) {
      return new ChunkKey(x.job(), x.chunkId());
    } else if (m instanceof Action.Truncate x) {
      return new ChunkKey(x.job(), x.chunkId());
    } else if (m instanceof Action.Cancel x) {
      return new ChunkKey(x.job(), x.chunkId());
    } else if (m instanceof Action.Withdrawn x) {
      return new ChunkKey(x.job(), x.chunkId());
    }
    return null;
  }
}
