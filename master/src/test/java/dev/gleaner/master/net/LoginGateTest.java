package dev.gleaner.master.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    LoginGate gate = new LoginGate();
    List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
    Peer oldest = waiting.get(0);
    // the oldest proves itself on its thread just as a newcomer fills the pool on another
    assertTrue(gate.login(oldest.ticket()));
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
    LoginGate gate = new LoginGate();
    List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
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
    LoginGate gate = new LoginGate();
    List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
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
    LoginGate gate = new LoginGate();
    List<Peer> answering = challenged(gate, 0, 100);
    List<Peer> idle = new ArrayList<>();
    for (int i = 0; i < LoginGate.HELLOS; i++) {
      idle.add(enter(gate, 1000 + i));
    }
    assertEquals(100 + LoginGate.HELLOS, gate.waiting());
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
    LoginGate gate = new LoginGate();
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
  void perAddressBoundRefusesTheSeventeenthAndFreesAPlaceWhenOneLeaves() {
    LoginGate gate = new LoginGate();
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
  void racingLoginsAndEvictionsNeverCloseAWelcomedConnectionAndKeepTheCountsExact() throws Exception {
    // each round: a full answer pool whose members log in on one thread while newcomers overflow it
    // on another; whatever the interleaving, a login that succeeded is never evicted
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        LoginGate gate = new LoginGate();
        List<Peer> waiting = challenged(gate, 0, LoginGate.ANSWERS);
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
