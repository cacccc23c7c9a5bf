package dev.gleaner.master.auth;

import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions logged in with a token, by role and id: what a revocation closes. Sessions under the
 * shared secret are not here (one trust domain: there is nothing to revoke).
 */
public final class TokenSessions {
  /** One logged-in connection: how to end it with a sentence. */
  public interface Session {
    void end(String why);
  }

  private final ConcurrentHashMap<String, Set<Session>> byKey = new ConcurrentHashMap<>();

  private static String key(Role role, String id) {
    return Auth.roleName(role) + ":" + id;
  }

  public void add(Role role, String id, Session s) {
    // inside the map's lock: a remove of the id's last other session must not drop the set this joins
    byKey.compute(key(role, id), (k, set) -> {
      Set<Session> in = set == null ? ConcurrentHashMap.newKeySet() : set;
      in.add(s);
      return in;
    });
  }

  public void remove(Role role, String id, Session s) {
    byKey.computeIfPresent(key(role, id), (k, set) -> {
      set.remove(s);
      return set.isEmpty() ? null : set;
    });
  }

  /** Ends every session of {@code role}/{@code id}; returns how many. */
  public int endAll(Role role, String id, String why) {
    Set<Session> set = byKey.get(key(role, id));
    if (set == null) {
      return 0;
    }
    List<Session> ended = List.copyOf(set);
    ended.forEach(s -> s.end(why));
    return ended.size();
  }
}
