package dev.gleaner.deploy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The physical limits a bench's figures are printed beside, measured in the same run: the
 * durable write of the data directory (write + fsync of a small file; an SQLite commit in WAL
 * mode with {@code synchronous=FULL}, as the master's store commits) and the wire (iperf3's
 * single TCP stream on loopback, where iperf3 is installed).
 */
public final class PhysicalLimits {
  private static final int SAMPLES = 50;

  private PhysicalLimits() {}

  /**
   * Every limit, measured in {@code dataDir} (the folder a master keeps its store in, or one on
   * the same file system); what cannot be measured here is null, with a note in
   * {@code limitNotes} and on {@code log}.
   */
  public static Map<String, Object> measure(Path dataDir, PrintWriter log) throws IOException, SQLException {
    Files.createDirectories(dataDir);
    Map<String, Object> out = new LinkedHashMap<>();
    List<Double> fsync = fsyncMillis(dataDir, SAMPLES);
    out.put("limitFsyncMillisMedian", Samples.median(fsync));
    out.put("limitFsyncMillisP90", Samples.percentile(fsync, 90));
    List<Double> commit = sqliteCommitMillis(dataDir, SAMPLES);
    out.put("limitSqliteCommitMillisMedian", Samples.median(commit));
    out.put("limitSqliteCommitMillisP90", Samples.percentile(commit, 90));
    List<String> notes = new ArrayList<>();
    Double iperf = null;
    try {
      iperf = iperf3MBps(3);
    } catch (IllegalStateException | IOException e) {
      notes.add("iperf3 skipped: " + e.getMessage());
      log.println("iperf3 skipped: " + e.getMessage());
    }
    out.put("limitIperf3SingleStreamMBps", iperf);
    out.put("limitNotes", notes);
    return out;
  }

  /**
   * For people: the limit measured in this run that a figure of {@code gleaner bench} should be
   * read against, or "" if none. A chunk round trip makes at least one durable commit at the
   * master (grouped commits may share one); streaming is bounded by the wire.
   */
  public static String beside(String figure, Map<String, Object> figures) {
    Object commit = figures.get("limitSqliteCommitMillisMedian");
    Object iperf = figures.get("limitIperf3SingleStreamMBps");
    Object plain = figures.get("plainSocketCopyMBps");
    String wire = iperf instanceof Double d ? String.format(java.util.Locale.ROOT, "iperf3 single stream %.0f MB/s", d)
        : "iperf3 not measured";
    if (figure.startsWith("roundTripsPerSecond") && commit instanceof Double ms) {
      return String.format(java.util.Locale.ROOT, "limit: one SQLite commit %.2f ms (%.0f serial commits/s)", ms, 1000 / ms);
    }
    if (figure.equals("streamingMBps")) {
      return "limit: " + (plain instanceof Double p ? String.format(java.util.Locale.ROOT, "plain copy %.0f MB/s, ", p) : "")
          + wire;
    }
    if (figure.equals("plainSocketCopyMBps")) {
      return "limit: " + wire;
    }
    return "";
  }

  /** Milliseconds to write 4 KiB to a file in {@code dir} and force it to the disk, {@code n} times. */
  static List<Double> fsyncMillis(Path dir, int n) throws IOException {
    Path file = Files.createTempFile(dir, "fsync-", ".bin");
    ByteBuffer block = ByteBuffer.wrap(new byte[4096]);
    List<Double> out = new ArrayList<>(n);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      for (int i = 0; i < n; i++) {
        block.clear();
        long t0 = System.nanoTime();
        ch.write(block, (long) i * block.capacity());
        ch.force(true);
        out.add((System.nanoTime() - t0) / 1e6);
      }
    } finally {
      Files.deleteIfExists(file);
    }
    return out;
  }

  /** Milliseconds per committed one-row insert into an SQLite file in {@code dir} (WAL, synchronous=FULL). */
  static List<Double> sqliteCommitMillis(Path dir, int n) throws IOException, SQLException {
    Path sub = Files.createTempDirectory(dir, "sqlite-");
    Path db = sub.resolve("limits.db");
    List<Double> out = new ArrayList<>(n);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=FULL");
        s.execute("CREATE TABLE pieces(id INTEGER PRIMARY KEY, result BLOB)");
      }
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO pieces(id, result) VALUES (?, ?)")) {
        byte[] row = "a piece's result".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < n; i++) {
          insert.setInt(1, i);
          insert.setBytes(2, row);
          long t0 = System.nanoTime();
          insert.executeUpdate();
          out.add((System.nanoTime() - t0) / 1e6);
        }
      }
    } finally {
      for (String suffix : List.of("", "-wal", "-shm")) {
        Files.deleteIfExists(sub.resolve("limits.db" + suffix));
      }
      Files.deleteIfExists(sub);
    }
    return out;
  }

  /**
   * iperf3's single TCP stream on loopback for {@code seconds}, in MB/s (10^6 bytes) received:
   * a one-off server ({@code -s -1}) on a free port and a client ({@code -c 127.0.0.1 -J}).
   *
   * @throws IllegalStateException where iperf3 is not installed or fails
   */
  static double iperf3MBps(int seconds) throws IOException {
    String iperf = onPath("iperf3");
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    Path serverLog = Files.createTempFile("gleaner-iperf3-", ".log");
    Process server = new ProcessBuilder(iperf, "-s", "-1", "--forceflush", "-B", "127.0.0.1", "-p",
        Integer.toString(port)).redirectErrorStream(true).redirectOutput(serverLog.toFile()).start();
    try {
      awaitListening(serverLog, server);
      Path clientOut = Files.createTempFile("gleaner-iperf3-", ".json");
      byte[] json;
      Process client = new ProcessBuilder(iperf, "-c", "127.0.0.1", "-p", Integer.toString(port),
          "-t", Integer.toString(seconds), "-J").redirectError(ProcessBuilder.Redirect.DISCARD)
          .redirectOutput(clientOut.toFile()).start();
      try {
        if (!client.waitFor(seconds + 20L, TimeUnit.SECONDS)) {
          throw new IllegalStateException("iperf3 -c did not end within " + (seconds + 20) + " s");
        }
        json = Files.readAllBytes(clientOut);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while iperf3 ran", e);
      } finally {
        client.destroyForcibly();
        Files.deleteIfExists(clientOut);
      }
      JsonNode root = new ObjectMapper().readTree(json);
      if (root.hasNonNull("error")) {
        throw new IllegalStateException("iperf3 -c failed: " + root.get("error").asText());
      }
      JsonNode bps = root.path("end").path("sum_received").path("bits_per_second");
      if (!bps.isNumber()) {
        throw new IllegalStateException("iperf3 -J printed no end.sum_received.bits_per_second");
      }
      return bps.asDouble() / 8 / 1e6;
    } finally {
      server.destroyForcibly();
      Files.deleteIfExists(serverLog);
    }
  }

  /** Waits (at most 10 s) until the server says it listens; throws if it exits first. */
  private static void awaitListening(Path serverLog, Process server) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      String said = Files.readString(serverLog, StandardCharsets.UTF_8);
      if (said.contains("Server listening")) {
        return;
      }
      if (!server.isAlive()) {
        throw new IllegalStateException("iperf3 -s exited with status " + server.exitValue() + ": " + said.strip());
      }
      try {
        TimeUnit.MILLISECONDS.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for iperf3 -s", e);
      }
    }
    throw new IllegalStateException("iperf3 -s did not say it listens within 10 s");
  }

  private static String onPath(String program) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(java.io.File.pathSeparator)) {
        Path p = Path.of(d.isEmpty() ? "." : d, program);
        if (Files.isExecutable(p)) {
          return p.toString();
        }
      }
    }
    throw new IllegalStateException(program + " is not installed (apt-get install " + program + ")");
  }
}
