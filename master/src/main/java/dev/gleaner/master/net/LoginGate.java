package dev.gleaner.master.net;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Bounds what peers that have not logged in can cost the master. At most {@link #PER_ADDRESS}
 * connections per address may be in the handshake at once: a newcomer past that closes the one of
 * its address that has waited longest, if that one has waited {@link #GRACE_MILLIS}, and is refused
 * otherwise (so idle sockets cannot lock an address out; a flood of fresh ones can). Past that, a
 * handshake is in one of two pools, each with its own bound:
 *
 * <ul>
 *   <li><b>hello</b>: connected, no Hello read yet; at most {@link #HELLOS}, each able to hold a
 *       frame of {@link #FRAME_BYTES}.
 *   <li><b>answer</b>: Hello taken, challenge sent, its answer awaited; at most {@link #ANSWERS},
 *       each limited to frames of {@link #ANSWER_FRAME_BYTES} (an answer is 40 bytes), so the pool
 *       can be large.
 * </ul>
 *
 * <p>A pool past its bound closes its longest waiting connection, but only one that has waited
 * {@link #GRACE_MILLIS} in it: idle connections from many addresses cannot shut out a real client,
 * whose Hello and answer come within milliseconds. While a pool is past its bound and its longest
 * waiting is younger than that, the master stops accepting connections (they wait in the kernel's
 * backlog) until the pool drains or its oldest ages. A burst of thousands of real workers is so
 * let in at the pace the master reads them, not closed by its own newcomers (which made a burst of
 * 4,000 connect 21,000 times).
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
  /** Largest frame before the Hello is read: a Hello is a few hundred bytes, a few KiB with held chunks. */
  static final int FRAME_BYTES = 64 * 1024;
  /** Largest frame between the challenge and the Welcome: the answer is a 32-byte MAC in its envelope. */
  static final int ANSWER_FRAME_BYTES = 1024;
  static final int HANDSHAKE_SECONDS = 30;
  /** How long a connection waits in a pool before a newcomer may close it to make room. */
  static final long GRACE_MILLIS = 2000;
  private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS);

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
    /** When it entered the pool it is in, nanoseconds of the gate's clock. */
    private volatile long since;

    private Ticket(Channel channel, InetAddress address, long since) {
      this.channel = channel;
      this.address = address;
      this.since = since;
    }
  }

  /** One pool: its tickets, the longest waiting first, how many, and how many of them are being closed. */
  private static final class Pool {
    final int state;
    final int bound;
    final ConcurrentLinkedDeque<Ticket> tickets = new ConcurrentLinkedDeque<>();
    final AtomicInteger count = new AtomicInteger();
    final AtomicInteger closing = new AtomicInteger();

    Pool(int state, int bound) {
      this.state = state;
      this.bound = bound;
    }

    boolean over() {
      return count.get() - closing.get() > bound;
    }

    /** The ticket joins the pool, as the one waiting least. */
    void add(Ticket t) {
      tickets.addLast(t);
      count.incrementAndGet();
    }

    /** The ticket, still counted here, leaves the pool on its own (challenged, logged in, closed). */
    void remove(Ticket t) {
      tickets.remove(t);
      count.decrementAndGet();
    }
  }

  /** Connections in the handshake per address; an address is counted and released inside one atomic compute. */
  private final ConcurrentHashMap<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();
  private final Pool hellos = new Pool(HELLO, HELLOS);
  private final Pool answers = new Pool(ANSWER, ANSWERS);
  private final AtomicLong evicted = new AtomicLong();
  /** Told of each eviction (the master's meter). */
  private final Runnable onEviction;
  private final LongSupplier nanos;
  /** The listening channel the connections came from (null until one came through one). */
  private volatile Channel acceptor;
  private final AtomicBoolean paused = new AtomicBoolean();
  private final AtomicBoolean recheckScheduled = new AtomicBoolean();

  LoginGate() {
    this(() -> { });
  }

  LoginGate(Runnable onEviction) {
    this(onEviction, System::nanoTime);
  }

  /** A gate reading time from {@code nanos} (tests move it by hand). */
  LoginGate(Runnable onEviction, LongSupplier nanos) {
    this.onEviction = onEviction;
    this.nanos = nanos;
  }

  /** Refusals before a login, logged at most 20 per 10 s: a flood must not fill the disk. */
  private final RateLimitedLog refusals = new RateLimitedLog(
      org.slf4j.LoggerFactory.getLogger(ConnectionHandler.class), 20, 10_000,
      "connection(s) were refused before logging in");

  /** Whether a refusal before a login may be logged now (see {@link RateLimitedLog}). */
  boolean logRefusal() {
    return refusals.allow();
  }

  /**
   * A connection from {@code address} starts its handshake: its ticket, or null when its address
   * already has {@link #PER_ADDRESS} waiting, none of them for {@link #GRACE_MILLIS} (it is
   * refused); one that has waited that long is closed to make room instead. A full hello pool makes
   * room (see the class comment) instead of refusing this one. The ticket ends with {@link #login} or
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
      // its address is at the bound: an idle one of them makes room, as in the pools, so that a
      // process holding idle sockets cannot lock out the operator's own commands from that address
      Ticket idle = longestWaiting(address);
      if (idle == null) {
        return null;
      }
      Pool from = idle.state.get() == HELLO ? hellos : answers;
      if (!from.tickets.remove(idle)) {
        return null;
      }
      evict(from, idle);
      // the evicted one's place is given back when it is closed (leave): one over the bound meanwhile,
      // or until one of them leaves if the evicted one was challenged before its close ran (it then stays)
      byAddress.merge(address, 1, Integer::sum);
    }
    if (acceptor == null && channel.parent() != null) {
      acceptor = channel.parent();
    }
    Ticket t = new Ticket(channel, address, nanos.getAsLong());
    hellos.add(t);
    if (hellos.over()) {
      rebalance();
    }
    return t;
  }

  /** The connection from {@code address} that has waited longest in the gate, if it has waited out the grace; else null. */
  private Ticket longestWaiting(InetAddress address) {
    long now = nanos.getAsLong();
    Ticket best = null;
    for (Pool p : new Pool[] {hellos, answers}) {
      for (Ticket t : p.tickets) {
        if (t.address.equals(address) && now - t.since >= GRACE_NANOS && (best == null || t.since < best.since)) {
          best = t;
        }
      }
    }
    return best;
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
    t.since = nanos.getAsLong();
    answers.add(t);
    if (answers.over() || paused.get()) {
      rebalance();
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
    releaseAddress(t.address);
    if (paused.get()) {
      rebalance();
    }
    return true;
  }

  /** The handshake of a connection that {@link #enter}ed ended without a login (refused or closed). */
  void leave(Ticket t) {
    int was = t.state.getAndSet(LEFT);
    switch (was) {
      case HELLO -> {
        hellos.remove(t);
        releaseAddress(t.address);
      }
      case ANSWER -> {
        answers.remove(t);
        releaseAddress(t.address);
      }
      // its pool place went with the eviction; its address place goes with its close
      case EVICTED -> releaseAddress(t.address);
      default -> { }
    }
    if (paused.get()) {
      rebalance();
    }
  }

  /**
   * Brings each pool back within its bound: closes its longest waiting connections that have
   * waited out the grace; while one is still past its bound, stops accepting and looks again when
   * its longest waiting has. Any thread may call it; decisions made at once on several threads
   * settle, since every change calls it again.
   */
  private void rebalance() {
    long wait = Long.MAX_VALUE;
    for (Pool p : new Pool[] {hellos, answers}) {
      while (p.over()) {
        Ticket oldest = p.tickets.peekFirst();
        if (oldest == null) {
          break;
        }
        long age = nanos.getAsLong() - oldest.since;
        if (age < GRACE_NANOS) {
          wait = Math.min(wait, GRACE_NANOS - age);
          break;
        }
        if (p.tickets.remove(oldest)) {
          evict(p, oldest);
        }
      }
    }
    if (wait == Long.MAX_VALUE) {
      resumeAccepting();
    } else {
      pauseAccepting(wait);
    }
  }

  /**
   * Closes {@code t}, taken from its pool to make room, on its own event loop, after what that
   * loop has read meanwhile: a connection that moved on by then (challenged, logged in, closed) is
   * passed over, and the pool looked at again.
   */
  private void evict(Pool p, Ticket t) {
    p.closing.incrementAndGet();
    t.channel.eventLoop().execute(() -> {
      try {
        if (t.state.compareAndSet(p.state, EVICTED)) {
          p.count.decrementAndGet();
          evicted.incrementAndGet();
          onEviction.run();
          t.channel.close();
        }
      } finally {
        p.closing.decrementAndGet();
      }
      rebalance();
    });
  }

  private void pauseAccepting(long waitNanos) {
    Channel a = acceptor;
    if (a == null) {
      return;
    }
    if (paused.compareAndSet(false, true)) {
      a.config().setAutoRead(false);
    }
    if (recheckScheduled.compareAndSet(false, true)) {
      a.eventLoop().schedule(() -> {
        recheckScheduled.set(false);
        rebalance();
      }, Math.max(waitNanos, TimeUnit.MILLISECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
    }
  }

  private void resumeAccepting() {
    Channel a = acceptor;
    if (a != null && paused.compareAndSet(true, false)) {
      a.config().setAutoRead(true);
    }
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
    return hellos.count.get() + answers.count.get();
  }
}
