package dev.gleaner.protocol;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;

/** Installs the frame codec; the one place that says how bytes become messages. */
public final class Framing {
  /** Default hard maximum of one frame: 16 MiB. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
  /** Size of the data slices a chunk's input is streamed in. */
  public static final int DATA_SLICE_BYTES = 4 * 1024 * 1024;

  private Framing() {}

  /** Adds {@code frame-decoder} and {@code frame-encoder} at the head of the pipeline. */
  public static void install(ChannelPipeline pipeline, int maxFrameBytes) {
    install(pipeline, maxFrameBytes, false);
  }

  /** The frame decoder {@link #install} put in this pipeline, to change its limit. */
  public static FrameDecoder decoder(ChannelPipeline pipeline) {
    return (FrameDecoder) pipeline.get("frame-decoder");
  }

  /** Like {@link #install(ChannelPipeline, int)}; with {@code sliceData}, data frames arrive as {@link DataFrame}s. */
  public static void install(ChannelPipeline pipeline, int maxFrameBytes, boolean sliceData) {
    // many small frames (assignments, pieces, acks) leave in one syscall instead of one each
    pipeline.addLast("flush-consolidation", new FlushConsolidationHandler(256, true));
    pipeline.addLast("frame-decoder", new FrameDecoder(maxFrameBytes, sliceData));
    pipeline.addLast("frame-encoder", new FrameEncoder(maxFrameBytes));
  }
}
