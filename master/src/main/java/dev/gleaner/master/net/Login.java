package dev.gleaner.master.net;

import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.auth.TokenSessions;
import dev.gleaner.protocol.Hello;

/**
 * Who a connection proved to be at its Welcome, as the {@link HandshakeHandler} hands it to the
 * handler that serves it next.
 *
 * @param hello what the peer said in its Hello (its role, id, host, cores, workloads)
 * @param caller who a client's calls act as
 * @param token its place among the sessions a revocation closes; null under the shared secret
 * @param via the relays the connection came through, nearest the master first (their Vias); empty: direct
 */
record Login(Hello hello, Caller caller, TokenSessions.Session token, java.util.List<String> via) {
  Login {
    via = java.util.List.copyOf(via);
  }

  /** The relay the connection came through (nearest the peer), or "" when it came directly. */
  String parent() {
    return via.isEmpty() ? "" : via.get(via.size() - 1);
  }

  /** The relay it came through nearest the master, its site; "" when it came directly. */
  String site() {
    return via.isEmpty() ? "" : via.get(0);
  }

  /** The connection closed: a revocation has nothing more to close here. */
  void leave(TokenSessions sessions) {
    if (token != null) {
      sessions.remove(hello.getRole(), hello.getPeerId(), token);
    }
  }
}
