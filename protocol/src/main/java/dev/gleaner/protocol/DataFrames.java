package dev.gleaner.protocol;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Frames a {@link Data} message whose payload is written separately (from a file, without copying
 * it through the heap). The header holds the frame length, the envelope and Data tags and every
 * Data field but the payload, then the payload's tag and length; the payload bytes follow. Protobuf
 * accepts fields in any order, so the receiver parses the frame as an ordinary {@link Envelope}.
 */
public final class DataFrames {
  private DataFrames() {}

  /** The header to write before {@code payloadBytes} bytes of payload. */
  public static ByteBuf header(ByteBufAllocator alloc, String jobId, long chunkId, boolean last, int payloadBytes) {
    Data head = Data.newBuilder().setJobId(jobId).setChunkId(chunkId).setLast(last).build();
    int payloadField = CodedOutputStream.computeTagSize(Data.PAYLOAD_FIELD_NUMBER)
        + CodedOutputStream.computeUInt32SizeNoTag(payloadBytes) + payloadBytes;
    int dataSize = head.getSerializedSize() + payloadField;
    int envelopeSize = CodedOutputStream.computeTagSize(Envelope.DATA_FIELD_NUMBER)
        + CodedOutputStream.computeUInt32SizeNoTag(dataSize) + dataSize;
    int headerSize = 4 + envelopeSize - payloadBytes;
    ByteBuf buf = alloc.ioBuffer(headerSize);
    buf.writeInt(envelopeSize);
    ByteBuffer target = buf.nioBuffer(4, headerSize - 4);
    CodedOutputStream out = CodedOutputStream.newInstance(target);
    try {
      out.writeTag(Envelope.DATA_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(dataSize);
      head.writeTo(out);
      out.writeTag(Data.PAYLOAD_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(payloadBytes);
      out.flush();
    } catch (IOException e) {
      buf.release();
      throw new IllegalStateException("cannot frame a data header", e);
    }
    buf.writerIndex(headerSize);
    return buf;
  }
}
