package dev.gleaner.worker.relay;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.gleaner.protocol.DataFrames;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Fill;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frames going down to one peer below a relay that holds input files: the master's frames pass
 * through whole and in order, except a {@link Fill} naming this relay, which the relay answers
 * itself with the Data frames the master would have sent, read from its own copy of the file. A
 * Cancel of that chunk drops the rest; a Truncate stops it at the new end (a file's units are its
 * bytes). Fills go one after the other, as the master's streams to one worker do; the frames of the
 * master that come meanwhile go between their Data frames, as they would from the master.
 * Everything runs on the peer's event loop.
 */
final class Filler {
  private static final Logger log = LoggerFactory.getLogger(Filler.class);
  /** Bytes of input in one Data frame: small, so that the master's frames pass between them soon. */
  static final int SLICE_BYTES = 64 * 1024;

  /** A Fill under way or waiting. */
  private static final class Pending {
    final Fill fill;
    long at;
    long to;
    FileChannel file;

    Pending(Fill fill) {
      this.fill = fill;
      this.at = fill.getFrom();
      this.to = fill.getTo();
    }
  }

  private final String relayId;
  private final HeldInput held;
  private final Channel below;
  private final int maxFrameBytes;
  private final Deque<Pending> fills = new ArrayDeque<>();
  /** The jobs whose input it has sent this peer (each logged once). */
  private final java.util.Set<String> jobs = new java.util.HashSet<>();
  /** Bytes read from above that do not make a whole frame yet. */
  private ByteBuf partial;

  Filler(String relayId, HeldInput held, Channel below, int maxFrameBytes) {
    this.relayId = relayId;
    this.held = held;
    this.below = below;
    this.maxFrameBytes = maxFrameBytes;
  }

  /**
   * Bytes from above: each whole frame goes down (or is answered), the rest waits for the next
   * read. False if a frame was too long or unreadable: the connection is broken.
   */
  boolean read(ByteBuf in) {
    ByteBuf buf;
    if (partial == null) {
      buf = in;
    } else {
      // appended: a frame of several reads (the master's 4 MiB Data frames) is copied once, into a buffer it fits
      partial.writeBytes(in);
      in.release();
      buf = partial;
      partial = null;
    }
    try {
      while (buf.readableBytes() >= 4) {
        int length = buf.getInt(buf.readerIndex());
        if (length < 0 || length > maxFrameBytes) {
          log.warn("relay {}: a frame of {} bytes from above for {} (at most {}); closing it", relayId, length,
              below.remoteAddress(), maxFrameBytes);
          return false;
        }
        if (buf.readableBytes() < 4 + length) {
          // the rest of this frame is to come: kept where it all fits, so that it is copied once
          if (buf != in && buf.readerIndex() + 4L + length <= buf.capacity()) {
            partial = buf;
            buf = null;
          } else {
            partial = below.alloc().buffer(Math.max(4 + length, buf.readableBytes())).writeBytes(buf);
          }
          return true;
        }
        ByteBuf frame = buf.readRetainedSlice(4 + length);
        if (!frame(frame)) {
          return false;
        }
      }
      if (buf.isReadable()) {
        partial = below.alloc().buffer(64).writeBytes(buf);
      }
      return true;
    } finally {
      if (buf != null) {
        buf.release();
      }
    }
  }

  /** One whole frame (its length first): passed down, or a Fill taken up. */
  private boolean frame(ByteBuf frame) {
    Envelope.BodyCase kind = kind(frame);
    if (kind != Envelope.BodyCase.FILL && kind != Envelope.BodyCase.CANCEL
        && kind != Envelope.BodyCase.TRUNCATE) {
      below.write(frame, below.voidPromise());
      return true;
    }
    Envelope e;
    try {
      e = Envelope.parseFrom(frame.nioBuffer(frame.readerIndex() + 4, frame.readableBytes() - 4));
    } catch (InvalidProtocolBufferException ex) {
      frame.release();
      log.warn("relay {}: an unreadable {} frame from above for {}: {}", relayId, kind, below.remoteAddress(),
          ex.getMessage());
      return false;
    }
    if (kind == Envelope.BodyCase.FILL && e.getFill().getRelayId().equals(relayId)) {
      frame.release();
      return take(e.getFill());
    }
    if (kind == Envelope.BodyCase.CANCEL) {
      cancel(e.getCancel().getJobId(), e.getCancel().getChunkId());
    } else if (kind == Envelope.BodyCase.TRUNCATE) {
      truncate(e.getTruncate().getJobId(), e.getTruncate().getChunkId(), e.getTruncate().getEnd());
    }
    below.write(frame, below.voidPromise());
    return true;
  }

  /** The kind of an envelope from its first tag, without parsing the rest (a Data frame's payload). */
  static Envelope.BodyCase kind(ByteBuf frame) {
    try {
      int n = Math.min(frame.readableBytes() - 4, 5);
      byte[] head = new byte[Math.max(0, n)];
      frame.getBytes(frame.readerIndex() + 4, head);
      int tag = CodedInputStream.newInstance(head).readTag();
      Envelope.BodyCase kind = Envelope.BodyCase.forNumber(tag >>> 3);
      return kind == null ? Envelope.BodyCase.BODY_NOT_SET : kind;
    } catch (IOException e) {
      return Envelope.BodyCase.BODY_NOT_SET;
    }
  }

  private boolean take(Fill f) {
    HeldInput.File file = held.file(f.getName());
    if (file == null || f.getFrom() < 0 || f.getFrom() > f.getTo() || f.getTo() > file.size()) {
      log.warn("relay {}: the master asked it to send bytes {}..{} of '{}', which it does not hold; closing {}",
          relayId, f.getFrom(), f.getTo(), f.getName(), below.remoteAddress());
      return false;
    }
    if (jobs.add(f.getJobId())) {
      log.info("relay {}: sends job {}'s input from its copy '{}' to {}", relayId, f.getJobId(), f.getName(),
          below.remoteAddress());
    }
    fills.add(new Pending(f));
    return pump();
  }

  private void cancel(String job, long chunkId) {
    List<Pending> gone = new ArrayList<>();
    for (Pending p : fills) {
      if (p.fill.getJobId().equals(job) && (chunkId == 0 || p.fill.getChunkId() == chunkId)) {
        gone.add(p);
      }
    }
    for (Pending p : gone) {
      fills.remove(p);
      close(p);
    }
  }

  private void truncate(String job, long chunkId, long end) {
    for (Pending p : fills) {
      if (p.fill.getJobId().equals(job) && p.fill.getChunkId() == chunkId) {
        p.to = Math.min(p.to, Math.max(end, p.at));
      }
    }
  }

  /**
   * Sends Data frames of the first Fill while the peer's connection takes them (called again when it
   * drains); a Fill done, the next one's. False if its file could not be read (the peer is closed).
   */
  boolean pump() {
    while (below.isActive() && below.isWritable() && !fills.isEmpty()) {
      Pending p = fills.peek();
      try {
        if (p.file == null) {
          p.file = held.open(p.fill.getName());
        }
        int n = (int) Math.min(SLICE_BYTES, p.to - p.at);
        boolean last = p.at + n == p.to;
        ByteBufAllocator alloc = below.alloc();
        ByteBuf payload = alloc.ioBuffer(n);
        try {
          while (payload.writerIndex() < n) {
            int got = payload.writeBytes(p.file, p.at + payload.writerIndex(), n - payload.writerIndex());
            if (got < 0) {
              throw new IOException("the file ended at byte " + (p.at + payload.writerIndex()));
            }
          }
        } catch (IOException e) {
          payload.release();
          throw e;
        }
        below.write(DataFrames.header(alloc, p.fill.getJobId(), p.fill.getChunkId(), last, n), below.voidPromise());
        below.write(payload, below.voidPromise());
        p.at += n;
        if (last) {
          fills.poll();
          close(p);
        }
      } catch (IOException e) {
        // the master hears it holds the file no more: the worker, back, gets its input from the master
        log.error("relay {}: cannot send '{}' to {}: {}; it no longer offers that file, and closes the worker's"
            + " connection", relayId, p.fill.getName(), below.remoteAddress(), e.getMessage(), e);
        held.withdraw(p.fill.getName());
        release();
        below.close();
        return false;
      }
    }
    below.flush();
    return true;
  }

  /** The peer's connection closed: every file is closed, every buffer released. */
  void release() {
    for (Pending p : fills) {
      close(p);
    }
    fills.clear();
    if (partial != null) {
      partial.release();
      partial = null;
    }
  }

  private void close(Pending p) {
    if (p.file != null) {
      try {
        p.file.close();
      } catch (IOException e) {
        log.warn("relay {}: closing '{}' failed: {}", relayId, p.fill.getName(), e.toString(), e);
      }
      p.file = null;
    }
  }
}
