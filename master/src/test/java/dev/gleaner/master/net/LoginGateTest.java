package dev.gleaner.master.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultChannelId;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The login gate driven by hand: embedded channels stand for connections (an eviction's close runs
 * when the test runs the channel's pending tasks), so each interleaving of a login and an eviction
 * is produced on purpose.
 */
class LoginGateTest {
  /** The gates' clock, nanoseconds, moved by hand. */
  private final java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);

  private LoginGate gate() {
    return new LoginGate(() -> { }, clock::get);
  }

  /** Time passes beyond the grace: whoever waits now may be closed to make room. */
  private void graceOver() {
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(LoginGate.GRACE_MILLIS) + 1);
  }
  private static InetAddress address(int i) {
    try {
      return InetAddress.getByAddress(new byte[] {127, 9, (byte) (i >> 8), (byte) i});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Peer(EmbeddedChannel channel, LoginGate.Ticket ticket) {
    /** Runs what was scheduled on its loop (an eviction's close); whether it is still open then. */
    boolean open() {
      channel.runPendingTasks();
      return channel.isOpen();
    }
  }

  private static Peer enter(LoginGate gate, int i) {
    EmbeddedChannel c = new EmbeddedChannel();
    LoginGate.Ticket t = gate.enter(address(i), c);
    assertNotNull(t, "address " + i + " has a place");
    return new Peer(c, t);
  }

  /** {@code n} connections the listening channel {@code listener} accepted, from addresses 0 to n - 1. */
  private static List<Peer> acceptedBy(EmbeddedChannel listener, LoginGate gate, int n) {
    List<Peer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      EmbeddedChannel c = new EmbeddedChannel(listener, DefaultChannelId.newInstance(), true, false);
      out.add(new Peer(c, gate.enter(address(i), c)));
    }
    return out;
  }

  /** Peers whose Hello was taken: they wait for their answer. */
  private static List<Peer> challenged(LoginGate gate, int from, int n) {
    List<Peer> out = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      Peer p = enter(gate, i);
      assertTrue(gate.challenged(p.ticket()));
      out.add(p);
    }
    return out;
  }

  @Test
  void aLoginCompletingWhileTheGateIsFullIsNotClosedByTheEvictionThatFollows() {
    LoginGate gate = gate();
    List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
    Peer oldest = waiting.get(0);
    // the oldest proves itself on its thread just as a newcomer fills the pool on another
    assertTrue(gate.login(oldest.ticket()));
    graceOver();
    Peer newcomer = enter(gate, LoginGate.ANSWERS);
    assertTrue(gate.challenged(newcomer.ticket()));
    Peer another = enter(gate, LoginGate.ANSWERS + 1);
    assertTrue(gate.challenged(another.ticket()), "the pool overflows by one: its longest waiting makes room");
    assertTrue(oldest.open(), "a connection that logged in is never closed to make room");
    assertFalse(waiting.get(1).open(), "the longest waiting of those still in the handshake made room");
    assertTrue(newcomer.open());
    assertTrue(another.open());
  }

  @Test
  void aConnectionEvictedBeforeItsLoginCompletesIsNotWelcomed() {
    LoginGate gate = gate();
    List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
    graceOver();
    Peer newcomer = enter(gate, LoginGate.ANSWERS);
    // the newcomer's challenge evicts the oldest, on the oldest's loop, before its answer is read
    assertTrue(gate.challenged(newcomer.ticket()));
    assertFalse(waiting.get(0).open());
    assertFalse(gate.login(waiting.get(0).ticket()), "evicted: it must not be welcomed");
    gate.leave(waiting.get(0).ticket());
    assertTrue(gate.login(waiting.get(1).ticket()));
    assertTrue(waiting.get(1).open());
    assertEquals(1, gate.evicted());
  }

  @Test
  void aConnectionWhoseAnswerWasReadBeforeItsEvictionRanLogsInAndNobodyElseIsClosed() {
    LoginGate gate = gate();
    List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
    graceOver();
    Peer newcomer = enter(gate, LoginGate.ANSWERS);
    assertTrue(gate.challenged(newcomer.ticket()));
    // its loop read its answer before it came to the eviction: the login wins
    assertTrue(gate.login(waiting.get(0).ticket()));
    assertTrue(waiting.get(0).open());
    for (Peer p : waiting) {
      assertTrue(p.open(), "the pool is back within its bound: nobody else makes room");
    }
    assertEquals(0, gate.evicted());
  }

  @Test
  void aFullHelloPoolClosesItsLongestWaitingIdleConnectionButNotOnesAwaitingTheirAnswer() {
    LoginGate gate = gate();
    List<Peer> answering = challenged(gate, 0, 100);
    List<Peer> idle = new ArrayList<>();
    for (int i = 0; i < LoginGate.HELLOS; i++) {
      idle.add(enter(gate, 1000 + i));
    }
    assertEquals(100 + LoginGate.HELLOS, gate.waiting());
    graceOver();
    Peer client = enter(gate, 5000);
    assertFalse(idle.get(0).open(), "the idle connection that waited longest made room");
    for (int i = 1; i < idle.size(); i++) {
      assertTrue(idle.get(i).open());
    }
    for (Peer p : answering) {
      assertTrue(p.open(), "a handshake awaiting its answer is not evicted by idle newcomers");
    }
    assertTrue(gate.challenged(client.ticket()));
    assertTrue(gate.login(client.ticket()));
    assertTrue(client.open());
    assertEquals(1, gate.evicted());
  }

  @Test
  void aBurstOfHandshakesThatProgressIsNotEvictedByItsOwnNewcomers() {
    LoginGate gate = gate();
    // thousands arrive at once; each is challenged and later answers, in arrival order
    int n = 3 * LoginGate.ANSWERS / 4;
    List<Peer> burst = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Peer p = enter(gate, i);
      burst.add(p);
      if (i >= LoginGate.HELLOS / 2) {
        // the master reads Hellos a little behind the connects
        assertTrue(gate.challenged(burst.get(i - LoginGate.HELLOS / 2).ticket()));
      }
    }
    for (int i = n - LoginGate.HELLOS / 2; i < n; i++) {
      assertTrue(gate.challenged(burst.get(i).ticket()));
    }
    for (Peer p : burst) {
      assertTrue(gate.login(p.ticket()));
      assertTrue(p.open());
    }
    assertEquals(0, gate.evicted());
    assertEquals(0, gate.waiting());
  }

  @Test
  void aNewcomerDoesNotCloseAConnectionThatHasWaitedLessThanTheGrace() {
    LoginGate gate = gate();
    List<Peer> idle = new ArrayList<>();
    for (int i = 0; i < LoginGate.HELLOS; i++) {
      idle.add(enter(gate, i));
    }
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(LoginGate.GRACE_MILLIS / 2));
    // a burst's newcomer: those before it may well have sent their Hello, not yet read
    Peer newcomer = enter(gate, LoginGate.HELLOS);
    for (Peer p : idle) {
      assertTrue(p.open(), "nobody younger than the grace is closed");
    }
    assertEquals(LoginGate.HELLOS + 1, gate.waiting(), "the pool stays past its bound until its oldest ages");
    assertEquals(0, gate.evicted());
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(LoginGate.GRACE_MILLIS / 2) + 1);
    Peer another = enter(gate, LoginGate.HELLOS + 1);
    // two past the bound: the two that waited longest, now past the grace, make room
    assertFalse(idle.get(0).open());
    assertFalse(idle.get(1).open());
    for (Peer p : idle.subList(2, idle.size())) {
      assertTrue(p.open());
    }
    assertTrue(newcomer.open());
    assertTrue(another.open());
    assertEquals(2, gate.evicted());
  }

  @Test
  void whileNobodyPastTheBoundHasWaitedOutTheGraceTheMasterStopsAcceptingAndLooksAgainWhenTheyHave() {
    EmbeddedChannel listener = new EmbeddedChannel();
    listener.freezeTime();
    LoginGate gate = gate();
    List<Peer> idle = acceptedBy(listener, gate, LoginGate.HELLOS + 1);
    assertFalse(listener.config().isAutoRead(), "past the bound, nobody old enough to close: no more accepts");
    graceOver();
    listener.advanceTimeBy(LoginGate.GRACE_MILLIS + 1, TimeUnit.MILLISECONDS);
    listener.runScheduledPendingTasks();
    assertFalse(idle.get(0).open(), "the longest waiting, now past the grace, made room");
    assertTrue(idle.get(1).open());
    assertTrue(listener.config().isAutoRead(), "back within the bound: accepting again");
    assertEquals(1, gate.evicted());
  }

  @Test
  void aPoolThatDrainsBelowItsBoundLetsTheMasterAcceptAgainAtOnce() {
    EmbeddedChannel listener = new EmbeddedChannel();
    LoginGate gate = gate();
    List<Peer> burst = acceptedBy(listener, gate, LoginGate.HELLOS + 1);
    assertFalse(listener.config().isAutoRead());
    // the master reads one Hello of the burst: the pool is back within its bound
    assertTrue(gate.challenged(burst.get(LoginGate.HELLOS).ticket()));
    assertTrue(listener.config().isAutoRead());
    for (Peer p : burst) {
      assertTrue(p.open(), "a burst is let in at the pace it is read, not closed");
    }
    assertEquals(0, gate.evicted());
  }

  @Test
  void perAddressBoundRefusesTheSeventeenthAndFreesAPlaceWhenOneLeaves() {
    LoginGate gate = gate();
    InetAddress a = address(7);
    List<LoginGate.Ticket> held = new ArrayList<>();
    for (int i = 0; i < LoginGate.PER_ADDRESS; i++) {
      held.add(gate.enter(a, new EmbeddedChannel()));
    }
    assertNull(gate.enter(a, new EmbeddedChannel()));
    gate.leave(held.get(3));
    gate.leave(held.get(3));
    LoginGate.Ticket again = gate.enter(a, new EmbeddedChannel());
    assertNotNull(again, "a second leave of one ticket frees nothing more, the first freed one place");
    assertNull(gate.enter(a, new EmbeddedChannel()));
    assertTrue(gate.challenged(again));
    assertTrue(gate.login(again));
    assertNotNull(gate.enter(a, new EmbeddedChannel()), "a login frees its address's place");
  }

  @Test
  void anAddressAtItsBoundMakesRoomByClosingItsLongestWaitingIdleConnectionNotAnotherAddresss() {
    LoginGate gate = gate();
    InetAddress a = address(7);
    Peer other = enter(gate, 8);
    List<Peer> held = new ArrayList<>();
    for (int i = 0; i < LoginGate.PER_ADDRESS; i++) {
      EmbeddedChannel c = new EmbeddedChannel();
      held.add(new Peer(c, gate.enter(a, c)));
      clock.addAndGet(1_000);
    }
    assertNull(gate.enter(a, new EmbeddedChannel()), "none has waited out the grace: the newcomer is refused");
    graceOver();
    EmbeddedChannel c = new EmbeddedChannel();
    LoginGate.Ticket operator = gate.enter(a, c);
    assertNotNull(operator, "past the grace, the newcomer is let in");
    assertFalse(held.get(0).open(), "the longest waiting of that address is closed");
    for (Peer p : held.subList(1, held.size())) {
      assertTrue(p.open());
    }
    assertTrue(other.open(), "another address's connection is not touched");
    assertEquals(1, gate.evicted());
    gate.leave(held.get(0).ticket());
    assertEquals(LoginGate.PER_ADDRESS + 1, gate.waiting(), "16 of address a and one of another");
    assertTrue(gate.challenged(operator));
    assertTrue(gate.login(operator));
    // the login freed a place; the next newcomer past it closes the next longest waiting, never a logged-in one
    assertNotNull(gate.enter(a, new EmbeddedChannel()));
    assertEquals(1, gate.evicted());
    assertNotNull(gate.enter(a, new EmbeddedChannel()));
    assertFalse(held.get(1).open());
    assertEquals(2, gate.evicted());
  }

  @Test
  void aConnectionThatLogsInIsNeverTheOneClosedForANewcomerOfItsAddressEvenIfItCameFirst() {
    LoginGate gate = gate();
    InetAddress a = address(7);
    EmbeddedChannel first = new EmbeddedChannel();
    LoginGate.Ticket firstTicket = gate.enter(a, first);
    assertTrue(gate.challenged(firstTicket));
    clock.addAndGet(1_000);
    List<Peer> others = new ArrayList<>();
    for (int i = 1; i < LoginGate.PER_ADDRESS; i++) {
      EmbeddedChannel c = new EmbeddedChannel();
      others.add(new Peer(c, gate.enter(a, c)));
    }
    graceOver();
    // the first, longest waiting of its address, logs in just before a newcomer comes
    assertTrue(gate.login(firstTicket));
    assertNotNull(gate.enter(a, new EmbeddedChannel()), "its login freed a place: no one is closed");
    assertNotNull(gate.enter(a, new EmbeddedChannel()), "the next closes the longest waiting still in the gate");
    first.runPendingTasks();
    assertTrue(first.isOpen(), "the logged-in one stays");
    assertFalse(others.get(0).open(), "the longest waiting of the others is closed instead");
    assertEquals(1, gate.evicted());
  }

  @Test
  void racingLoginsAndEvictionsNeverCloseAWelcomedConnectionAndKeepTheCountsExact() throws Exception {
    // each round: a full answer pool whose members log in on one thread while newcomers overflow it
    // on another; whatever the interleaving, a login that succeeded is never evicted
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        LoginGate gate = gate();
        List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
        graceOver();
        CountDownLatch go = new CountDownLatch(1);
        Future<boolean[]> logins = threads.submit(() -> {
          go.await();
          boolean[] in = new boolean[waiting.size()];
          for (int i = 0; i < waiting.size(); i++) {
            in[i] = gate.login(waiting.get(i).ticket());
          }
          return in;
        });
        Future<List<Peer>> newcomers = threads.submit(() -> {
          go.await();
          List<Peer> out = new ArrayList<>();
          for (int i = 0; i < 2000; i++) {
            Peer p = enter(gate, LoginGate.ANSWERS + i);
            gate.challenged(p.ticket());
            out.add(p);
          }
          return out;
        });
        go.countDown();
        boolean[] in = logins.get(60, TimeUnit.SECONDS);
        newcomers.get(60, TimeUnit.SECONDS);
        for (int i = 0; i < waiting.size(); i++) {
          Peer p = waiting.get(i);
          if (in[i]) {
            assertTrue(p.open(), "round " + round + ": connection " + i + " logged in and was closed");
          } else {
            assertFalse(p.open(), "round " + round + ": connection " + i + " was neither let in nor closed");
            gate.leave(p.ticket());
          }
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }
}
