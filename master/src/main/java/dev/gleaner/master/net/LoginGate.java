package dev.gleaner.master.net;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds what peers that have not logged in can cost the master: at most {@link #PER_ADDRESS}
 * connections per address and {@link #TOTAL} in all may be in the handshake at once, each limited
 * to frames of {@link #FRAME_BYTES} and to {@link #HANDSHAKE_SECONDS} seconds. Logged-in peers are
 * not counted (many workers may share an address behind NAT).
 */
final class LoginGate {
  static final int PER_ADDRESS = 16;
  static final int TOTAL = 256;
  /** Largest frame before the handshake ends: a Hello or an answer is a few hundred bytes. */
  static final int FRAME_BYTES = 64 * 1024;
  static final int HANDSHAKE_SECONDS = 30;

  private final ConcurrentHashMap<InetAddress, AtomicInteger> byAddress = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();

  /** Whether one more connection from {@code address} may start a handshake; if so it must {@link #leave}. */
  boolean enter(InetAddress address) {
    if (total.incrementAndGet() > TOTAL) {
      total.decrementAndGet();
      return false;
    }
    AtomicInteger n = byAddress.computeIfAbsent(address, a -> new AtomicInteger());
    if (n.incrementAndGet() > PER_ADDRESS) {
      n.decrementAndGet();
      total.decrementAndGet();
      return false;
    }
    return true;
  }

  /** The handshake of a connection that {@link #enter}ed ended (logged in, refused or closed). */
  void leave(InetAddress address) {
    total.decrementAndGet();
    byAddress.computeIfPresent(address, (a, n) -> n.decrementAndGet() <= 0 ? null : n);
  }

  /** Connections in the handshake now. */
  int waiting() {
    return total.get();
  }
}
