package dev.gleaner.deploy.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.audit.StoreAudit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The audit of the master's piece acknowledgements: an acknowledgement of a piece that counted needs
 * its units in the store by then; one the master marked as not counted needs nothing.
 */
class AckAuditTest {
  private static final long T0 = 1_000_000;
  private static final List<ReportedPieces.Piece> SENT = List.of(
      new ReportedPieces.Piece("w1", "job-1", 3, 0, 10, T0 + 100),
      new ReportedPieces.Piece("w1", "job-1", 3, 10, 25, T0 + 200));

  private static ReportedPieces.Ack ack(long end, long at, boolean counted) {
    return new ReportedPieces.Ack("w1", "job-1", 3, end, at, counted);
  }

  @Test
  void anAckMarkedNotCountedNeedsNothingInTheStore() {
    AckAudit.Found found = AckAudit.check(List.of(ack(25, T0 + 210, false)), SENT,
        List.of(new StoreAudit.Committed("job-1", 0, 10, "w1", T0 + 105)), "", T0);
    assertEquals(0, found.notDurable(), found.problems().toString());
    assertEquals(List.of(), found.problems());
  }

  @Test
  void anAckOfAPieceThatCountedNeedsItsUnitsStoredByThen() {
    List<StoreAudit.Committed> stored = List.of(new StoreAudit.Committed("job-1", 0, 10, "w1", T0 + 105),
        new StoreAudit.Committed("job-1", 10, 25, "w1", T0 + 205));
    assertEquals(0, AckAudit.check(List.of(ack(10, T0 + 110, true), ack(25, T0 + 210, true)), SENT, stored, "", T0)
        .notDurable());

    // the same acknowledgement, the piece committed only after it went by
    List<StoreAudit.Committed> late = List.of(new StoreAudit.Committed("job-1", 0, 10, "w1", T0 + 105),
        new StoreAudit.Committed("job-1", 10, 25, "w1", T0 + 900));
    AckAudit.Found found = AckAudit.check(List.of(ack(10, T0 + 110, true), ack(25, T0 + 210, true)), SENT, late,
        "12:00:00.000 INFO  job-1: piece [10, 25) of chunk 3 from worker w1\n", T0);
    assertEquals(1, found.notDurable());
    assertEquals("the master acknowledged to w1 the piece of chunk 3 of job-1 ending at 25 at 0.2 s, but the store"
        + " committed it only at 0.9 s", found.problems().get(0));
    assertTrue(found.problems().get(1).startsWith("evidence for it: sent [0, 10) at 100 ms; [10, 25) at 200 ms;"),
        found.problems().get(1));

    // nothing at all in the store, and no mark: a broken promise; marked as not counted, none
    assertEquals(1, AckAudit.check(List.of(ack(25, T0 + 210, true)), SENT, List.of(), "", T0).notDurable());
    assertEquals(0, AckAudit.check(List.of(ack(25, T0 + 210, false)), SENT, List.of(), "", T0).notDurable());
  }
}
