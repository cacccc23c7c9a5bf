package dev.gleaner.master.loop;

import dev.gleaner.common.util.RangeSet;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.master.store.PieceTable;
import java.util.List;

/**
 * A job's result: its committed pieces merged in unit order, checked to tile exactly the units
 * done (none overlapping, none missing), and rendered for people. The only place the master
 * merges; a pure function of the pieces it is given.
 */
final class ResultMerge {
  private ResultMerge() {}

  /**
   * The merged result and its rendering.
   *
   * @param result the workload's merged bytes, as the store keeps them
   * @param text the result as a person reads it
   */
  record Merged(byte[] result, String text) {}

  /** The pieces do not make the job's result; the message says why, for the job's failure. */
  static final class NoResult extends Exception {
    NoResult(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Merges the pieces, given in unit order, and renders the result.
   *
   * @param done the units the pieces must tile (the whole job, or the units done by its end)
   * @throws NoResult when pieces overlap, do not tile {@code done}, or cannot be merged or rendered
   */
  static Merged of(Workload workload, List<PieceTable.PieceRecord> pieces, RangeSet done) throws NoResult {
    byte[] result = workload.empty();
    RangeSet seen = new RangeSet();
    for (PieceTable.PieceRecord piece : pieces) {
      if (seen.intersects(piece.start(), piece.end())) {
        throw new NoResult("committed pieces overlap at unit " + piece.start(), null);
      }
      seen.add(piece.start(), piece.end());
      try {
        result = workload.merge(result, piece.result());
      } catch (RuntimeException e) {
        throw new NoResult("cannot merge the stored piece [" + piece.start() + ", " + piece.end() + "): "
            + e.getMessage(), e);
      }
    }
    if (!seen.equals(done)) {
      throw new NoResult("committed pieces " + seen + " do not tile the done units " + done, null);
    }
    try {
      return new Merged(result, workload.render(result));
    } catch (RuntimeException e) {
      throw new NoResult("cannot render the result: " + e.getMessage(), e);
    }
  }
}
