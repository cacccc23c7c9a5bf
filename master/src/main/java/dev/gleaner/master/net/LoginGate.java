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

  /** Connections in the handshake per address; an address is counted and released inside one atomic compute. */
  private final ConcurrentHashMap<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();

  /** Whether one more connection from {@code address} may start a handshake; if so it must {@link #leave}. */
  boolean enter(InetAddress address) {
    if (total.incrementAndGet() > TOTAL) {
      total.decrementAndGet();
      return false;
    }
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
      total.decrementAndGet();
    }
    return admitted[0];
  }

  /** The handshake of a connection that {@link #enter}ed ended (logged in, refused or closed). */
  void leave(InetAddress address) {
    total.decrementAndGet();
    byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
  }

  /** Connections in the handshake now. */
  int waiting() {
    return total.get();
  }
}
