package dev.gleaner.deploy.bench.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The links bench waits for its daemons to be quiet before a run: a process that only sleeps is
 * quiet, one that spins a core never is (the bench goes on after its limit and says so), and a
 * process that has ended counts no more.
 */
class SettleTest {
  private static Process start(String script) throws Exception {
    return new ProcessBuilder("sh", "-c", script).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static void end(Process p) throws InterruptedException {
    p.destroyForcibly();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "process " + p.pid() + " did not end");
  }

  @Test
  void aSleepingProcessIsQuiet() throws Exception {
    Process sleeping = start("exec sleep 60");
    try {
      List<String> said = new ArrayList<>();
      double waited = Settle.await(List.of(sleeping.pid()), Duration.ofSeconds(30), (f, a) -> said.add(f));
      assertFalse(Double.isNaN(waited), "a sleeping process was taken as busy");
      assertTrue(said.isEmpty(), said.toString());
    } finally {
      end(sleeping);
    }
  }

  @Test
  void aSpinningProcessIsNotAndTheBenchSaysSo() throws Exception {
    Process spinning = start("while :; do :; done");
    try {
      List<String> said = new ArrayList<>();
      double waited = Settle.await(List.of(spinning.pid()), Duration.ofSeconds(2),
          (f, a) -> said.add(String.format(f, a)));
      assertTrue(Double.isNaN(waited), "a process spinning a core was taken as quiet after " + waited + " s");
      assertEquals(1, said.size());
      assertTrue(said.get(0).contains("running all the same"), said.get(0));
    } finally {
      end(spinning);
    }
  }

  @Test
  void aProcessThatEndedCountsNoMore() throws Exception {
    Process ended = start("exit 0");
    assertTrue(ended.waitFor(10, TimeUnit.SECONDS));
    double waited = Settle.await(List.of(ended.pid()), Duration.ofSeconds(30), (f, a) -> { });
    assertFalse(Double.isNaN(waited));
  }
}
