package dev.gleaner.deploy.chaos;

import dev.gleaner.common.util.RangeSet;
import dev.gleaner.deploy.audit.StoreAudit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The master's promises checked against its store: every piece acknowledgement the chaos proxies saw
 * go by, against the pieces the store committed and when. Times in the problems it finds are
 * counted from the run's start, {@code t0} (ms, the machine's clock).
 */
final class AckAudit {
  /** Acknowledgements found with nothing durable behind them, and the problems that say so. */
  record Found(int notDurable, List<String> problems) {}

  private AckAudit() {}

  /**
   * Acknowledgements with nothing durable behind them: the master acknowledges a piece once its
   * units are in the store (its own piece, or pieces of other copies covering the same units), so
   * the store must cover the acknowledged piece's units with pieces committed no later than the
   * acknowledgement went by, unless the acknowledgement says the piece did not count (its chunk
   * cancelled, or saved in part by another copy). Each one found is a problem.
   */
  static Found check(List<ReportedPieces.Ack> acks, List<ReportedPieces.Piece> reported,
      List<StoreAudit.Committed> committed, String masterLog, long t0) {
    List<String> problems = new ArrayList<>();
    Map<String, List<StoreAudit.Committed>> byJob = new HashMap<>();
    for (StoreAudit.Committed p : committed) {
      byJob.computeIfAbsent(p.jobId(), j -> new ArrayList<>()).add(p);
    }
    int bad = 0;
    for (ReportedPieces.Ack a : acks) {
      // the acknowledged piece: the last one this worker sent of that chunk ending there (a chunk's tail
      // split off to this worker ends where the chunk it came from ends: the chunk tells them apart)
      long start = a.end();
      long sentAfter = a.end();
      for (ReportedPieces.Piece p : reported) {
        if (p.workerId().equals(a.workerId()) && p.jobId().equals(a.jobId()) && p.chunkId() == a.chunkId()
            && p.end() == a.end()) {
          if (p.atMillis() <= a.atMillis()) {
            start = p.start();
          } else if (sentAfter == a.end()) {
            sentAfter = p.start();
          }
        }
      }
      if (start == a.end()) {
        // the worker's record of the send can come a few ms after the acknowledgement's (two observers,
        // each stamping after its write): the piece is then the first one recorded after it. What is
        // checked stays the same: the store committed those units before the acknowledgement.
        start = sentAfter;
      }
      RangeSet durable = new RangeSet();
      Long at = null;
      for (StoreAudit.Committed p : byJob.getOrDefault(a.jobId(), List.of())) {
        if (p.committedAt() <= a.atMillis()) {
          durable.add(p.start(), p.end());
        }
        if (p.end() == a.end()) {
          at = at == null ? p.committedAt() : Math.min(at, p.committedAt());
        }
      }
      boolean covered = start < a.end() && durable.containsAll(start, a.end());
      if (!covered && a.counted()) {
        if (bad++ == 0) {
          problems.add(String.format(Locale.ROOT, "the master acknowledged to %s the piece of chunk %d of %s ending"
              + " at %d at %.1f s, but the store %s", a.workerId(), a.chunkId(), a.jobId(), a.end(),
              (a.atMillis() - t0) / 1000.0, at == null ? "has no such piece" : "committed it only at "
                  + String.format(Locale.ROOT, "%.1f s", (at - t0) / 1000.0)));
          problems.add(evidence(a, start, reported, acks, byJob.getOrDefault(a.jobId(), List.of()), masterLog, t0));
        }
      }
    }
    if (bad > 1) {
      problems.add((bad - 1) + " more acknowledged piece(s) with nothing durable behind them");
    }
    return new Found(bad, List.copyOf(problems));
  }

  /**
   * What lies behind an acknowledgement found with nothing durable: the pieces of its chunk the
   * worker sent and the acknowledgements it got (ms), the stored pieces sharing a unit with it
   * (with when they were committed, ms), and the master's log lines about that chunk, at most 20.
   */
  private static String evidence(ReportedPieces.Ack a, long start, List<ReportedPieces.Piece> reported,
      List<ReportedPieces.Ack> acks, List<StoreAudit.Committed> stored, String masterLog, long t0) {
    StringBuilder b = new StringBuilder("evidence for it: sent");
    for (ReportedPieces.Piece p : reported) {
      if (p.workerId().equals(a.workerId()) && p.jobId().equals(a.jobId()) && p.chunkId() == a.chunkId()) {
        b.append(String.format(Locale.ROOT, " [%d, %d) at %d ms;", p.start(), p.end(), p.atMillis() - t0));
      }
    }
    b.append(" acknowledged");
    for (ReportedPieces.Ack k : acks) {
      if (k.workerId().equals(a.workerId()) && k.jobId().equals(a.jobId()) && k.chunkId() == a.chunkId()) {
        b.append(String.format(Locale.ROOT, " up to %d at %d ms%s;", k.end(), k.atMillis() - t0,
            k.counted() ? "" : " (did not count)"));
      }
    }
    b.append(" stored");
    for (StoreAudit.Committed p : stored) {
      if (p.start() < a.end() && p.end() > Math.min(start, a.end() - 1)) {
        b.append(String.format(Locale.ROOT, " [%d, %d) by %s at %d ms;", p.start(), p.end(), p.workerId(),
            p.committedAt() - t0));
      }
    }
    b.append(" master log:");
    String needle = "chunk " + a.chunkId();
    masterLog.lines().filter(l -> l.contains(a.jobId()) && (l.contains(needle + " ") || l.contains(needle + ",")
        || l.contains("#" + a.chunkId() + "["))).limit(20).forEach(l -> b.append("\n  ").append(l));
    return b.toString();
  }
}
