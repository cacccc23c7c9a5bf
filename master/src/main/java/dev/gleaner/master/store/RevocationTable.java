package dev.gleaner.master.store;

import dev.gleaner.master.store.Store.Op;
import java.util.List;

/** The operations on the {@code revocations} table: revoked token ids and the generation each may log in from. */
public final class RevocationTable {
  private RevocationTable() {}

  /** A revoked token id: generations below {@code nextGeneration} are dead. */
  public record RevocationRecord(String role, String id, int nextGeneration, long at, String by, String reason) {}

  /**
   * Revokes every generation of {@code role}/{@code id} the master takes now: the next one is one
   * more than before; returns the record as stored.
   */
  public static Op<RevocationRecord> revoke(String role, String id, long at, String by, String reason) {
    return c -> {
      c.update("INSERT INTO revocations(role, id, next_generation, at, by, reason) VALUES (?,?,1,?,?,?)"
          + " ON CONFLICT(role, id) DO UPDATE SET next_generation=next_generation+1, at=excluded.at, by=excluded.by,"
          + " reason=excluded.reason", role, id, at, by, reason);
      int next = c.one("SELECT next_generation FROM revocations WHERE role=? AND id=?", r -> r.getInt(1), role, id);
      return new RevocationRecord(role, id, next, at, by, reason);
    };
  }

  /** Every revoked id, in the order of their last revocation. */
  public static Op<List<RevocationRecord>> revocations() {
    return c -> c.query("SELECT role, id, next_generation, at, by, reason FROM revocations ORDER BY at, id",
        r -> new RevocationRecord(r.getString(1), r.getString(2), r.getInt(3), r.getLong(4), r.getString(5),
            r.getString(6)));
  }
}
