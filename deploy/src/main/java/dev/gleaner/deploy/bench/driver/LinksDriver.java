package dev.gleaner.deploy.bench.driver;

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
 * units it computed and the bandwidth the master measured of its link.
 */
public final class LinksDriver {
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
      Map<String, Long> before = unitsDone(link.everything());
      long t0 = System.nanoTime();
      String id = link.submit(spec.build());
      JobStatus s = JobWaits.requireDone(waits.awaitEnd(id, Duration.ofMinutes(30)));
      double seconds = (System.nanoTime() - t0) / 1e9;
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
      out.put("result", s.getResult());
      out.put("exact", true);
      Map<String, Long> planned = new LinkedHashMap<>();
      for (WorkerShare share : s.getSharesList()) {
        planned.put(share.getWorkerId(), share.getUnits());
      }
      List<Map<String, Object>> perWorker = new ArrayList<>();
      for (WorkerStatus w : after.getWorkersList()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", w.getWorkerId());
        m.put("units", w.getUnitsDone() - before.getOrDefault(w.getWorkerId(), 0L));
        m.put("planned", planned.getOrDefault(w.getWorkerId(), 0L));
        Estimate bw = w.getBandwidth();
        m.put("bandwidthBytesPerSecond", bw.getValue());
        m.put("bandwidthObservations", bw.getObservations());
        perWorker.add(m);
      }
      out.put("workers", perWorker);
      out.put("metrics", after.getMetricsMap());
      return out;
    }
  }

  private static Map<String, Long> unitsDone(StatusReply s) {
    Map<String, Long> done = new LinkedHashMap<>();
    for (WorkerStatus w : s.getWorkersList()) {
      done.put(w.getWorkerId(), w.getUnitsDone());
    }
    return done;
  }
}
