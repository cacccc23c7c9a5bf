package dev.gleaner.deploy.testbed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What crossed each link of a {@link Testbed}, read off the wire: the byte counters of the bridge's
 * ports ({@code ip -s -j link} in the bridge's namespace), sampled every {@code period} by a thread
 * of its own, from {@link #start} to {@link #stop}. Bytes a port transmits went to its worker; bytes
 * the master's port receives are what the master sent. It knows nothing of Gleaner: it is the
 * physical record a run's figures are checked against.
 */
public final class LinkMeter implements AutoCloseable {
  /** One sample: seconds since the meter started, and bytes so far to each worker (index 0: the master's uplink). */
  public record Sample(double seconds, long[] bytes) {}

  /** What one link carried during the sampled time. */
  public record Usage(long bytes, double firstSeconds, double lastSeconds, double busySeconds) {
    /** Mean rate while it carried data (bytes/s), NaN if it carried none. */
    public double busyRate() {
      return busySeconds > 0 ? bytes / busySeconds : Double.NaN;
    }
  }

  /** The samples to take at most (an hour at 100 ms). */
  private static final int MAX_SAMPLES = 36_000;

  private final Testbed bed;
  private final long periodNanos;
  private final List<Sample> samples = new ArrayList<>();
  private final ObjectMapper json = new ObjectMapper();
  private Thread thread;
  private volatile boolean stop;
  private long t0;

  public LinkMeter(Testbed bed, java.time.Duration period) {
    this.bed = bed;
    this.periodNanos = period.toNanos();
  }

  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("the meter is already started");
    }
    t0 = System.nanoTime();
    thread = new Thread(this::loop, "link-meter");
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    long next = System.nanoTime();
    while (!stop) {
      Sample s = sample();
      synchronized (this) {
        samples.add(s);
        if (samples.size() >= MAX_SAMPLES) {
          return;
        }
      }
      next += periodNanos;
      LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
    }
  }

  /** The counters now. */
  private Sample sample() {
    int n = bed.workers();
    long[] bytes = new long[n + 1];
    String out = NetCommands.run("ip", "-n", bed.bridgeNamespace(), "-s", "-j", "link", "show");
    double seconds = (System.nanoTime() - t0) / 1e9;
    try {
      for (JsonNode link : json.readTree(out)) {
        String name = link.path("ifname").asText();
        JsonNode stats = link.path("stats64");
        if (name.equals("vm")) {
          bytes[0] = stats.path("rx").path("bytes").asLong();
        } else if (name.matches("vw[0-9]+")) {
          int i = Integer.parseInt(name.substring(2));
          if (i >= 1 && i <= n) {
            bytes[i] = stats.path("tx").path("bytes").asLong();
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot read ip's link statistics: " + e.getMessage(), e);
    }
    return new Sample(seconds, bytes);
  }

  /** Stops sampling (after one last sample); the samples taken. */
  public List<Sample> stop() {
    stop = true;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      samples.add(sample());
      return List.copyOf(samples);
    }
  }

  @Override
  public void close() {
    stop = true;
  }

  /**
   * Per link (0 the master's uplink, then each worker's), what it carried: a sampling period counts
   * as busy for a link when it carried more than {@code idleBytes} in it.
   */
  public static Map<Integer, Usage> usage(List<Sample> samples, long idleBytes) {
    Map<Integer, Usage> out = new LinkedHashMap<>();
    if (samples.size() < 2) {
      return out;
    }
    int links = samples.get(0).bytes().length;
    for (int l = 0; l < links; l++) {
      long total = 0;
      double first = Double.NaN;
      double last = Double.NaN;
      double busy = 0;
      for (int k = 1; k < samples.size(); k++) {
        long d = samples.get(k).bytes()[l] - samples.get(k - 1).bytes()[l];
        if (d > idleBytes) {
          if (Double.isNaN(first)) {
            first = samples.get(k - 1).seconds();
          }
          last = samples.get(k).seconds();
          busy += samples.get(k).seconds() - samples.get(k - 1).seconds();
          total += d;
        }
      }
      out.put(l, new Usage(total, first, last, busy));
    }
    return out;
  }

  /**
   * The seconds during which at least {@code k} worker links were busy at once (carried more than
   * {@code idleBytes} in a period): how much the master's sending overlapped.
   */
  public static double overlapSeconds(List<Sample> samples, long idleBytes, int k) {
    double seconds = 0;
    for (int s = 1; s < samples.size(); s++) {
      int busy = 0;
      long[] a = samples.get(s - 1).bytes();
      long[] b = samples.get(s).bytes();
      for (int l = 1; l < a.length; l++) {
        if (b[l] - a[l] > idleBytes) {
          busy++;
        }
      }
      if (busy >= k) {
        seconds += samples.get(s).seconds() - samples.get(s - 1).seconds();
      }
    }
    return seconds;
  }
}
