package dev.gleaner.worker;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PiecePart;
import java.util.ArrayList;
import java.util.List;

/** Cuts a piece whose result is over one frame into PieceParts and a last Piece. */
final class PieceFrames {
  /** Room left in each frame for the envelope, the ids and the other fields of a piece. */
  static final int OVERHEAD = 4096;

  private PieceFrames() {}

  /** The frames that carry {@code p} under a frame limit of {@code maxFrameBytes}, in order. */
  static List<Envelope> split(Piece p, int maxFrameBytes) {
    Envelope whole = Envelope.newBuilder().setPiece(p).build();
    // the frame's length prefix is at most 5 bytes
    if (whole.getSerializedSize() + 5 <= maxFrameBytes) {
      return List.of(whole);
    }
    int part = maxFrameBytes - OVERHEAD;
    if (part <= 0) {
      throw new IllegalArgumentException("a frame limit of " + maxFrameBytes + " bytes leaves no room for a result");
    }
    ByteString result = p.getResult();
    List<Envelope> frames = new ArrayList<>(result.size() / part + 1);
    int at = 0;
    // the last piece keeps at least one byte, so a result is never sent as parts alone
    while (result.size() - at > part) {
      frames.add(Envelope.newBuilder().setPiecePart(PiecePart.newBuilder().setJobId(p.getJobId())
          .setChunkId(p.getChunkId()).setStart(p.getStart()).setData(result.substring(at, at + part))).build());
      at += part;
    }
    frames.add(Envelope.newBuilder().setPiece(p.toBuilder().setResult(result.substring(at))
        .setResultPrefixBytes(at)).build());
    return frames;
  }
}
