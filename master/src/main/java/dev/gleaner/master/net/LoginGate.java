package dev.gleaner.master.net;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds what peers that have not logged in can cost the master. At most {@link #PER_ADDRESS}
 * connections per address may be in the handshake at once (more are refused). Past that, a
 * handshake is in one of two pools, each with its own bound:
 *
 * <ul>
 *   <li><b>hello</b>: connected, no Hello read yet; at most {@link #HELLOS}, each able to hold a
 *       frame of {@link #FRAME_BYTES}. When it is full, the connection that has waited longest is
 *       closed to make room, so idle connections from many addresses cannot shut out a real client,
 *       whose Hello is read within milliseconds of its connect.
 *   <li><b>answer</b>: Hello taken, challenge sent, its answer awaited; at most {@link #ANSWERS},
 *       each limited to frames of {@link #ANSWER_FRAME_BYTES} (an answer is 40 bytes), so the pool
 *       can be large: a burst of thousands of real workers, whose answers come one round trip after
 *       their challenge, is not evicted by its own newcomers. When it is full, the longest waiting
 *       is closed to make room, as in the hello pool.
 * </ul>
 *
 * <p>Each connection holds a {@link Ticket} whose state both the login and an eviction change by
 * compare-and-set: a connection evicted (by another connection's thread) can no longer log in, and a
 * connection that logged in can no longer be evicted, so the master never closes a session it has
 * welcomed to make room. An eviction is carried out on the evicted connection's own event loop.
 * Every handshake is also limited to {@link #HANDSHAKE_SECONDS}. Logged-in peers are not counted
 * (many workers may share an address behind NAT).
 */
final class LoginGate {
  static final int PER_ADDRESS = 16;
  /** Connections whose Hello has not been read, at most. */
  static final int HELLOS = 256;
  /** Connections awaiting the answer to their challenge, at most. */
  static final int ANSWERS = 4096;
  /** Both pools together: the most handshakes there may be at once. */
  static final int TOTAL = HELLOS + ANSWERS;
  /** Largest frame before the Hello is read: a Hello is a few hundred bytes, a few KiB with held chunks. */
  static final int FRAME_BYTES = 64 * 1024;
  /** Largest frame between the challenge and the Welcome: the answer is a 32-byte MAC in its envelope. */
  static final int ANSWER_FRAME_BYTES = 1024;
  static final int HANDSHAKE_SECONDS = 30;

  /** Where a connection's handshake is; only compare-and-set moves it. */
  private static final int HELLO = 0;
  private static final int ANSWER = 1;
  private static final int LOGGED_IN = 2;
  private static final int EVICTED = 3;
  private static final int LEFT = 4;

  /** One connection's place in the gate, from its connect to its login or its close. */
  static final class Ticket {
    final Channel channel;
    final InetAddress address;
    private final AtomicInteger state = new AtomicInteger(HELLO);

    private Ticket(Channel channel, InetAddress address) {
      this.channel = channel;
      this.address = address;
    }
  }

  /** Connections in the handshake per address; an address is counted and released inside one atomic compute. */
  private final ConcurrentHashMap<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();
  /** Each pool's tickets, the longest waiting first, and its size. */
  private final ConcurrentLinkedDeque<Ticket> hellos = new ConcurrentLinkedDeque<>();
  private final ConcurrentLinkedDeque<Ticket> answers = new ConcurrentLinkedDeque<>();
  private final AtomicInteger helloCount = new AtomicInteger();
  private final AtomicInteger answerCount = new AtomicInteger();
  private final AtomicLong evicted = new AtomicLong();
  /** Told of each eviction (the master's meter). */
  private final Runnable onEviction;

  LoginGate() {
    this(() -> { });
  }

  LoginGate(Runnable onEviction) {
    this.onEviction = onEviction;
  }
  /** Refusals before a login, logged at most 20 per 10 s: a flood must not fill the disk. */
  private final RateLimitedLog refusals = new RateLimitedLog(
      org.slf4j.LoggerFactory.getLogger(ConnectionHandler.class), 20, 10_000);

  /** Whether a refusal before a login may be logged now (see {@link RateLimitedLog}). */
  boolean logRefusal() {
    return refusals.allow();
  }

  /**
   * A connection from {@code address} starts its handshake: its ticket, or null when its address
   * already has {@link #PER_ADDRESS} waiting (it is refused). A full hello pool closes its longest
   * waiting connection instead of refusing this one. The ticket ends with {@link #login} or
   * {@link #leave}.
   */
  Ticket enter(InetAddress address, Channel channel) {
    boolean[] admitted = new boolean[1];
    byAddress.compute(address, (a, n) -> {
      int now = n == null ? 0 : n;
      if (now >= PER_ADDRESS) {
        return n;
      }
      admitted[0] = true;
      return now + 1;
    });
    if (!admitted[0]) {
      return null;
    }
    Ticket t = new Ticket(channel, address);
    hellos.addLast(t);
    if (helloCount.incrementAndGet() > HELLOS) {
      evictOldest(hellos, helloCount, HELLO);
    }
    return t;
  }

  /**
   * The connection's Hello was taken and its challenge is about to be sent: it moves to the answer
   * pool (making room there as in the hello pool). False if it was evicted meanwhile: it is closing.
   */
  boolean challenged(Ticket t) {
    if (!t.state.compareAndSet(HELLO, ANSWER)) {
      return false;
    }
    hellos.remove(t);
    helloCount.decrementAndGet();
    answers.addLast(t);
    if (answerCount.incrementAndGet() > ANSWERS) {
      evictOldest(answers, answerCount, ANSWER);
    }
    return t.state.get() == ANSWER;
  }

  /**
   * The connection proved who it is: it leaves the gate for good and may be welcomed. False if it
   * was evicted meanwhile: it is being closed and must not be welcomed.
   */
  boolean login(Ticket t) {
    if (!t.state.compareAndSet(ANSWER, LOGGED_IN)) {
      return false;
    }
    answers.remove(t);
    answerCount.decrementAndGet();
    releaseAddress(t.address);
    return true;
  }

  /** The handshake of a connection that {@link #enter}ed ended without a login (refused or closed). */
  void leave(Ticket t) {
    int was = t.state.getAndSet(LEFT);
    switch (was) {
      case HELLO -> {
        hellos.remove(t);
        helloCount.decrementAndGet();
        releaseAddress(t.address);
      }
      case ANSWER -> {
        answers.remove(t);
        answerCount.decrementAndGet();
        releaseAddress(t.address);
      }
      // its pool place went with the eviction; its address place goes with its close
      case EVICTED -> releaseAddress(t.address);
      default -> { }
    }
  }

  /**
   * Closes the longest-waiting connection still in {@code state}, which holds the pool's place of
   * the one that pushed the pool past its bound. The choice is made on that connection's own event
   * loop, after what it has read meanwhile: under a burst a real client's Hello may be waiting there
   * to be read, and a connection that moved on (challenged, logged in, closed) is passed over for
   * the next longest waiting. The pool may stay over its bound by the evictions in flight.
   */
  private void evictOldest(ConcurrentLinkedDeque<Ticket> pool, AtomicInteger count, int state) {
    Ticket oldest = pool.pollFirst();
    if (oldest == null) {
      return;
    }
    oldest.channel.eventLoop().execute(() -> {
      if (oldest.state.compareAndSet(state, EVICTED)) {
        count.decrementAndGet();
        evicted.incrementAndGet();
        onEviction.run();
        oldest.channel.close();
      } else if (count.get() > (state == HELLO ? HELLOS : ANSWERS)) {
        evictOldest(pool, count, state);
      }
    });
  }

  private void releaseAddress(InetAddress address) {
    byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
  }

  /** Connections closed to make room for newer ones. */
  long evicted() {
    return evicted.get();
  }

  /** Connections in the handshake now. */
  int waiting() {
    return helloCount.get() + answerCount.get();
  }
}
