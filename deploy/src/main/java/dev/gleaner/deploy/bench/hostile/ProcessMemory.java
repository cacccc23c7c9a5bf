package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.launch.Signals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The memory of another JVM on this machine, by its pid (Linux): resident set from
 * {@code /proc/PID/status} (VmRSS), open descriptors from {@code /proc/PID/fd}, heap in use from
 * {@code jcmd PID GC.heap_info} and, while {@link #start}ed, sampled each second by
 * {@code jstat -gc PID 1000} for the peak. A sampler thread reads RSS and descriptors every 250 ms.
 * {@link #close} ends the jstat process by its pid.
 */
final class ProcessMemory implements AutoCloseable {
  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  private final long pid;
  private volatile boolean running;
  private volatile long peakRssKiB;
  private volatile long peakFds;
  private volatile long peakHeapKiB = -1;
  private Thread sampler;
  private Process jstat;
  private Thread jstatReader;

  ProcessMemory(long pid) {
    this.pid = pid;
  }

  /** Resident set size in KiB, or -1 if the process is gone. */
  long rssKiB() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
      return -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** Open file descriptors (sockets included), or -1 if the process is gone. */
  long fds() {
    try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return s.count();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Heap in use, KiB, as {@code jcmd GC.heap_info} reports it (the sum over generations), or -1. */
  long heapUsedKiB() {
    String out = jcmd("GC.heap_info");
    long used = -1;
    for (String line : out.split("\n")) {
      if (line.contains("Metaspace") || line.contains("class space")) {
        break;
      }
      Matcher m = USED.matcher(line);
      if (line.contains("total") && m.find()) {
        used = Math.max(0, used) + Long.parseLong(m.group(1));
      }
    }
    return used;
  }

  /** Asks the JVM for a full collection ({@code jcmd GC.run}), so that the heap figure that follows is live data. */
  void collect() {
    jcmd("GC.run");
  }

  private String jcmd(String command) {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    try {
      Process p = new ProcessBuilder(List.of(jcmd, Long.toString(pid), command)).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        Signals.end(p);
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** Starts sampling: RSS and descriptors every 250 ms, the heap every second (jstat). */
  void start() throws IOException {
    running = true;
    peakRssKiB = rssKiB();
    peakFds = fds();
    sampler = new Thread(() -> {
      while (running) {
        peakRssKiB = Math.max(peakRssKiB, rssKiB());
        peakFds = Math.max(peakFds, fds());
        try {
          TimeUnit.MILLISECONDS.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "memory-sampler");
    sampler.setDaemon(true);
    sampler.start();
    String jstatPath = Path.of(System.getProperty("java.home"), "bin", "jstat").toString();
    jstat = new ProcessBuilder(List.of(jstatPath, "-gc", Long.toString(pid), "1000")).redirectErrorStream(true).start();
    jstatReader = new Thread(() -> readJstat(jstat), "jstat-reader");
    jstatReader.setDaemon(true);
    jstatReader.start();
  }

  /** Parses {@code jstat -gc} lines: heap in use is S0U + S1U + EU + OU (KiB). */
  private void readJstat(Process p) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      List<String> header = null;
      for (String line; (line = in.readLine()) != null; ) {
        List<String> cols = Arrays.asList(line.trim().split("\\s+"));
        if (cols.contains("EU")) {
          header = cols;
          continue;
        }
        if (header == null || cols.size() != header.size()) {
          continue;
        }
        try {
          double used = 0;
          for (String c : List.of("S0U", "S1U", "EU", "OU")) {
            used += Double.parseDouble(cols.get(header.indexOf(c)));
          }
          peakHeapKiB = Math.max(peakHeapKiB, (long) used);
        } catch (NumberFormatException e) {
          // a line jstat printed for another reason (the process ending)
        }
      }
    } catch (IOException e) {
      // jstat ended
    }
  }

  long peakRssKiB() {
    return Math.max(peakRssKiB, rssKiB());
  }

  long peakFds() {
    return peakFds;
  }

  /** Peak heap in use seen by jstat, KiB, or -1 if it gave nothing. */
  long peakHeapKiB() {
    return peakHeapKiB;
  }

  @Override
  public void close() {
    running = false;
    if (sampler != null) {
      sampler.interrupt();
    }
    if (jstat != null && jstat.isAlive()) {
      Signals.send(jstat.pid(), "TERM");
      if (!Signals.awaitExit(jstat, 5)) {
        Signals.end(jstat);
      }
    }
  }
}
