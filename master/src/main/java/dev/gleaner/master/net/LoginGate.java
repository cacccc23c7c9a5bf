package dev.gleaner.master.net;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds what peers that have not logged in can cost the master: at most {@link #PER_ADDRESS}
 * connections per address may be in the handshake at once (more are refused), and at most
 * {@link #TOTAL} in all: when that many wait, the one that has waited longest is closed to make
 * room, so idle connections from many addresses cannot shut out a real client, which logs in within
 * milliseconds. Each is limited to frames of {@link #FRAME_BYTES} and to {@link #HANDSHAKE_SECONDS}
 * seconds. Logged-in peers are not counted (many workers may share an address behind NAT).
 */
final class LoginGate {
  static final int PER_ADDRESS = 16;
  static final int TOTAL = 256;
  /** Largest frame before the handshake ends: a Hello or an answer is a few hundred bytes. */
  static final int FRAME_BYTES = 64 * 1024;
  static final int HANDSHAKE_SECONDS = 30;

  /** Connections in the handshake per address; an address is counted and released inside one atomic compute. */
  private final ConcurrentHashMap<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();
  /** Connections in the handshake, the longest waiting first. */
  private final java.util.concurrent.ConcurrentLinkedDeque<io.netty.channel.Channel> waiting =
      new java.util.concurrent.ConcurrentLinkedDeque<>();
  private final AtomicInteger total = new AtomicInteger();
  private final java.util.concurrent.atomic.AtomicLong evicted = new java.util.concurrent.atomic.AtomicLong();
  /** Refusals before a login, logged at most 20 per 10 s: a flood must not fill the disk. */
  private final RateLimitedLog refusals = new RateLimitedLog(
      org.slf4j.LoggerFactory.getLogger(ConnectionHandler.class), 20, 10_000);

  /** Whether a refusal before a login may be logged now (see {@link RateLimitedLog}). */
  boolean logRefusal() {
    return refusals.allow();
  }

  /**
   * Whether one more connection from {@code address} may start a handshake (false: its address has
   * {@link #PER_ADDRESS} waiting); if so it must {@link #leave}. A full gate closes its longest
   * waiting connection instead of refusing this one.
   */
  boolean enter(InetAddress address, io.netty.channel.Channel channel) {
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
      return false;
    }
    if (total.incrementAndGet() > TOTAL) {
      io.netty.channel.Channel oldest = waiting.pollFirst();
      if (oldest != null) {
        // its leave() follows when it is closed
        evicted.incrementAndGet();
        oldest.close();
      }
    }
    waiting.addLast(channel);
    return true;
  }

  /** The handshake of a connection that {@link #enter}ed ended (logged in, refused or closed). */
  void leave(InetAddress address, io.netty.channel.Channel channel) {
    total.decrementAndGet();
    waiting.remove(channel);
    byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
  }

  /** Connections closed to make room for newer ones. */
  long evicted() {
    return evicted.get();
  }

  /** Connections in the handshake now. */
  int waiting() {
    return total.get();
  }
}
