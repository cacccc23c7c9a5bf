package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.client.MasterClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real client: every second, a fresh connection and login, and {@code status}; each latency or failure. */
final class StatusProbe implements Runnable {
  private final HostileCluster cluster;
  private volatile boolean running = true;
  final List<Double> millis = Collections.synchronizedList(new ArrayList<>());
  final List<String> failures = Collections.synchronizedList(new ArrayList<>());

  StatusProbe(HostileCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public void run() {
    while (running) {
      long t0 = System.nanoTime();
      try (MasterClient c = cluster.client()) {
        c.status(null);
        millis.add((System.nanoTime() - t0) / 1e6);
      } catch (IOException | RuntimeException e) {
        failures.add(String.valueOf(e.getMessage()));
      }
      long left = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - t0);
      if (left > 0 && running) {
        try {
          TimeUnit.NANOSECONDS.sleep(left);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  void stop() {
    running = false;
  }
}
