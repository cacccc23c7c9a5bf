package dev.gleaner.master.net;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.ResultPart;
import dev.gleaner.protocol.ResultRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result larger than a connection's write buffer (2 MiB) reaches the client whole: the master
 * writes parts until the connection stops taking them, and the rest as it drains.
 */
class ResultStreamTest {
  @TempDir
  Path dir;

  @Test
  void aResultOverTheWriteBufferIsStreamedWholeAsTheConnectionDrains() throws Exception {
    Path file = dir.resolve("many.txt");
    String text = MasterFixture.writeGattacaLines(file, 160_000, " GATTACA GATTACA");
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir))) {
      String id = m.submit(MasterFixture.grepGattaca(file, 1_000_000));
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w")) {
        assertEquals("DONE", m.awaitEnd(id).getState());
      }
      String whole = "160000 matching lines\n" + String.join("\n", text.lines().toList());
      assertTrue(whole.length() > 2 * 2 * 1024 * 1024, "twice the write buffer's high-water mark");
      try (RawPeer client = RawPeer.client(m.port, SECRET)) {
        // twice: a second stream on the same connection starts from its own first part
        for (int round = 0; round < 2; round++) {
          client.send(Envelope.newBuilder().setResultRequest(ResultRequest.newBuilder().setJobId(id)).build());
          ByteArrayOutputStream got = new ByteArrayOutputStream();
          int parts = 0;
          for (boolean last = false; !last; parts++) {
            Envelope e = client.read();
            assertTrue(e.hasResultPart(), "expected a part of the result, got " + e);
            ResultPart part = e.getResultPart();
            assertEquals(id, part.getJobId());
            part.getData().writeTo(got);
            last = part.getLast();
          }
          assertEquals(whole, got.toString(StandardCharsets.UTF_8));
          assertTrue(parts > 16, "streamed in parts of 256 KiB: " + parts);
        }
      }
    }
  }
}
