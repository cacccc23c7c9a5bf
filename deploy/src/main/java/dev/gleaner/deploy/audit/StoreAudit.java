package dev.gleaner.deploy.audit;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.sqlite.SQLiteConfig;

/**
 * Reads a master's store from outside, read-only (the SQLite file {@code gleaner.db} in its data
 * directory, while the master runs or after), to check what the master says against what it wrote:
 * the pieces committed for a job must tile the job's range exactly, no gap and no overlap.
 */
public final class StoreAudit implements AutoCloseable {
  /** A committed piece: units [start, end) of a job, by a worker, at a time (ms since the epoch). */
  public record Committed(String jobId, long start, long end, String workerId, long committedAt) {
    public long units() {
      return end - start;
    }
  }

  /** A job's row: its state and its range of units. */
  public record JobRow(String id, String state, long start, long end) {}

  /**
   * How a job's committed pieces cover its range: units not covered ({@code gapUnits}), units covered
   * more than once, counted once per extra cover ({@code overlapUnits}), units outside the range,
   * and the first defect found, for people.
   */
  public record Tiling(int pieces, long units, long gapUnits, long overlapUnits, long outsideUnits, String firstDefect) {
    public boolean exact() {
      return gapUnits == 0 && overlapUnits == 0 && outsideUnits == 0 && firstDefect.isEmpty();
    }
  }

  private final Connection connection;

  private StoreAudit(Connection connection) {
    this.connection = connection;
  }

  /** Opens {@code dataDir/gleaner.db} read-only. */
  public static StoreAudit open(Path dataDir) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(5000);
    return new StoreAudit(DriverManager.getConnection("jdbc:sqlite:" + dataDir.resolve("gleaner.db"),
        config.toProperties()));
  }

  /** The job's row, or null if the store has none. */
  public JobRow job(String id) throws SQLException {
    try (PreparedStatement p = connection.prepareStatement(
        "SELECT id, state, range_start, range_end FROM jobs WHERE id=?")) {
      p.setString(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? new JobRow(r.getString(1), r.getString(2), r.getLong(3), r.getLong(4)) : null;
      }
    }
  }

  /** Every piece committed for the job, in the store's order. */
  public List<Committed> pieces(String jobId) throws SQLException {
    List<Committed> out = new ArrayList<>();
    try (PreparedStatement p = connection.prepareStatement(
        "SELECT start, end, worker_id, committed_at FROM pieces WHERE job_id=?")) {
      p.setString(1, jobId);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          out.add(new Committed(jobId, r.getLong(1), r.getLong(2), r.getString(3), r.getLong(4)));
        }
      }
    }
    return out;
  }

  /** How {@code pieces} cover [from, to). */
  public static Tiling tile(long from, long to, List<Committed> pieces) {
    List<Committed> sorted = new ArrayList<>(pieces);
    sorted.sort(Comparator.comparingLong(Committed::start).thenComparingLong(Committed::end));
    long cursor = from;
    long gap = 0;
    long overlap = 0;
    long outside = 0;
    long units = 0;
    String defect = "";
    for (Committed c : sorted) {
      if (c.end() <= c.start()) {
        defect = defect.isEmpty() ? "empty or reversed piece [" + c.start() + ", " + c.end() + ")" : defect;
        continue;
      }
      units += c.units();
      outside += Math.max(0, Math.min(c.end(), from) - c.start()) + Math.max(0, c.end() - Math.max(c.start(), to));
      long start = Math.max(c.start(), from);
      long end = Math.min(c.end(), to);
      if (end <= start) {
        continue;
      }
      if (start > cursor) {
        gap += start - cursor;
        defect = defect.isEmpty() ? "gap [" + cursor + ", " + start + ")" : defect;
      } else if (start < cursor) {
        overlap += Math.min(end, cursor) - start;
        defect = defect.isEmpty() ? "[" + start + ", " + Math.min(end, cursor) + ") committed twice (by "
            + c.workerId() + " and before)" : defect;
      }
      cursor = Math.max(cursor, end);
    }
    if (cursor < to) {
      gap += to - cursor;
      defect = defect.isEmpty() ? "gap [" + cursor + ", " + to + ")" : defect;
    }
    if (outside > 0 && defect.isEmpty()) {
      defect = outside + " units outside [" + from + ", " + to + ")";
    }
    return new Tiling(sorted.size(), units, gap, overlap, outside, defect);
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
