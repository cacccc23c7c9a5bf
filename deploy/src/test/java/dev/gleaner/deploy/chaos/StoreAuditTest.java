package dev.gleaner.deploy.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.audit.StoreAudit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tiling check on pieces made up here: exact, with gaps, overlaps and units outside. */
class StoreAuditTest {
  private static StoreAudit.Committed piece(long start, long end) {
    return new StoreAudit.Committed("job-1", start, end, "w1", 0);
  }

  @Test
  void piecesInAnyOrderThatMeetEndToEndTileTheRange() {
    StoreAudit.Tiling t = StoreAudit.tile(10, 40, List.of(piece(25, 40), piece(10, 12), piece(12, 25)));
    assertTrue(t.exact(), t.toString());
    assertEquals(30, t.units());
    assertEquals(3, t.pieces());
  }

  @Test
  void aMissingRangeIsAGapAndNamedFirst() {
    StoreAudit.Tiling t = StoreAudit.tile(0, 100, List.of(piece(0, 30), piece(40, 90)));
    assertFalse(t.exact());
    assertEquals(20, t.gapUnits());
    assertEquals("gap [30, 40)", t.firstDefect());
  }

  @Test
  void unitsCoveredTwiceOrThriceCountOncePerExtraCover() {
    StoreAudit.Tiling t = StoreAudit.tile(0, 100, List.of(piece(0, 60), piece(50, 100), piece(55, 65)));
    assertEquals(0, t.gapUnits());
    assertEquals(10 + 10, t.overlapUnits());
    assertFalse(t.exact());
  }

  @Test
  void unitsOutsideTheRangeAndEmptyPiecesAreDefects() {
    assertEquals(5, StoreAudit.tile(10, 20, List.of(piece(5, 20))).outsideUnits());
    assertFalse(StoreAudit.tile(10, 20, List.of(piece(10, 20), piece(15, 15))).exact());
    assertTrue(StoreAudit.tile(10, 10, List.of()).exact());
    assertEquals(10, StoreAudit.tile(10, 20, new ArrayList<>()).gapUnits());
  }

  @Test
  void coveredCountsUnitsOfARangeInsideAUnion() {
    List<long[]> union = List.of(new long[] {0, 10}, new long[] {20, 30}, new long[] {25, 35});
    assertEquals(5 + 10, StoreChecks.covered(union, 5, 30));
    assertEquals(0, StoreChecks.covered(union, 10, 20));
    assertEquals(15, StoreChecks.covered(union, 20, 40));
  }
}
