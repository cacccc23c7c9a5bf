package dev.gleaner.protocol;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Reads one {@link Envelope} per frame: a 4-byte big-endian length, then that many bytes.
 *
 * <p>A length over the limit is refused as soon as the 4 length bytes arrive, before any of the
 * body is buffered, so a hostile or broken peer cannot make us hold a huge frame. After any error
 * the decoder stops reading: the connection is going to be closed by the handler that sees the
 * {@link WireException}.
 *
 * <p>With {@code sliceData}, a data frame whose payload is its last field (as the master's
 * {@link DataFrames} writes it) is not gathered: once its header has arrived, its payload goes on
 * as {@link DataFrame} parts, each a slice of the bytes as they were read from the socket, so the
 * input of a chunk is never copied between the kernel and the workload, and the workload may start
 * on a frame's first bytes. Any other data frame arrives whole, as one part.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  /** First byte of an Envelope whose body is Data: field 8, length-delimited. */
  private static final int DATA_ENVELOPE_TAG = (Envelope.DATA_FIELD_NUMBER << 3) | 2;

  private int maxFrameBytes;
  private final boolean sliceData;
  private boolean failed;
  /** When the first bytes of the frame not yet complete arrived (System.nanoTime), or 0. */
  private long frameSince;
  /** The data frame whose payload is passing through, or null. */
  private Streaming streaming;

  /** A data frame whose header has been read: its payload bytes still to come. */
  private static final class Streaming {
    final String jobId;
    final long chunkId;
    final boolean last;
    final long since;
    int remaining;

    Streaming(String jobId, long chunkId, boolean last, long since, int remaining) {
      this.jobId = jobId;
      this.chunkId = chunkId;
      this.last = last;
      this.since = since;
      this.remaining = remaining;
    }
  }

  /** The most bytes a data frame's header may take before its payload (a job id is at most a few hundred). */
  static final int MAX_DATA_HEADER_BYTES = 1024;

  public FrameDecoder(int maxFrameBytes) {
    this(maxFrameBytes, false);
  }

  /**
   * @param sliceData emit data frames as {@link DataFrame}s whose payload is a slice of the frame
   *     (no copy) instead of parsed {@link Envelope}s
   */
  public FrameDecoder(int maxFrameBytes, boolean sliceData) {
    this.sliceData = sliceData;
    if (maxFrameBytes < 1024) {
      throw new IllegalArgumentException("max frame size must be at least 1024 bytes, got " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Sets the largest frame accepted from now on (called on the channel's event loop). */
  public void limit(int bytes) {
    if (bytes < 1024) {
      throw new IllegalArgumentException("max frame size must be at least 1024 bytes, got " + bytes);
    }
    this.maxFrameBytes = bytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    while (true) {
      if (streaming != null) {
        if (!in.isReadable()) {
          return;
        }
        int n = Math.min(in.readableBytes(), streaming.remaining);
        streaming.remaining -= n;
        boolean done = streaming.remaining == 0;
        out.add(new DataFrame(streaming.jobId, streaming.chunkId, streaming.last && done, in.readRetainedSlice(n),
            streaming.since));
        if (done) {
          streaming = null;
        }
        continue;
      }
      if (in.readableBytes() < 4) {
        return;
      }
      int length = in.getInt(in.readerIndex());
      if (length < 0 || length > maxFrameBytes) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new WireException(Error.Code.FRAME_TOO_LARGE,
            "frame of " + Integer.toUnsignedString(length) + " bytes is over the limit of " + maxFrameBytes + " bytes", null);
      }
      if (sliceData && length > 0 && in.readableBytes() > 4
          && in.getUnsignedByte(in.readerIndex() + 4) == DATA_ENVELOPE_TAG) {
        if (frameSince == 0) {
          frameSince = System.nanoTime();
        }
        int header = startStreaming(in, length);
        if (header < 0) {
          // its header has not all arrived yet
          return;
        }
        if (header > 0) {
          in.skipBytes(4 + header);
          frameSince = 0;
          continue;
        }
        // not a payload-last frame: it is gathered whole below
      }
      if (in.readableBytes() < 4 + length) {
        if (frameSince == 0) {
          frameSince = System.nanoTime();
        }
        return;
      }
      long since = frameSince != 0 ? frameSince : System.nanoTime();
      frameSince = 0;
      in.skipBytes(4);
      ByteBuf frame = in.readSlice(length);
      try {
        if (sliceData && length > 0 && frame.getUnsignedByte(frame.readerIndex()) == DATA_ENVELOPE_TAG) {
          out.add(sliceData(frame, since));
          continue;
        }
        CodedInputStream input = frame.nioBufferCount() == 1
            ? CodedInputStream.newInstance(frame.nioBuffer())
            : CodedInputStream.newInstance(ByteBufs.toArray(frame));
        input.setSizeLimit(length);
        Envelope envelope = Envelope.parseFrom(input);
        if (envelope.getBodyCase() == Envelope.BodyCase.BODY_NOT_SET) {
          failed = true;
          throw new WireException(Error.Code.UNEXPECTED_MESSAGE,
              "message of an unknown type (a newer protocol?)", null);
        }
        out.add(envelope);
      } catch (InvalidProtocolBufferException e) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new WireException(Error.Code.BAD_FRAME, "malformed frame: " + e.getMessage(), e);
      } catch (java.io.IOException e) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new WireException(Error.Code.BAD_FRAME, "malformed frame: " + e.getMessage(), e);
      }
    }
  }

  /**
   * Reads the header of the data frame at the reader index (after its 4 length bytes) without
   * consuming it. Returns the header's length once it has arrived and the payload is the frame's
   * last field (then {@link #streaming} is set); 0 when the frame is not laid out so, has no
   * payload, or its header cannot be read (it is then gathered whole, and judged whole); -1 while
   * the header is incomplete.
   */
  private int startStreaming(ByteBuf in, int length) {
    int available = Math.min(in.readableBytes() - 4, Math.min(length, MAX_DATA_HEADER_BYTES));
    ByteBuf head = in.slice(in.readerIndex() + 4, available);
    CodedInputStream input = CodedInputStream.newInstance(head.nioBuffer());
    try {
      input.readTag();
      int dataLength = input.readRawVarint32();
      if (input.getTotalBytesRead() + dataLength != length) {
        return 0;
      }
      String jobId = "";
      long chunkId = 0;
      boolean last = false;
      while (input.getTotalBytesRead() < length) {
        int tag = input.readTag();
        switch (tag >>> 3) {
          case Data.JOB_ID_FIELD_NUMBER -> jobId = input.readStringRequireUtf8();
          case Data.CHUNK_ID_FIELD_NUMBER -> chunkId = input.readUInt64();
          case Data.LAST_FIELD_NUMBER -> last = input.readBool();
          case Data.PAYLOAD_FIELD_NUMBER -> {
            int payload = input.readRawVarint32();
            int header = input.getTotalBytesRead();
            if (header + payload != length || payload == 0) {
              return 0;
            }
            streaming = new Streaming(jobId, chunkId, last, frameSince != 0 ? frameSince : System.nanoTime(), payload);
            return header;
          }
          default -> input.skipField(tag);
        }
      }
      return 0;
    } catch (InvalidProtocolBufferException e) {
      // ran off the bytes that have arrived (or the header bound): wait for more, up to the bound
      if (available < Math.min(length, MAX_DATA_HEADER_BYTES)) {
        return -1;
      }
      return 0;
    } catch (java.io.IOException e) {
      return 0;
    }
  }

  /** Parses Envelope{data: Data{...}} by hand, keeping the payload as a retained slice of the frame. */
  private static DataFrame sliceData(ByteBuf frame, long since) throws java.io.IOException {
    CodedInputStream input = frame.nioBufferCount() == 1
        ? CodedInputStream.newInstance(frame.nioBuffer())
        : CodedInputStream.newInstance(ByteBufs.toArray(frame));
    input.readTag();
    int dataLength = input.readRawVarint32();
    int dataEnd = input.getTotalBytesRead() + dataLength;
    if (dataEnd != frame.readableBytes()) {
      throw new InvalidProtocolBufferException("a data frame must hold nothing but its Data message");
    }
    String jobId = "";
    long chunkId = 0;
    boolean last = false;
    int payloadAt = -1;
    int payloadLength = 0;
    while (input.getTotalBytesRead() < dataEnd) {
      int tag = input.readTag();
      switch (tag >>> 3) {
        case Data.JOB_ID_FIELD_NUMBER -> jobId = input.readStringRequireUtf8();
        case Data.CHUNK_ID_FIELD_NUMBER -> chunkId = input.readUInt64();
        case Data.LAST_FIELD_NUMBER -> last = input.readBool();
        case Data.PAYLOAD_FIELD_NUMBER -> {
          payloadLength = input.readRawVarint32();
          payloadAt = input.getTotalBytesRead();
          input.skipRawBytes(payloadLength);
        }
        default -> input.skipField(tag);
      }
    }
    ByteBuf payload = payloadAt < 0 ? io.netty.buffer.Unpooled.EMPTY_BUFFER
        : frame.retainedSlice(frame.readerIndex() + payloadAt, payloadLength);
    return new DataFrame(jobId, chunkId, last, payload, since);
  }
}
