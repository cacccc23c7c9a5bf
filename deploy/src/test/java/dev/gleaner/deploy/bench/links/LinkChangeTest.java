package dev.gleaner.deploy.bench.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.testbed.Rate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --link-change}: what it reads, and how the estimate's readings become transfers after the change. */
class LinkChangeTest {
  @Test
  void readsSecondsWorkerAndRateAndRefusesTheRestInOneLine() {
    LinkChange c = LinkChange.parse("3:w1:20mbit");
    assertEquals(3.0, c.afterSeconds());
    assertEquals(1, c.worker());
    assertEquals(2.5e6, c.rate().bytesPerSecond(), 1);
    assertEquals(2, LinkChange.parse("0.5:2:1MB/s").worker());
    for (String bad : List.of("3:w1", "x:w1:20mbit", "3:wx:20mbit", "-1:w1:20mbit", "3:w0:20mbit")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LinkChange.parse(bad), bad);
      assertTrue(e.getMessage().startsWith("--link-change is SECONDS:wI:RATE"), e.getMessage());
    }
  }

  /**
   * Readings before the change set the count of transfers; the one under way at the change is not
   * counted; a reading that counts several new transfers stands for each of them.
   */
  @Test
  void theEstimateAfterEachTransferFollowingTheChange() {
    List<List<Number>> samples = List.of(
        List.of(1000L, 10e6, 3L),
        List.of(2000L, 10e6, 4L),
        // changed at 2500: transfer 5 was under way
        List.of(2600L, 9e6, 5L),
        List.of(3000L, 2.6e6, 6L),
        List.of(3500L, 2.5e6, 8L),
        List.of(4000L, 2.4e6, 9L));
    Map<String, Object> f = LinkChange.followed(samples, 2500, new Rate(2.5e6));
    assertEquals(4L, f.get("transfersBefore"));
    assertEquals(List.of(2.6e6, 2.5e6, 2.5e6, 2.4e6), f.get("estimates"));
    List<?> ratios = (List<?>) f.get("ratios");
    assertEquals(1.04, (Double) ratios.get(0), 1e-9);
    // against what 2.5 MB/s carries of TCP's payload, 1448 bytes of each 1514-byte frame
    List<?> payload = (List<?>) f.get("payloadRatios");
    assertEquals(2.6e6 / (2.5e6 * 1448 / 1514), (Double) payload.get(0), 1e-9);
  }
}
