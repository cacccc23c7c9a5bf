package dev.gleaner.common.time;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void waitsDoubleWithJitterUpToTheCapAndRestartAfterReset() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5), new SplittableRandom(7));
    long expected = 100;
    for (int i = 0; i < 100; i++) {
      long d = Math.min(5000, expected);
      long wait = b.next().toMillis();
      assertTrue(wait >= d / 2 && wait <= d, "attempt " + i + ": " + wait + " outside [" + d / 2 + ", " + d + "]");
      expected = Math.min(5000, expected * 2);
    }
    b.reset();
    long first = b.next().toMillis();
    assertTrue(first >= 50 && first <= 100, "after reset: " + first);
  }
}
