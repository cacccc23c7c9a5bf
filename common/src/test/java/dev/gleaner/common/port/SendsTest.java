package dev.gleaner.common.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SendsTest {
  @Test
  void theModesAreReadAsTheirCodes() {
    assertEquals(Sends.SHARE, Sends.parse("--x", "share"));
    assertEquals(Sends.FIT, Sends.parse("--x", " FIT "));
    assertEquals(3, Sends.parse("--x", "3"));
  }

  @Test
  void anythingElseIsRefusedNamingTheOption() {
    for (String bad : new String[] {"0", "-1", "auto", "", "2.5", "9999999999"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Sends.parse("--concurrent-sends", bad));
      assertEquals("--concurrent-sends must be share, fit or a count of at least 1, got '" + bad + "'", e.getMessage());
    }
  }
}
