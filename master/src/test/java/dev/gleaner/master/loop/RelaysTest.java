package dev.gleaner.master.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which Vias the master takes: a live relay's session, reached the same way; and what it says otherwise. */
class RelaysTest {
  private final Relays relays = new Relays();
  private final AtomicInteger closed = new AtomicInteger();

  private Relays.Relay relay(String id, String session, List<String> via, String address) throws Exception {
    return new Relays.Relay(id, session, "host", via, 0, () -> 0, closed::incrementAndGet,
        InetAddress.getByName(address));
  }

  @Test
  void aViaIsTakenOnlyFromALiveSessionReachedTheSameWay() throws Exception {
    relays.joined(relay("r1", "s1", List.of(), "10.0.0.1"));
    relays.joined(relay("r2", "s2", List.of("r1"), "10.0.0.2"));
    assertNull(relays.viaRefusal("r1", "s1", List.of()));
    assertNull(relays.viaRefusal("r2", "s2", List.of("r1")));
    assertEquals("relay 'r3' is not logged in", relays.viaRefusal("r3", "s1", List.of()));
    assertEquals("relay 'r1' is logged in with another session", relays.viaRefusal("r1", "s2", List.of()));
    assertEquals("relay 'r2' is logged in through r1, not directly", relays.viaRefusal("r2", "s2", List.of()));
    assertEquals("relay 'r1' is logged in directly, not through r2", relays.viaRefusal("r1", "s1", List.of("r2")));
    assertEquals("r1", relays.all().get(1).parent());
  }

  @Test
  void aNewSessionReplacesTheOldWhichNoLongerCountsAndIsClosed() throws Exception {
    relays.joined(relay("r1", "s1", List.of(), "10.0.0.1"));
    relays.joined(relay("r1", "s9", List.of(), "10.0.0.1"));
    assertEquals(1, closed.get(), "the old session is ended");
    assertEquals("relay 'r1' is logged in with another session", relays.viaRefusal("r1", "s1", List.of()));
    // the old session's end comes after: it does not take the new one away
    relays.left("r1", "s1");
    assertNull(relays.viaRefusal("r1", "s9", List.of()));
    relays.left("r1", "s9");
    assertEquals("relay 'r1' is not logged in", relays.viaRefusal("r1", "s9", List.of()));
  }

  @Test
  void aRelaysAddressIsKnownWhileItIsLoggedIn() throws Exception {
    relays.joined(relay("r1", "s1", List.of(), "10.0.0.1"));
    assertTrue(relays.isRelayAddress(InetAddress.getByName("10.0.0.1")));
    assertFalse(relays.isRelayAddress(InetAddress.getByName("10.0.0.2")));
    relays.left("r1", "s1");
    assertFalse(relays.isRelayAddress(InetAddress.getByName("10.0.0.1")));
  }

  /**
   * A relay's held files count for its live session only: a file is found by size and digest together;
   * an old session's word, or one for a session not logged in, is not taken; leaving forgets them.
   */
  @Test
  void heldFilesAreFoundBySizeAndDigestForTheLiveSessionOnly() throws Exception {
    relays.joined(relay("r1", "s1", List.of(), "10.0.0.1"));
    relays.holds("r1", "s1", List.of(new Relays.Held("a.txt", 100, "aa"), new Relays.Held("b.txt", 200, "bb")));
    relays.holds("r2", "s2", List.of(new Relays.Held("c.txt", 300, "cc")));
    assertTrue(relays.holdsSize("r1", 100) && relays.anyHoldsSize(200));
    assertFalse(relays.anyHoldsSize(300), "r2 is not logged in");
    assertEquals("b.txt", relays.heldName("r1", 200, "bb"));
    assertNull(relays.heldName("r1", 200, "aa"), "same size, other bytes");
    assertNull(relays.heldName("r1", 100, "bb"), "same bytes' digest, other size");
    relays.holds("r1", "s0", List.of(new Relays.Held("old.txt", 400, "dd")));
    assertFalse(relays.holdsSize("r1", 400), "an old session's word");
    relays.left("r1", "s1");
    assertFalse(relays.anyHoldsSize(100));
    assertEquals(0, relays.heldCount("r1"));
  }
}
