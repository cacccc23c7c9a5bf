package dev.gleaner.master.net;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.JobSpec;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one port is held while bytes go onto a worker's wire, not while a worker does not read. */
class OnePortTest {
  @TempDir
  Path dir;

  @Test
  void aWorkerThatStopsReadingDoesNotHoldThePortFromTheOthers() throws Exception {
    // regression: the port waited for a busy worker to read its whole chunk; a fast worker got nothing for 60 s
    Path file = dir.resolve("reads.txt");
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
      String line = "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACG\n";
      for (long written = 0; written < 96L << 20; written += line.length()) {
        w.write(line);
      }
    }
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"),
        c -> c.withHeartbeat(Duration.ofMillis(100), Duration.ofMinutes(10)).withServe(dir))) {
      try (RawPeer stuck = RawPeer.worker(m.port, SECRET, "stuck")) {
        // stuck joins first, so its chunks are asked for first; it will never read a byte of them
        String job = m.submit(JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString())
            .putParams("pattern", "TTT").setStrategy("self").setChunkUnits(24L << 20).setMinWorkers(2).build());
        try (RawPeer fast = RawPeer.worker(m.port, SECRET, "fast")) {
          Envelope first = fast.readSkippingAcks(30_000);
          assertTrue(first != null && first.hasAssign(), "expected an assignment, got " + first);
          Assign a = first.getAssign();
          long got = 0;
          while (got < a.getDataBytes()) {
            Envelope e = fast.readSkippingAcks(30_000);
            assertTrue(e != null, "the fast worker's input stalled after " + got + " of " + a.getDataBytes() + " bytes");
            if (e.hasData() && e.getData().getChunkId() == a.getChunkId()) {
              got += e.getData().getPayload().size();
            }
          }
          assertEquals(a.getDataBytes(), got, "all of the fast worker's input arrived while stuck read nothing");
          assertTrue(m.job(job).getUnitsDone() == 0);
        }
      }
    }
  }
}
