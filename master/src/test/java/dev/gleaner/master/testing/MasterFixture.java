package dev.gleaner.master.testing;

import static org.awaitility.Awaitility.await;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.Submit;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** A master on an ephemeral loopback port with its store in a test's temporary folder. */
public final class MasterFixture implements AutoCloseable {
  public static final byte[] SECRET = "test-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  public final MasterServer server;
  public final int port;

  private MasterFixture(MasterServer server) {
    this.server = server;
    this.port = server.port();
  }

  public static MasterFixture start(Path data) throws InterruptedException {
    return start(data, UnaryOperator.identity());
  }

  public static MasterFixture start(Path data, UnaryOperator<MasterConfig> tweak) throws InterruptedException {
    return start(new InetSocketAddress("127.0.0.1", 0), data, tweak);
  }

  /** A master on {@code bind} (an ephemeral port if its port is 0). */
  public static MasterFixture start(InetSocketAddress bind, Path data, UnaryOperator<MasterConfig> tweak)
      throws InterruptedException {
    MasterConfig config = tweak.apply(MasterConfig.defaults(bind, data, SECRET, Workloads.of()).withServe(data));
    return new MasterFixture(new MasterServer(config).start());
  }

  /** Submits through a real client connection; returns the job id. */
  public String submit(JobSpec spec) throws IOException {
    try (RawPeer client = RawPeer.client(port, SECRET)) {
      client.send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(spec)).build());
      Envelope reply = client.read();
      if (!reply.hasSubmitReply()) {
        throw new IllegalStateException("submit refused: " + reply);
      }
      return reply.getSubmitReply().getJobId();
    }
  }

  public JobStatus job(String id) {
    return server.status(id).getJobs(0);
  }

  public JobStatus awaitEnd(String id) {
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      String s = job(id).getState();
      return s.equals("DONE") || s.equals("DONE_PARTIAL") || s.equals("FAILED") || s.equals("CANCELLED");
    });
    return job(id);
  }

  /**
   * Writes {@code lines} lines {@code "line I GATTACA" + tail} to {@code file}, each matching
   * {@link #grepGattaca}; returns the text written.
   */
  public static String writeGattacaLines(Path file, int lines, String tail) throws IOException {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      text.append("line ").append(i).append(" GATTACA").append(tail).append('\n');
    }
    java.nio.file.Files.writeString(file, text, StandardCharsets.UTF_8);
    return text.toString();
  }

  /** A job that keeps every line of {@code file} (served by the master) holding GATTACA, in chunks of that many bytes. */
  public static JobSpec grepGattaca(Path file, long chunkUnits) {
    return JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString()).putParams("pattern", "GATTACA")
        .putParams("max-lines", "1000000").setChunkUnits(chunkUnits).build();
  }

  public static JobSpec primes(long from, long to, String strategy, long chunkUnits, int checkpoints) {
    return JobSpec.newBuilder().setWorkload("primes").putParams("from", Long.toString(from))
        .putParams("to", Long.toString(to)).setStrategy(strategy).setChunkUnits(chunkUnits)
        .setCheckpoints(checkpoints).build();
  }

  @Override
  public void close() {
    server.close();
  }
}
