package dev.gleaner.master.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PiecePart;
import org.junit.jupiter.api.Test;

class PieceAssemblyTest {
  private static PiecePart part(long chunk, long start, String data) {
    return PiecePart.newBuilder().setJobId("job-1").setChunkId(chunk).setStart(start)
        .setData(ByteString.copyFromUtf8(data)).build();
  }

  private static Piece last(long chunk, long start, String rest, long prefix) {
    return Piece.newBuilder().setJobId("job-1").setChunkId(chunk).setStart(start).setEnd(start + 10)
        .setResult(ByteString.copyFromUtf8(rest)).setResultPrefixBytes(prefix).setFinal(true).build();
  }

  @Test
  void partsAndTheLastPieceJoinInOrderAndTheNextPieceStartsAfresh() throws Exception {
    PieceAssembly a = new PieceAssembly(100);
    a.part(part(3, 0, "abc"));
    a.part(part(3, 0, "def"));
    Piece whole = a.complete(last(3, 0, "gh", 6));
    assertEquals("abcdefgh", whole.getResult().toStringUtf8());
    assertEquals(0, whole.getResultPrefixBytes());
    assertEquals(10, whole.getEnd());
    // a piece in one frame passes through unchanged
    Piece small = last(3, 10, "xy", 0);
    assertEquals(small, a.complete(small));
  }

  @Test
  void partsOfAnotherPieceInBetweenAreRefused() throws Exception {
    PieceAssembly a = new PieceAssembly(100);
    a.part(part(3, 0, "abc"));
    PieceAssembly.Broken e = assertThrows(PieceAssembly.Broken.class, () -> a.part(part(4, 0, "x")));
    assertTrue(e.getMessage().contains("before the piece at 0 of chunk 3 of job job-1 was complete"), e.getMessage());
  }

  @Test
  void aLastPieceWhosePrefixDoesNotMatchIsRefused() throws Exception {
    PieceAssembly a = new PieceAssembly(100);
    a.part(part(3, 0, "abc"));
    assertThrows(PieceAssembly.Broken.class, () -> a.complete(last(3, 0, "d", 5)));
    PieceAssembly b = new PieceAssembly(100);
    PieceAssembly.Broken e = assertThrows(PieceAssembly.Broken.class, () -> b.complete(last(3, 0, "d", 5)));
    assertTrue(e.getMessage().contains("says 5 bytes of its result came before it, but there were no parts"), e.getMessage());
  }

  @Test
  void aResultOverTheLimitIsRefusedAsItArrivesNotHeld() throws Exception {
    PieceAssembly a = new PieceAssembly(8);
    a.part(part(3, 0, "abcdef"));
    PieceAssembly.Broken e = assertThrows(PieceAssembly.Broken.class, () -> a.part(part(3, 0, "ghi")));
    assertTrue(e.getMessage().contains("over the limit of 8 bytes for one piece (--max-result-mib)"), e.getMessage());
    PieceAssembly b = new PieceAssembly(8);
    b.part(part(3, 0, "abcdef"));
    assertThrows(PieceAssembly.Broken.class, () -> b.complete(last(3, 0, "ghi", 6)));
  }
}
