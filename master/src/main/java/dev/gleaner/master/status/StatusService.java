package dev.gleaner.master.status;

import dev.gleaner.common.sim.Forecast;
import dev.gleaner.master.loop.Books;
import dev.gleaner.master.loop.ControlLoop;
import dev.gleaner.master.loop.LoopListener;
import dev.gleaner.master.loop.MasterClock;
import dev.gleaner.master.loop.MasterJob;
import dev.gleaner.protocol.StatusReply;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the master shows of itself: the status replies of `gleaner status`, `jobs`, `wait` and
 * `submit`, and the web page's figures, built on the control thread from the controller's views
 * and the loop's books; a request that waits for a job's end is answered when it ends. It keeps
 * its own figures fresh at the loop's ticks: the last replies for requests the loop is too busy to
 * answer ({@link StatusSnapshots}), the units computed over the last hour ({@link ComputedHistory}),
 * and each running job's forecast ({@link Forecasts}).
 */
public final class StatusService implements LoopListener, AutoCloseable {
  // the control loop's logger, as before the status had a package of its own
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  /**
   * How long a status request waits for the loop before it is answered with the last figures the
   * loop took (see {@link StatusSnapshots}).
   */
  static final long STATUS_PATIENCE_MILLIS = 1_000;

  /** The longest a status request may wait for its job's end. */
  static final long MAX_WAIT_MS = 60_000;

  private final ControlLoop loop;
  private final MasterClock clock;
  private final StatusSnapshots snapshots = new StatusSnapshots();
  /** The units the workers computed per second over the last hour, for the web page's chart (control thread). */
  private final ComputedHistory computed = new ComputedHistory();
  /** Each running job's latest forecast (control thread). */
  private final Map<String, dev.gleaner.protocol.Forecast> forecasts = new HashMap<>();
  private final Forecasts forecaster;
  /** Ends the waits of requests that wait for a job's end. */
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "gleaner-status-waits");
    t.setDaemon(true);
    return t;
  });
  /** The registry status reads its meters from, once a status was asked. */
  private volatile MeterRegistry registry;

  /** Answers for {@code loop}, whose ticks come every {@code tickSeconds}. */
  public StatusService(ControlLoop loop, double tickSeconds, dev.gleaner.common.control.ControlConfig config) {
    this.loop = loop;
    this.clock = loop.clock();
    this.forecaster = new Forecasts(config, tickSeconds);
    loop.listen(this);
  }

  /**
   * The status reply for one job (or all), with the workers and the master's meters; for one job
   * with {@code waitMs} (at most {@link #MAX_WAIT_MS}), once it has ended or after the wait if it
   * has not, so a client following a job hears of its end when it happens. Built on the control
   * thread, or, when the loop has not come to it within {@link #STATUS_PATIENCE_MILLIS} of when it
   * was due, the last reply it built for the same request (its {@code as_of_millis} says when; the
   * first request ever of a kind has no such reply and waits).
   *
   * @param jobOnly a reply with the job's line only (no workers, meters or recovery lists)
   * @param allWorkers every worker, not the first ones (such a reply is never kept for later)
   */
  public CompletableFuture<StatusReply> status(String jobId, MeterRegistry registry, long waitMs, boolean jobOnly,
      boolean allWorkers) {
    this.registry = registry;
    if (!allWorkers) {
      snapshots.asked(jobId, clock.epochMillis());
    }
    CompletableFuture<StatusReply> out = new CompletableFuture<>();
    long wait = Math.max(0, Math.min(waitMs, MAX_WAIT_MS));
    java.util.function.Consumer<Books> answer = b -> {
      if (!out.isDone()) {
        try {
          out.complete(jobOnly && !jobId.isEmpty()
              ? StatusReport.jobOnly(b, forecasts, jobId, clock.epochMillis())
              : build(b, jobId, registry, allWorkers));
        } catch (RuntimeException e) {
          out.completeExceptionally(e);
        }
      }
    };
    loop.readSoon(b -> {
      MasterJob job = jobId.isEmpty() ? null : b.jobs().get(jobId);
      if (wait == 0 || job == null || job.ended() != null) {
        answer.accept(b);
        return;
      }
      Runnable atEnd = () -> answer.accept(b);
      job.onEnd(atEnd);
      timer.schedule(() -> loop.execute(books -> {
        job.forgetOnEnd(atEnd);
        answer.accept(books);
      }), wait, TimeUnit.MILLISECONDS);
    });
    CompletableFuture.delayedExecutor(wait + STATUS_PATIENCE_MILLIS, TimeUnit.MILLISECONDS).execute(() -> {
      // a reply of every worker is never kept: it waits for the loop
      StatusReply last = out.isDone() || allWorkers ? null : snapshots.latest(jobId);
      if (last != null) {
        out.complete(last);
      }
    });
    if (loop.closed()) {
      out.completeExceptionally(new IllegalStateException("the master is stopping"));
    }
    return out;
  }

  /** What the master's web page shows (see {@link WebStatus}), built on the control thread. */
  public CompletableFuture<WebStatus> webStatus(MeterRegistry registry) {
    return loop.read(b -> StatusReport.web(b, forecasts, registry, computed.points()));
  }

  @Override
  public void jobAdded(MasterJob job) {
    // until a status built on the loop shows it, the last figures show it queued
    snapshots.submitted(StatusReport.queued(job));
  }

  /** On the control thread at a tick: the kept replies, the forecasts and the hour's chart kept fresh. */
  @Override
  public void tick(Books b, double now) {
    // a job that ended (or was forgotten) has no forecast any more
    forecasts.keySet().removeIf(id -> {
      MasterJob j = b.jobs().get(id);
      return j == null || !j.running();
    });
    refresh(b);
    forecaster.tick(b, now, task -> loop.execute(books -> task.run()), this::forecast);
    long at = clock.epochMillis();
    if (computed.due(at)) {
      Map<String, Long> counts = new HashMap<>();
      b.links().forEach((id, link) -> counts.put(id, link.unitsComputed()));
      computed.sample(at, counts);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    forecaster.close();
  }

  /** A job's new forecast (null: none can be made), on the control thread. */
  private void forecast(String id, Forecast.Outlook f) {
    if (f == null) {
      forecasts.remove(id);
      return;
    }
    forecasts.put(id, dev.gleaner.protocol.Forecast.newBuilder().setAtMillis(clock.toMillisOrZero(f.at()))
        .setRuns(f.runs()).setUnits(f.units()).setUnitsLow(f.unitsLow()).setUnitsHigh(f.unitsHigh())
        .setFinished(f.finished()).setEndMillis(clock.toMillisOrZero(f.end()))
        .setEndLowMillis(clock.toMillisOrZero(f.endLow())).setEndHighMillis(clock.toMillisOrZero(f.endHigh()))
        .build());
  }

  /** Builds a status reply on the control thread and keeps it for requests the loop is too busy to answer. */
  private StatusReply build(Books b, String jobId, MeterRegistry registry, boolean allWorkers) {
    long t0 = System.nanoTime();
    StatusReply r = StatusReport.build(b, forecasts, registry, jobId, allWorkers, clock.epochMillis());
    if (!allWorkers) {
      snapshots.built(jobId, r, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }
    return r;
  }

  /** On a tick, while someone watches: builds the status of all jobs again (see {@link StatusSnapshots}). */
  private void refresh(Books b) {
    MeterRegistry r = registry;
    if (r == null || !snapshots.allDue(clock.epochMillis())) {
      return;
    }
    try {
      build(b, "", r, false);
    } catch (RuntimeException e) {
      log.error("control loop: cannot build the status of all jobs: {}", e.toString(), e);
    }
  }
}
