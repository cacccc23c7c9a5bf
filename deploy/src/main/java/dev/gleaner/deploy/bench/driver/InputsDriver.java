package dev.gleaner.deploy.bench.driver;

import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Many inputs: one {@code wc} job per regular file of a folder the master serves, each job one
 * chunk (strategy {@code self}, its chunk size its file's size: a task per file), all submitted at once over one
 * connection; the figure is MiB/s from the first submit to the last DONE seen, and the master's
 * CPU seconds over the same span when its process id is given. Eight of the jobs run first,
 * untimed, to warm up.
 */
public final class InputsDriver {
  private final DriverConnection.Connector connector;
  private final Path dir;
  private final long masterPid;

  /** {@code masterPid} 0: the master's CPU time is not measured (it runs elsewhere). */
  public InputsDriver(DriverConnection.Connector connector, Path dir, long masterPid) {
    this.connector = connector;
    this.dir = dir;
    this.masterPid = masterPid;
  }

  public Map<String, Object> run() throws Exception {
    List<Path> files = files(dir);
    try (DriverConnection link = connector.connect()) {
      JobWaits waits = new JobWaits(link);
      List<String> warm = new ArrayList<>();
      for (Path f : files.subList(0, Math.min(8, files.size()))) {
        warm.add(link.submit(job(f)));
      }
      waits.awaitAll(warm, Duration.ofMinutes(5)).forEach(JobWaits::requireDone);
      double cpu0 = masterPid > 0 ? CpuClock.seconds(masterPid) : Double.NaN;
      long t0 = System.nanoTime();
      List<String> ids = new ArrayList<>(files.size());
      for (Path f : files) {
        ids.add(link.submit(job(f)));
      }
      List<JobStatus> ends = waits.awaitAll(ids, Duration.ofMinutes(30));
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpu = masterPid > 0 ? CpuClock.seconds(masterPid) - cpu0 : Double.NaN;
      long bytes = 0;
      for (int i = 0; i < files.size(); i++) {
        JobStatus s = JobWaits.requireDone(ends.get(i));
        String expected = LocalCounts.wc(files.get(i));
        if (!s.getResult().equals(expected)) {
          throw new IllegalStateException("job " + s.getJobId() + " on " + files.get(i) + " answered '" + s.getResult()
              + "', expected '" + expected + "'");
        }
        bytes += Files.size(files.get(i));
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("workload", "inputs");
      out.put("files", files.size());
      out.put("bytes", bytes);
      out.put("seconds", seconds);
      out.put("mibPerSecond", bytes / (double) (1 << 20) / seconds);
      out.put("masterCpuSeconds", Double.isNaN(cpu) ? null : cpu);
      out.put("exact", true);
      return out;
    }
  }

  private static JobSpec job(Path f) throws IOException {
    return JobSpec.newBuilder().setName("bench-inputs").setWorkload("wc").putParams("file", f.toString())
        .setStrategy("self").setChunkUnits(Math.max(1, Files.size(f))).build();
  }

  private static List<Path> files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--dir " + dir + " is not a directory");
    }
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> files = s.filter(Files::isRegularFile).map(Path::toAbsolutePath).sorted().toList();
      if (files.isEmpty()) {
        throw new IllegalArgumentException("--dir " + dir + " holds no regular file");
      }
      return files;
    }
  }
}
