package dev.gleaner.master.net;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PiecePart;

/**
 * Joins the PieceParts of one worker's piece whose result is over a frame with its last Piece. A
 * worker sends a piece's frames back to back, so one assembly per connection is enough; anything
 * else (parts of another piece in between, parts over the result limit, a Piece whose prefix does
 * not match what arrived) is a protocol error that ends the session, and the worker sends the piece
 * again on its next one.
 */
final class PieceAssembly {
  /** A worker broke the rules of PieceParts; the message says how. */
  static final class Broken extends Exception {
    Broken(String message) {
      super(message);
    }
  }

  private final long maxResultBytes;
  private String jobId;
  private long chunkId;
  private long start;
  private ByteString bytes = ByteString.EMPTY;

  PieceAssembly(long maxResultBytes) {
    this.maxResultBytes = maxResultBytes;
  }

  void part(PiecePart p) throws Broken {
    if (jobId == null) {
      jobId = p.getJobId();
      chunkId = p.getChunkId();
      start = p.getStart();
    } else if (!same(p.getJobId(), p.getChunkId(), p.getStart())) {
      throw new Broken("a part of the piece at " + p.getStart() + " of chunk " + p.getChunkId() + " of job "
          + p.getJobId() + " came before the piece at " + start + " of chunk " + chunkId + " of job " + jobId
          + " was complete");
    }
    if ((long) bytes.size() + p.getData().size() > maxResultBytes) {
      throw new Broken("the result of the piece at " + start + " of chunk " + chunkId + " of job " + jobId
          + " is over the limit of " + maxResultBytes + " bytes for one piece (--max-result-mib)");
    }
    bytes = bytes.concat(p.getData());
  }

  /** The piece with its whole result. */
  Piece complete(Piece last) throws Broken {
    long prefix = last.getResultPrefixBytes();
    if (prefix == 0 && jobId == null) {
      return last;
    }
    if (jobId == null || !same(last.getJobId(), last.getChunkId(), last.getStart()) || prefix != bytes.size()) {
      String had = jobId == null ? "no parts" : bytes.size() + " bytes of parts of the piece at " + start
          + " of chunk " + chunkId + " of job " + jobId;
      throw new Broken("the piece at " + last.getStart() + " of chunk " + last.getChunkId() + " of job "
          + last.getJobId() + " says " + prefix + " bytes of its result came before it, but there were " + had);
    }
    if ((long) bytes.size() + last.getResult().size() > maxResultBytes) {
      throw new Broken("the result of the piece at " + start + " of chunk " + chunkId + " of job " + jobId
          + " is over the limit of " + maxResultBytes + " bytes for one piece (--max-result-mib)");
    }
    Piece whole = last.toBuilder().setResult(bytes.concat(last.getResult())).setResultPrefixBytes(0).build();
    jobId = null;
    bytes = ByteString.EMPTY;
    return whole;
  }

  private boolean same(String job, long chunk, long at) {
    return job.equals(jobId) && chunk == chunkId && at == start;
  }
}
