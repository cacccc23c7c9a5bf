package dev.gleaner.master.auth;

import dev.gleaner.master.store.RevocationTable;
import dev.gleaner.master.store.RevocationTable.RevocationRecord;
import dev.gleaner.master.store.Store;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The revoked token ids, as the store keeps them: read by every login (any thread), changed by an
 * operator's {@code gleaner token revoke}, which is durable before the master acts on it. A
 * revocation of an id kills the token generations it had; a new token for the id needs the next
 * generation, so a copy of an old one stays dead.
 */
public final class Revocations {
  private final Store store;
  private final ConcurrentHashMap<String, RevocationRecord> byKey = new ConcurrentHashMap<>();

  /** Reads what the store holds; call before the store is attached to a loop, or on its thread. */
  public Revocations(Store store) {
    this.store = store;
    for (RevocationRecord r : store.now(RevocationTable.revocations())) {
      byKey.put(key(r.role(), r.id()), r);
    }
  }

  private static String key(String role, String id) {
    return role + ":" + id;
  }

  /** The lowest token generation of {@code role}/{@code id} that may log in (0 if never revoked). */
  public int nextGeneration(Role role, String id) {
    RevocationRecord r = byKey.get(key(Auth.roleName(role), id));
    return r == null ? 0 : r.nextGeneration();
  }

  /** The last revocation of {@code role}/{@code id}, or null. */
  public RevocationRecord revoked(Role role, String id) {
    return byKey.get(key(Auth.roleName(role), id));
  }

  /**
   * Revokes the token generations {@code role}/{@code id} has; completes once that is stored, and
   * from then on its logins are refused.
   */
  public CompletableFuture<RevocationRecord> revoke(Role role, String id, Caller by, String reason, long atMillis) {
    return store.submit(RevocationTable.revoke(Auth.roleName(role), id, atMillis, by.toString(), reason))
        .thenApply(r -> {
          byKey.merge(key(r.role(), r.id()), r, (old, now) -> now.nextGeneration() >= old.nextGeneration() ? now : old);
          return r;
        });
  }

  /** Every revoked id, oldest revocation first. */
  public List<RevocationRecord> list() {
    return byKey.values().stream().sorted(Comparator.comparingLong(RevocationRecord::at)
        .thenComparing(RevocationRecord::id)).toList();
  }

  /** The revocation as the protocol carries it (a RevokeReply, a RevocationsReply). */
  public static dev.gleaner.protocol.Revocation proto(RevocationRecord r) {
    return dev.gleaner.protocol.Revocation.newBuilder().setRole(Auth.role(r.role())).setId(r.id())
        .setNextGeneration(r.nextGeneration()).setAtMillis(r.at()).setBy(r.by())
        .setReason(r.reason() == null ? "" : r.reason()).build();
  }

  /** "revoked at 2026-11-26T10:00:00Z by operator 'root' (leaked)": when, by whom and why, in one clause. */
  public static String describe(RevocationRecord r) {
    return "revoked at " + java.time.Instant.ofEpochMilli(r.at()) + " by " + r.by()
        + (r.reason() == null || r.reason().isBlank() ? "" : " (" + r.reason() + ")");
  }
}
