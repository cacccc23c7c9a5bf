package dev.gleaner.deploy.bench;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** What the loopback benches share: their secret, and a job run to its end on a master in this JVM. */
final class BenchJobs {
  private BenchJobs() {}

  /** The shared secret of the loopback benches' masters. */
  static byte[] secret() {
    return "bench-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);
  }

  /** Submits {@code spec} over a client connection, polls the master until the job ends; throws after {@code max}. */
  static JobStatus run(MasterServer master, JobSpec spec, Duration max) throws Exception {
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()), secret())) {
      String id = c.submit(spec);
      long deadline = System.nanoTime() + max.toNanos();
      while (System.nanoTime() < deadline) {
        JobStatus s = master.status(id).getJobs(0);
        if (StatusView.ended(s.getState())) {
          return s;
        }
        TimeUnit.MILLISECONDS.sleep(10);
      }
      throw new IllegalStateException("job did not end within " + max);
    }
  }
}
