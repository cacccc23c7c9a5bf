package dev.gleaner.master.loop;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The relays logged in now, by id: who may put a Via in front of a connection it passes up. A Via
 * names a relay and that relay's session id, which only the relay and the master know; the master
 * takes it only while that session is live and reached the master the same way (the relays on a
 * connection's way are, nearest the master first, the relays on the way of the one it names).
 *
 * <p>Safe from any thread: the connections' threads log relays in and out and check Vias; the
 * status reads it.
 */
public final class Relays {
  /**
   * A relay's session.
   *
   * @param id the relay's id (its token's)
   * @param session its session id, from its Welcome
   * @param host the host its Hello names
   * @param via the relays its session came through, nearest the master first; empty: direct
   * @param connectedAtMillis when it logged in (epoch ms)
   * @param silentMillis milliseconds since it was last heard
   * @param close ends the session (a newer one of the same relay replaces it)
   * @param address the address its session connected from (null if not an IP connection)
   */
  public record Relay(String id, String session, String host, List<String> via, long connectedAtMillis,
      LongSupplier silentMillis, Runnable close, java.net.InetAddress address) {
    public Relay {
      via = List.copyOf(via);
    }

    /** The relay its session came through (nearest it), or "" when it is connected to the master directly. */
    public String parent() {
      return via.isEmpty() ? "" : via.get(via.size() - 1);
    }
  }

  /**
   * A file a relay holds, as it said.
   *
   * @param name the relay's own name for it
   * @param size bytes
   * @param sha256 its content's SHA-256, hex
   */
  public record Held(String name, long size, String sha256) {}

  /** The most files one relay may say it holds. */
  public static final int MAX_HELD = 10_000;

  private final Map<String, Relay> live = new ConcurrentHashMap<>();
  /** The files each relay holds, by its session: a newer session's replace them. */
  private final Map<String, Map.Entry<String, List<Held>>> held = new ConcurrentHashMap<>();

  /** The relay logged in; a session it had before is ended (its connection is gone or going). */
  public void joined(Relay r) {
    Relay old = live.put(r.id(), r);
    if (old != null && !old.session().equals(r.session())) {
      old.close().run();
    }
  }

  /** The relay's session ended; a newer session of the same relay stays. */
  public void left(String id, String session) {
    live.computeIfPresent(id, (k, r) -> r.session().equals(session) ? null : r);
    held.computeIfPresent(id, (k, h) -> h.getKey().equals(session) ? null : h);
  }

  /** The relay's session {@code session} holds these input files (its word, on its session). */
  public void holds(String id, String session, List<Held> files) {
    if (files.size() > MAX_HELD) {
      throw new IllegalArgumentException("relay " + id + " names " + files.size() + " files; at most " + MAX_HELD);
    }
    Relay r = live.get(id);
    if (r != null && r.session().equals(session)) {
      held.put(id, Map.entry(session, List.copyOf(files)));
    }
  }

  /** Whether the relay holds a file of {@code size} bytes (before a digest is worth computing). */
  public boolean holdsSize(String id, long size) {
    Map.Entry<String, List<Held>> h = held.get(id);
    return h != null && h.getValue().stream().anyMatch(f -> f.size() == size);
  }

  /** Whether some relay holds a file of {@code size} bytes. */
  public boolean anyHoldsSize(long size) {
    for (String id : held.keySet()) {
      if (holdsSize(id, size)) {
        return true;
      }
    }
    return false;
  }

  /** The relay's name for the file of this size and digest (hex), or null if it holds none. */
  public String heldName(String id, long size, String sha256) {
    Map.Entry<String, List<Held>> h = held.get(id);
    if (h == null) {
      return null;
    }
    for (Held f : h.getValue()) {
      if (f.size() == size && f.sha256().equals(sha256)) {
        return f.name();
      }
    }
    return null;
  }

  /** How many files the relay said it holds. */
  public int heldCount(String id) {
    Map.Entry<String, List<Held>> h = held.get(id);
    return h == null ? 0 : h.getValue().size();
  }

  /**
   * Null if the relay {@code id} is logged in with {@code session} through exactly the relays
   * {@code before} (nearest the master first), else why a Via naming it is refused.
   */
  public String viaRefusal(String id, String session, List<String> before) {
    Relay r = live.get(id);
    if (r == null) {
      return "relay '" + id + "' is not logged in";
    }
    if (!r.session().equals(session)) {
      return "relay '" + id + "' is logged in with another session";
    }
    if (!r.via().equals(before)) {
      return "relay '" + id + "' is logged in " + way(r.via()) + ", not " + way(before);
    }
    return null;
  }

  private static String way(List<String> via) {
    return via.isEmpty() ? "directly" : "through " + String.join(", ", via);
  }

  /**
   * Whether a relay logged in now connected from {@code address}: its connections count in the
   * login limits by the address of the peer they carry, not by the relay's.
   */
  public boolean isRelayAddress(java.net.InetAddress address) {
    for (Relay r : live.values()) {
      if (address.equals(r.address())) {
        return true;
      }
    }
    return false;
  }

  /** The relays logged in now, by id. */
  public List<Relay> all() {
    List<Relay> all = new ArrayList<>(live.values());
    all.sort(Comparator.comparing(Relay::id));
    return all;
  }
}
