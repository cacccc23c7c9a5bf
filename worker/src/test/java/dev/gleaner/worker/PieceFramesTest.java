package dev.gleaner.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Piece;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PieceFramesTest {

  /** Every frame fits the limit; the parts and the last piece give back the result byte for byte. */
  @Test
  void framesFitAndJoinToTheResult() {
    Random random = new Random(12);
    int[][] edges = {{0, 4200}, {4200, 4200}, {100_000, 4200}, {150_000, 50_000}, {45_000, 50_000}};
    for (int[] e : edges) {
      check(e[0], e[1]);
    }
    for (int i = 0; i < 200; i++) {
      check(random.nextInt(200_001), 4200 + random.nextInt(70_000));
    }
  }

  private static void check(int resultBytes, int frameLimit) {
    byte[] result = new byte[resultBytes];
    for (int i = 0; i < result.length; i++) {
      result[i] = (byte) (i * 31 + 7);
    }
    Piece p = Piece.newBuilder().setJobId("job-1").setChunkId(9).setStart(100).setEnd(200)
        .setResult(ByteString.copyFrom(result)).setFinal(true).build();
    List<Envelope> frames = PieceFrames.split(p, frameLimit);
    ByteArrayOutputStream joined = new ByteArrayOutputStream();
    for (int i = 0; i < frames.size() - 1; i++) {
      Envelope f = frames.get(i);
      assertTrue(f.hasPiecePart());
      assertEquals(100, f.getPiecePart().getStart());
      assertEquals(9, f.getPiecePart().getChunkId());
      joined.writeBytes(f.getPiecePart().getData().toByteArray());
    }
    Envelope last = frames.get(frames.size() - 1);
    assertTrue(last.hasPiece());
    assertEquals(joined.size(), last.getPiece().getResultPrefixBytes());
    joined.writeBytes(last.getPiece().getResult().toByteArray());
    assertArrayEquals(result, joined.toByteArray());
    for (Envelope f : frames) {
      assertTrue(f.getSerializedSize() + 5 <= frameLimit, "a frame of " + f.getSerializedSize() + " bytes");
    }
    assertEquals(p.toBuilder().clearResult().build(),
        last.getPiece().toBuilder().clearResult().clearResultPrefixBytes().build());
  }
}
