package dev.gleaner.master.status;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Outset;
import dev.gleaner.common.sim.Forecast;
import dev.gleaner.master.loop.Books;
import dev.gleaner.master.loop.MasterJob;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each running job's forecast fresh ({@link Forecast}): at a tick, the loop hands the jobs'
 * outsets to a thread of its own, which runs the simulator forward (the jobs of one workload together,
 * each with the share of the workers the controller gives it) and posts the outlooks back.
 * One round of forecasts at a time, and the next one starts ten times as long as the last took
 * after it started (at least {@link #PERIOD} seconds): the forecasts take a tenth of one core on
 * average, whatever the fleet's size. A job gets its first forecast once it has run for
 * {@link #PERIOD} seconds: one that ends sooner would pay for a forecast nobody reads (on a small
 * machine, a forecast of a job of 20,000 tiny chunks took more of the master's CPU than the job).
 */
final class Forecasts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Forecasts.class);

  /** Seconds at least between two rounds of forecasts (the loop's clock). */
  static final double PERIOD = 5;
  /**
   * Workers beyond which no forecast is made: each simulated run re-plans at every join and loss,
   * which on thousands of workers takes a core for minutes, and the hand-out comes first.
   */
  static final int MAX_FLEET = 500;

  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "gleaner-forecast");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    return t;
  });
  private final ControlConfig config;
  private final double tickSeconds;
  /** The loop's thread only. */
  private boolean running;
  private double nextAt;
  private long rounds;
  /** The forecast's thread only. */
  private boolean failedOnce;
  /** Jobs told to have too many workers for a forecast (the forecast's thread only). */
  private final java.util.Set<String> toldTooLarge = new java.util.HashSet<>();

  Forecasts(ControlConfig config, double tickSeconds) {
    this.config = config;
    this.tickSeconds = tickSeconds;
  }

  /**
   * At a tick, on the loop's thread: when a round is due, takes the running jobs' outsets and
   * starts the round; {@code done} gets each job's outlook (null: no worker can take it) on the
   * loop's thread, through {@code post}.
   */
  void tick(Books books, double now, Consumer<Runnable> post, Done done) {
    if (running || now < nextAt) {
      return;
    }
    List<Outset> outsets = new ArrayList<>();
    java.util.Set<String> reported = new java.util.HashSet<>();
    long young = books.clock().epochMillis() - Math.round(PERIOD * 1000);
    for (MasterJob j : books.jobs().values()) {
      if (j.running()) {
        Outset o = books.controller().views().outset(j.id, now);
        if (o != null) {
          // a young job is run forward with the others (it takes its share of the workers), not reported yet
          outsets.add(o);
          if (j.submittedAtMillis <= young) {
            reported.add(j.id);
          }
        } else if (j.submittedAtMillis <= young) {
          // every unit saved (its checks may still run), or ended: the last forecast says nothing any more
          done.forecast(j.id, null);
        }
      }
    }
    if (reported.isEmpty()) {
      return;
    }
    running = true;
    long round = ++rounds;
    // the jobs share the workers as the controller shares them: by owners' weights, priorities, arrival
    java.util.Map<String, Double> shares = books.controller().shares();
    thread.execute(() -> {
      long t0 = System.nanoTime();
      List<Runnable> results = new ArrayList<>();
      try {
        java.util.Map<String, Forecast.Outlook> outlooks = outlooks(outsets, shares, round);
        for (Outset o : outsets) {
          if (reported.contains(o.job().id())) {
            Forecast.Outlook f = outlooks.get(o.job().id());
            results.add(() -> done.forecast(o.job().id(), f));
          }
        }
      } finally {
        // whatever happened (an Error too), the next round can come: the loop hears of this one's end
        double took = (System.nanoTime() - t0) / 1e9;
        post.accept(() -> {
          running = false;
          nextAt = now + Math.max(PERIOD, 10 * took);
          results.forEach(Runnable::run);
        });
      }
    });
  }

  /**
   * Each job's outlook (none for a job more workers can take than {@link #MAX_FLEET}), the jobs of
   * one workload run forward together ({@link Forecast#runTogether}), so that each counts the others.
   */
  private java.util.Map<String, Forecast.Outlook> outlooks(List<Outset> outsets, java.util.Map<String, Double> shares,
      long round) {
    List<Outset> fit = new ArrayList<>();
    for (Outset o : outsets) {
      if (o.hosts().size() > MAX_FLEET) {
        if (toldTooLarge.add(o.job().id())) {
          log.info("job {}: no forecast: {} workers can take it, more than the {} a forecast runs forward",
              o.job().id(), o.hosts().size(), MAX_FLEET);
        }
      } else {
        fit.add(o);
      }
    }
    try {
      return Forecast.runTogether(fit, shares, config, tickSeconds, Forecast.RUNS, round * 31L);
    } catch (RuntimeException e) {
      // a forecast that cannot be made is no reason to stop the jobs: said once, with its cause
      if (!failedOnce) {
        failedOnce = true;
        log.warn("jobs {}: no forecast: {}", fit.stream().map(o -> o.job().id()).toList(), e.toString(), e);
      } else {
        log.debug("no forecast", e);
      }
      return java.util.Map.of();
    }
  }

  /** Where the outlooks go. */
  @FunctionalInterface
  interface Done {
    void forecast(String job, Forecast.Outlook outlook);
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
