package dev.gleaner.deploy.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.gleaner.common.sim.SimNetwork;
import dev.gleaner.master.MasterConfig;
import org.junit.jupiter.api.Test;

class ConcurrentSendsTest {
  @Test
  void theModesAreTheMastersAndTheSimulatorsValues() {
    assertEquals(MasterConfig.SENDS_SHARE, ConcurrentSends.parse("--x", "share"));
    assertEquals(MasterConfig.SENDS_FIT, ConcurrentSends.parse("--x", " FIT "));
    assertEquals(SimNetwork.SHARE, ConcurrentSends.SHARE);
    assertEquals(SimNetwork.FIT, ConcurrentSends.FIT);
    assertEquals(3, ConcurrentSends.parse("--x", "3"));
  }

  @Test
  void anythingElseIsRefusedNamingTheOption() {
    for (String bad : new String[] {"0", "-1", "auto", "", "2.5", "9999999999"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ConcurrentSends.parse("--concurrent-sends", bad));
      assertEquals("--concurrent-sends must be share, fit or a count of at least 1, got '" + bad + "'", e.getMessage());
    }
  }
}
