package dev.gleaner.deploy.bench.driver;

import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One big stream: a {@code wc} job over one file the master serves, in chunks of
 * {@code chunkBytes} (strategy {@code self}; a {@code wc} unit is a byte), waiting for {@code workers} workers; the
 * figure is MiB/s from submit to DONE seen. The same job runs once first, untimed, to warm up.
 */
public final class StreamDriver {
  private final DriverConnection.Connector connector;
  private final Path file;
  private final long chunkBytes;
  private final int workers;
  private final boolean warmUp;

  public StreamDriver(DriverConnection.Connector connector, Path file, long chunkBytes, int workers, boolean warmUp) {
    if (chunkBytes < 1) {
      throw new IllegalArgumentException("the chunk size must be positive, got " + chunkBytes);
    }
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("--file " + file + " is not a regular file");
    }
    this.connector = connector;
    this.file = file.toAbsolutePath();
    this.chunkBytes = chunkBytes;
    this.workers = Math.max(1, workers);
    this.warmUp = warmUp;
  }

  public Map<String, Object> run() throws Exception {
    JobSpec spec = JobSpec.newBuilder().setName("bench-stream").setWorkload("wc").putParams("file", file.toString())
        .setStrategy("self").setChunkUnits(chunkBytes).setMinWorkers(workers).build();
    try (DriverConnection link = connector.connect()) {
      JobWaits waits = new JobWaits(link);
      if (warmUp) {
        JobWaits.requireDone(waits.awaitEnd(link.submit(spec), Duration.ofMinutes(10)));
      }
      long t0 = System.nanoTime();
      String id = link.submit(spec);
      JobStatus s = JobWaits.requireDone(waits.awaitEnd(id, Duration.ofMinutes(30)));
      double seconds = (System.nanoTime() - t0) / 1e9;
      String expected = LocalCounts.wc(file);
      if (!s.getResult().equals(expected)) {
        throw new IllegalStateException("job " + id + " answered '" + s.getResult() + "', expected '" + expected + "'");
      }
      long bytes = Files.size(file);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("workload", "stream");
      out.put("bytes", bytes);
      out.put("chunkBytes", chunkBytes);
      out.put("seconds", seconds);
      out.put("mibPerSecond", bytes / (double) (1 << 20) / seconds);
      out.put("result", s.getResult());
      out.put("exact", true);
      return out;
    }
  }
}
