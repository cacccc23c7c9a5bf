package dev.gleaner.deploy.bench.tree;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What the master's store says of a job's chunks, read from its database on a read-only connection
 * of its own (SQLite's WAL lets it read while the master writes): how many were handed out, and how
 * many ended each way. A chunk WITHDRAWN is one whose worker was lost or set aside and whose unsaved
 * units went to others, to be computed again: after a relay's loss, a delegated chunk computed twice
 * shows here.
 */
public final class ChunkLedger {
  /**
   * The counts of one job.
   *
   * @param chunks chunks handed out
   * @param done chunks whose final piece is committed
   * @param cancelled copies cancelled (a replica, a tail moved)
   * @param withdrawn chunks whose worker was lost and whose unsaved units went to others
   * @param withdrawnUnits the units of those chunks
   */
  public record Counts(long chunks, long done, long cancelled, long withdrawn, long withdrawnUnits) {}

  private ChunkLedger() {}

  /** The counts of {@code job} in the store under the master's data directory {@code dataDir}. */
  public static Counts of(Path dataDir, String job) throws SQLException {
    Path db = dataDir.resolve("gleaner.db");
    if (!Files.isRegularFile(db)) {
      throw new IllegalArgumentException("no store at " + db);
    }
    org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
    config.setReadOnly(true);
    try (Connection c = config.createConnection("jdbc:sqlite:" + db);
        PreparedStatement q = c.prepareStatement("SELECT state, count(*), coalesce(sum(end - start), 0) FROM chunks"
            + " WHERE job_id = ? GROUP BY state")) {
      q.setString(1, job);
      long chunks = 0;
      long done = 0;
      long cancelled = 0;
      long withdrawn = 0;
      long withdrawnUnits = 0;
      try (ResultSet r = q.executeQuery()) {
        while (r.next()) {
          long n = r.getLong(2);
          chunks += n;
          switch (r.getString(1)) {
            case "DONE" -> done += n;
            case "CANCELLED" -> cancelled += n;
            case "WITHDRAWN" -> {
              withdrawn += n;
              withdrawnUnits += r.getLong(3);
            }
            default -> {
              // ASSIGNED: still out (the job is not over)
            }
          }
        }
      }
      return new Counts(chunks, done, cancelled, withdrawn, withdrawnUnits);
    }
  }
}
