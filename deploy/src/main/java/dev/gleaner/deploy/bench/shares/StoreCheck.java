package dev.gleaner.deploy.bench.shares;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a stopped master's store says of jobs: every unit of the job's range in exactly one committed
 * piece (none missing, none twice), and every chunk that ended done reaching its end (where a cut
 * left it) with its own pieces: what a worker computed before its chunk was cut was kept.
 */
final class StoreCheck {
  private StoreCheck() {}

  static Map<String, Object> check(Path db, List<String> jobs) throws SQLException {
    Map<String, Object> r = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    boolean ok = true;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + db + "?mode=ro")) {
      for (String job : jobs) {
        long[] range = range(c, job);
        long missing = 0;
        long twice = 0;
        long at = range[0];
        long pieces = 0;
        try (PreparedStatement p = c.prepareStatement("SELECT start, end FROM pieces WHERE job_id=? ORDER BY start")) {
          p.setString(1, job);
          try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
              long s = rs.getLong(1);
              long e = rs.getLong(2);
              pieces++;
              if (s > at) {
                missing += s - at;
              } else if (s < at) {
                twice += Math.min(at, e) - s;
              }
              at = Math.max(at, e);
            }
          }
        }
        missing += Math.max(0, range[1] - at);
        long shortChunks = shortChunks(c, job);
        ok &= missing == 0 && twice == 0 && shortChunks == 0;
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("pieces", pieces);
        j.put("unitsMissing", missing);
        j.put("unitsTwice", twice);
        j.put("doneChunksNotReachingTheirEnd", shortChunks);
        r.put(job, j);
        lines.add(String.format(Locale.ROOT, "%s: %d pieces, %d units missing, %d in two pieces, %d done chunk(s)"
            + " whose pieces stop short of their end", job, pieces, missing, twice, shortChunks));
      }
    }
    r.put("ok", ok);
    r.put("summary", String.join("; ", lines));
    return r;
  }

  private static long[] range(Connection c, String job) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT range_start, range_end FROM jobs WHERE id=?")) {
      p.setString(1, job);
      try (ResultSet rs = p.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("job " + job + " is not in the store");
        }
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  /** Chunks recorded DONE whose own pieces do not reach from their start to their end. */
  private static long shortChunks(Connection c, String job) throws SQLException {
    String sql = "SELECT k.chunk_id FROM chunks k WHERE k.job_id=? AND k.state='DONE' AND k.end >"
        + " (SELECT COALESCE(MAX(p.end), k.start) FROM pieces p WHERE p.job_id=k.job_id AND p.chunk_id=k.chunk_id)";
    long n = 0;
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setString(1, job);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          n++;
        }
      }
    }
    return n;
  }
}
