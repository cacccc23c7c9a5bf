package dev.gleaner.deploy.bench;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A multi-GB file streamed from the master (this JVM) to worker JVMs running {@code wc}: MB/s and the
 * master's peak heap, next to a plain socket copy of the same bytes on loopback, the limit it is
 * set beside.
 */
final class StreamBench {
  private final double gib;
  private final int workers;
  private final PrintWriter progress;

  /** A file of {@code gib} GiB to {@code workers} worker JVMs; progress lines to {@code progress}. */
  StreamBench(double gib, int workers, PrintWriter progress) {
    this.gib = gib;
    this.workers = workers;
    this.progress = progress;
  }

  /** Writes the file in {@code dir}, copies it, streams it; the figures. */
  Map<String, Object> run(Path dir) throws Exception {
    Map<String, Object> figures = new LinkedHashMap<>();
    Path file = dir.resolve("stream.txt");
    long bytes = (long) (gib * (1L << 30));
    note("writing a %.1f GiB file ...", gib);
    TextFile.write(file, bytes);
    double plain = plainCopy(file);
    figures.put("plainSocketCopyMBps", plain);
    Map<String, Double> stream = stream(dir, file);
    figures.putAll(stream);
    figures.put("streamingVsPlainCopy", stream.get("streamingMBps") / plain);
    return figures;
  }

  /** The same bytes through a plain socket on loopback: read the file, write the socket, read and drop. */
  private double plainCopy(Path file) throws Exception {
    note("plain socket copy ...");
    long size = Files.size(file);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread sink = new Thread(() -> {
        try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
          byte[] buf = new byte[256 * 1024];
          while (in.read(buf) >= 0) {
            // drop
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }, "bench-sink");
      sink.start();
      long t0 = System.nanoTime();
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
           OutputStream out = s.getOutputStream();
           FileChannel in = FileChannel.open(file)) {
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        while (in.read(buf) >= 0) {
          buf.flip();
          out.write(buf.array(), 0, buf.limit());
          buf.clear();
        }
      }
      sink.join(TimeUnit.MINUTES.toMillis(5));
      return size / 1e6 / ((System.nanoTime() - t0) / 1e9);
    }
  }

  /** Streams the file through the master to worker JVMs running {@code wc}; MB/s and peak heap. */
  private Map<String, Double> stream(Path dir, Path file) throws Exception {
    note("streaming through Gleaner to %d worker JVMs ...", workers);
    Path secretFile = Files.write(dir.resolve("secret"), BenchJobs.secret());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("stream-data"),
        BenchJobs.secret(), Workloads.of()).withServe(dir);
    try (MasterServer master = new MasterServer(config).start(); WorkerProcesses jvms = new WorkerProcesses(dir)) {
      for (int i = 0; i < workers; i++) {
        jvms.start("stream-" + i, master.port(), secretFile, 1, 1, "256m");
      }
      WorkersJoined.awaitWorkers(() -> master.status(null), workers, Duration.ofSeconds(60), jvms);
      // warm the worker JVMs up (JIT) on a small file, so the figure is the steady state
      Path warm = dir.resolve("warm-up.txt");
      TextFile.write(warm, 256L << 20);
      BenchJobs.run(master, JobSpec.newBuilder().setWorkload("wc").putParams("file", warm.toString())
          .setChunkUnits(16L << 20).setMinWorkers(workers).build(), Duration.ofMinutes(5));
      Files.delete(warm);
      System.gc();
      List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP).toList();
      heap.forEach(MemoryPoolMXBean::resetPeakUsage);
      JobSpec spec = JobSpec.newBuilder().setWorkload("wc").putParams("file", file.toString())
          .setChunkUnits(64L << 20).setMinWorkers(workers).build();
      long t0 = System.nanoTime();
      JobStatus s = BenchJobs.run(master, spec, Duration.ofMinutes(20));
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!s.getState().equals("DONE")) {
        throw new IllegalStateException("streaming job " + s.getState() + ": " + s.getMessage());
      }
      long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
      Map<String, Double> out = new LinkedHashMap<>();
      out.put("streamingMBps", Files.size(file) / 1e6 / seconds);
      out.put("masterPeakHeapMiB", peak / (double) (1 << 20));
      return out;
    }
  }

  private void note(String format, Object... args) {
    progress.printf(Locale.ROOT, format + "%n", args);
  }
}
