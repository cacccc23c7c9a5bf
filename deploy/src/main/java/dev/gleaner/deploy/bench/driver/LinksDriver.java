package dev.gleaner.deploy.bench.driver;

import dev.gleaner.deploy.bench.MasterTimers;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.protocol.Estimate;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerShare;
import dev.gleaner.protocol.WorkerStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A data-heavy job across links that differ (run inside the testbed's master namespace by
 * {@code gleaner bench --links}): one {@code wc} job over a file the master serves, with the strategy
 * given, once {@code workers} workers have joined. The figures: the seconds from submit to DONE, the
 * answer checked against a plain count, the plan's strategy and reason, and for each worker the
 * units it computed and the bandwidth the master measured of its link; and, read from the master's
 * status every {@link #SAMPLE_MILLIS} while the job runs, each worker's link estimate whenever it
 * counted a new transfer (epoch millis, bytes/s, transfers).
 */
public final class LinksDriver {
  /** How often the link estimates are read while the job runs. */
  static final long SAMPLE_MILLIS = 100;

  private final DriverConnection.Connector connector;
  private final Path file;
  private final String strategy;
  private final long chunkBytes;
  private final int workers;

  public LinksDriver(DriverConnection.Connector connector, Path file, String strategy, long chunkBytes, int workers) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("--file " + file + " is not a regular file");
    }
    this.connector = connector;
    this.file = file.toAbsolutePath();
    this.strategy = strategy;
    this.chunkBytes = chunkBytes;
    this.workers = Math.max(1, workers);
  }

  public Map<String, Object> run() throws Exception {
    JobSpec.Builder spec = JobSpec.newBuilder().setName("bench-links").setWorkload("wc")
        .putParams("file", file.toString()).setMinWorkers(workers).setChunkUnits(chunkBytes);
    if (!strategy.isEmpty()) {
      spec.setStrategy(strategy);
    }
    try (DriverConnection link = connector.connect()) {
      JobWaits waits = new JobWaits(link);
      // every worker READY (workers started again for the run join now), then what the master knew before
      WorkersJoined.awaitWorkers(link::everything, workers, Duration.ofSeconds(120), WorkersJoined.Launched.IN_PROCESS);
      StatusReply first = link.everything();
      Map<String, WorkerStatus> before = byId(first);
      long t0 = System.nanoTime();
      String id = link.submit(spec.build());
      // the bench times a link change from here (DriverLog)
      System.err.println("links driver: submitted " + id);
      System.err.flush();
      Map<String, List<List<Number>>> estimates = new LinkedHashMap<>();
      java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
      Thread sampler = new Thread(() -> sample(estimates, ended), "links-estimates");
      sampler.start();
      JobStatus s;
      double seconds;
      try {
        s = JobWaits.requireDone(waits.awaitEnd(id, Duration.ofMinutes(30)));
        // the run's time ends when DONE is seen, not when the sampler has woken to see it end
        seconds = (System.nanoTime() - t0) / 1e9;
      } finally {
        ended.set(true);
        sampler.join(10_000);
      }
      String expected = LocalCounts.wc(file);
      if (!s.getResult().equals(expected)) {
        throw new IllegalStateException("job " + id + " answered '" + s.getResult() + "', expected '" + expected + "'");
      }
      StatusReply after = link.everything();
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("workload", "links");
      out.put("bytes", Files.size(file));
      out.put("strategy", s.getStrategy());
      out.put("planReason", s.getPlanReason());
      out.put("replans", s.getReplans());
      out.put("seconds", seconds);
      out.put("masterSeconds", (s.getFinishedAtMillis() - s.getSubmittedAtMillis()) / 1000.0);
      out.put("submittedAtMillis", s.getSubmittedAtMillis());
      out.put("result", s.getResult());
      out.put("exact", true);
      Map<String, Long> planned = new LinkedHashMap<>();
      for (WorkerShare share : s.getSharesList()) {
        planned.put(share.getWorkerId(), share.getUnits());
      }
      List<Map<String, Object>> perWorker = new ArrayList<>();
      int interruptions = 0;
      for (WorkerStatus w : after.getWorkersList()) {
        WorkerStatus was = before.getOrDefault(w.getWorkerId(), WorkerStatus.getDefaultInstance());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", w.getWorkerId());
        m.put("units", w.getUnitsDone() - was.getUnitsDone());
        m.put("planned", planned.getOrDefault(w.getWorkerId(), 0L));
        Estimate bw = w.getBandwidth();
        m.put("bandwidthBytesPerSecond", bw.getValue());
        m.put("bandwidthObservations", bw.getObservations());
        // what the master knew of its link when the job was submitted: its plan rests on it
        Estimate bwBefore = was.getBandwidth();
        m.put("bandwidthBefore", bwBefore.getObservations() > 0 ? bwBefore.getValue() : Double.NaN);
        Estimate speed = w.getSpeedsMap().get("wc");
        m.put("speed", speed == null ? Double.NaN : speed.getValue());
        // what the master knew of its interruptions when the job was submitted, and how many it met
        m.put("riskInterruptionsBefore", was.getRiskInterruptions());
        m.put("riskExposureSecondsBefore", was.getRiskExposureSeconds());
        m.put("riskRate", w.getRiskRate());
        m.put("interruptions", w.getInterruptions() - was.getInterruptions());
        interruptions += w.getInterruptions() - was.getInterruptions();
        perWorker.add(m);
      }
      out.put("interruptions", interruptions);
      out.put("workers", perWorker);
      synchronized (estimates) {
        out.put("estimates", estimates);
      }
      out.put("metrics", after.getMetricsMap());
      // the streams' handovers in this run: the master's timer since it started, less what it held before
      out.put("handovers", MasterTimers.count(first, after, "gleaner.port.handover"));
      out.put("handoverSeconds", MasterTimers.meanMs(first, after, "gleaner.port.handover") / 1000);
      // the checkpoint round trip as the master measured it: its pieces' sizes rest on it under risk
      out.put("eps", after.hasEps() && after.getEps().getObservations() > 0 ? after.getEps().getValue() : Double.NaN);
      return out;
    }
  }

  /**
   * Reads every worker's link estimate until {@code ended}, over a connection of its own, noting each
   * new count of transfers; at most 30 minutes' worth of readings.
   */
  private void sample(Map<String, List<List<Number>>> estimates, java.util.concurrent.atomic.AtomicBoolean ended) {
    try (DriverConnection c = connector.connect()) {
      for (long i = 0; i < 30 * 60 * 1000 / SAMPLE_MILLIS && !ended.get(); i++) {
        long now = System.currentTimeMillis();
        for (WorkerStatus w : c.everything().getWorkersList()) {
          Estimate bw = w.getBandwidth();
          synchronized (estimates) {
            List<List<Number>> mine = estimates.computeIfAbsent(w.getWorkerId(), k -> new ArrayList<>());
            if (bw.getObservations() > 0 && (mine.isEmpty()
                || mine.get(mine.size() - 1).get(2).longValue() != bw.getObservations())) {
              mine.add(List.of(now, bw.getValue(), bw.getObservations()));
            }
          }
        }
        Thread.sleep(SAMPLE_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // the figures lose their trajectory, not the run its answer: said in the driver's log
      System.err.println("links driver: stopped reading the link estimates: " + e);
    }
  }

  private static Map<String, WorkerStatus> byId(StatusReply s) {
    Map<String, WorkerStatus> byId = new LinkedHashMap<>();
    for (WorkerStatus w : s.getWorkersList()) {
      byId.put(w.getWorkerId(), w);
    }
    return byId;
  }
}
