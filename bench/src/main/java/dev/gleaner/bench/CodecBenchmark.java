package dev.gleaner.bench;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Data;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.FrameDecoder;
import dev.gleaner.protocol.FrameEncoder;
import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.Piece;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The frame codec: encoding and decoding the small control messages of every chunk round-trip
 * (Assign, Piece) and the data frames of streamed input.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar CodecBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {
  @Param({"assign", "piece", "data-64KiB", "data-1MiB"})
  public String message;

  private Envelope envelope;
  private ByteBuf encoded;
  private EmbeddedChannel encoder;
  private EmbeddedChannel decoder;

  @Setup(Level.Trial)
  public void setUp() {
    envelope = switch (message) {
      case "assign" -> Envelope.newBuilder().setAssign(Assign.newBuilder().setJobId("job-17").setChunkId(123_456)
          .setStart(1_000_000_000L).setEnd(1_000_062_500L).setWorkload("primes").putParams("from", "0")
          .putParams("to", "30000000000").addCheckpoints(1_000_020_000L).addCheckpoints(1_000_040_000L)).build();
      case "piece" -> Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId("job-17").setChunkId(123_456)
          .setStart(1_000_040_000L).setEnd(1_000_062_500L).setResult(ByteString.copyFrom(new byte[8])).setFinal(true)).build();
      case "data-64KiB" -> data(64 * 1024);
      case "data-1MiB" -> data(1024 * 1024);
      default -> throw new IllegalArgumentException(message);
    };
    encoder = new EmbeddedChannel(new FrameEncoder(Framing.DEFAULT_MAX_FRAME_BYTES));
    decoder = new EmbeddedChannel(new FrameDecoder(Framing.DEFAULT_MAX_FRAME_BYTES));
    encoder.writeOutbound(envelope);
    ByteBuf out = encoder.readOutbound();
    encoded = Unpooled.directBuffer(out.readableBytes()).writeBytes(out);
    out.release();
  }

  private static Envelope data(int size) {
    return Envelope.newBuilder().setData(Data.newBuilder().setJobId("job-17").setChunkId(9)
        .setPayload(ByteString.copyFrom(new byte[size]))).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    encoded.release();
    encoder.finishAndReleaseAll();
    decoder.finishAndReleaseAll();
  }

  @Benchmark
  public int encode() {
    encoder.writeOutbound(envelope);
    ByteBuf out = encoder.readOutbound();
    int n = out.readableBytes();
    out.release();
    return n;
  }

  @Benchmark
  public Envelope decode() {
    decoder.writeInbound(encoded.retainedDuplicate());
    return decoder.readInbound();
  }
}
