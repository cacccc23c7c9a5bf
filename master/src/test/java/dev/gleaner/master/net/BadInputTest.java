package dev.gleaner.master.net;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.protocol.AuthResponse;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.ProtocolVersion;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusRequest;
import dev.gleaner.protocol.Submit;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of bad input gets an error the peer can read, and closes only that connection: a job
 * computed meanwhile by a well-behaved worker still ends with the exact answer.
 */
class BadInputTest {
  @TempDir
  Path dir;
  MasterFixture master;
  ScriptedWorker good;
  String job;

  @BeforeEach
  void startMasterWithARunningJob() throws Exception {
    master = MasterFixture.start(dir);
    job = master.submit(MasterFixture.primes(0, 3_000_000, "self", 50_000, 2));
    good = new ScriptedWorker(master.port, SECRET, "good");
  }

  @AfterEach
  void theRunningJobStillEndsExactly() throws Exception {
    try {
      var status = master.awaitEnd(job);
      assertEquals("DONE", status.getState(), status.getMessage());
      long expected = new PrimeSieve().count(0, 3_000_000, ChunkComputation.Cancellation.NEVER);
      assertEquals(expected + " primes", status.getResult());
      assertEquals(null, good.failure);
    } finally {
      good.close();
      master.close();
    }
  }

  private static Error errorThenClose(RawPeer peer) throws Exception {
    Envelope e = peer.read();
    assertTrue(e.hasError(), "expected an error, got " + e);
    assertTrue(peer.closedByMaster(), "the master should close the connection after an error");
    return e.getError();
  }

  @Test
  void malformedFrame() throws Exception {
    try (RawPeer p = new RawPeer(master.port)) {
      p.sendRaw(ByteBuffer.allocate(8).putInt(4).putInt(0xffffffff).array());
      Error e = errorThenClose(p);
      assertEquals(Error.Code.BAD_FRAME, e.getCode());
    }
  }

  @Test
  void frameOverTheLimit() throws Exception {
    try (RawPeer p = new RawPeer(master.port)) {
      p.sendRaw(ByteBuffer.allocate(4).putInt(64 * 1024 * 1024).array());
      Error e = errorThenClose(p);
      assertEquals(Error.Code.FRAME_TOO_LARGE, e.getCode());
      assertTrue(e.getMessage().contains("over the limit"), e.getMessage());
    }
  }

  @Test
  void wrongProtocolVersionNamesBothVersions() throws Exception {
    try (RawPeer p = new RawPeer(master.port)) {
      p.send(Envelope.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(99).setRole(Role.WORKER)
          .setPeerId("future")).build());
      Error e = errorThenClose(p);
      assertEquals(Error.Code.VERSION_MISMATCH, e.getCode());
      assertTrue(e.getMessage().contains("99") && e.getMessage().contains("version " + ProtocolVersion.CURRENT), e.getMessage());
    }
  }

  @Test
  void wrongSecretFailsAuthentication() throws Exception {
    try (RawPeer p = new RawPeer(master.port)) {
      p.send(Messages.hello(Role.WORKER, "intruder", "h", 1, List.of("primes")));
      assertTrue(p.read().hasChallenge());
      p.send(Envelope.newBuilder().setAuthResponse(AuthResponse.newBuilder()
          .setMac(ByteString.copyFrom(new byte[32]))).build());
      Error e = errorThenClose(p);
      assertEquals(Error.Code.AUTH_FAILED, e.getCode());
    }
    assertTrue(master.server.liveWorkers().stream().noneMatch("intruder"::equals));
  }

  @Test
  void clientTalkingBeforeAuthenticating() throws Exception {
    try (RawPeer p = new RawPeer(master.port)) {
      p.send(Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
      Error e = errorThenClose(p);
      assertEquals(Error.Code.NOT_AUTHENTICATED, e.getCode());
    }
  }

  @Test
  void jobWithATypoOrAnUnknownWorkloadIsRefusedAndTheClientMayTryAgain() throws Exception {
    try (RawPeer client = RawPeer.client(master.port, SECRET)) {
      client.send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(JobSpec.newBuilder()
          .setWorkload("primes").putParams("tp", "100"))).build());
      Envelope typo = client.read();
      assertEquals(Error.Code.BAD_JOB, typo.getError().getCode());
      assertTrue(typo.getError().getMessage().contains("'tp'"), typo.getError().getMessage());

      client.send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(JobSpec.newBuilder()
          .setWorkload("primez").putParams("to", "100"))).build());
      Envelope unknown = client.read();
      assertEquals(Error.Code.BAD_JOB, unknown.getError().getCode());
      assertTrue(unknown.getError().getMessage().contains("unknown workload 'primez'"), unknown.getError().getMessage());

      client.send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(JobSpec.newBuilder()
          .setWorkload("grep").putParams("file", dir.resolve("missing.txt").toString()).putParams("pattern", "x"))).build());
      Envelope missing = client.read();
      assertTrue(missing.getError().getMessage().contains("does not exist"), missing.getError().getMessage());

      // a job may not make the master read what it does not serve, nor block it on a FIFO
      java.nio.file.Path outside = java.nio.file.Files.createTempFile("gleaner-outside", ".txt");
      java.nio.file.Path link = dir.resolve("link-to-outside.txt");
      java.nio.file.Path fifo = dir.resolve("fifo");
      try {
        java.nio.file.Files.createSymbolicLink(link, outside);
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (java.nio.file.Path p : List.of(outside, link, fifo)) {
          client.send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(JobSpec.newBuilder()
              .setWorkload("grep").putParams("file", p.toString()).putParams("pattern", "x"))).build());
          Envelope refused = client.read();
          assertEquals(Error.Code.BAD_JOB, refused.getError().getCode(), p.toString());
          String says = p.equals(fifo) ? "is not a regular file" : "is not under a directory this master serves";
          assertTrue(refused.getError().getMessage().contains(says), refused.getError().getMessage());
        }
      } finally {
        java.nio.file.Files.deleteIfExists(outside);
      }

      client.send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(MasterFixture.primes(0, 100, "", 0, 0))).build());
      assertTrue(client.read().hasSubmitReply(), "the same connection still accepts a good job");
    }
  }

  @Test
  void resultForAChunkTheWorkerWasNeverAssigned() throws Exception {
    try (RawPeer p = RawPeer.worker(master.port, SECRET, "liar")) {
      p.send(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(job).setChunkId(987_654).setStart(0).setEnd(10)
          .setResult(ByteString.copyFrom(new byte[8])).setFinal(true)).build());
      Envelope e;
      do {
        e = p.read();
      } while (e.hasAssign() || e.hasPieceAck());
      assertEquals(Error.Code.UNKNOWN_CHUNK, e.getError().getCode());
      assertTrue(p.closedByMaster());
    }
  }

  @Test
  void malformedResultIsRefusedBeforeItCountsAndItsUnitsAreDoneElsewhere() throws Exception {
    try (RawPeer p = RawPeer.worker(master.port, SECRET, "garbler")) {
      Envelope e;
      do {
        e = p.read();
      } while (!e.hasAssign());
      var a = e.getAssign();
      // a count result has 8 bytes; 3 cannot be merged, and must not wedge the job at its end
      p.send(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(job).setChunkId(a.getChunkId())
          .setStart(a.getStart()).setEnd(a.getEnd()).setResult(ByteString.copyFrom(new byte[3])).setFinal(true))
          .build());
      do {
        e = p.read();
      } while (e.hasAssign() || e.hasPieceAck());
      assertEquals(Error.Code.BAD_RESULT, e.getError().getCode());
      assertTrue(e.getError().getMessage().contains("malformed primes result (3 bytes)"), e.getError().getMessage());
      assertTrue(p.closedByMaster());
    }
    // the master ended that session, the computer did not go away: no interruption in its risk
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> worker("garbler")
        .getState().equals("GONE"));
    assertEquals(0, worker("garbler").getInterruptions());
    assertEquals(0, worker("garbler").getRiskInterruptions());
  }

  private dev.gleaner.protocol.WorkerStatus worker(String id) {
    return master.server.status(null).getWorkersList().stream().filter(w -> w.getWorkerId().equals(id)).findFirst()
        .orElseThrow();
  }

  @Test
  void aSecondProcessUnderALiveWorkersIdIsRefusedAndTheFirstKeepsItsSession() throws Exception {
    try (RawPeer first = RawPeer.worker(master.port, SECRET, "twin", 11)) {
      try (RawPeer second = RawPeer.worker(master.port, SECRET, "twin", 22)) {
        Envelope e;
        do {
          e = second.read();
        } while (!e.hasError());
        assertEquals(Error.Code.ID_IN_USE, e.getError().getCode());
        assertTrue(e.getError().getMessage().contains("worker id 'twin' is in use by a live worker"),
            e.getError().getMessage());
        assertTrue(second.closedByMaster());
      }
      // the first was not evicted: it is still handed work
      Envelope e;
      do {
        e = first.read();
      } while (!e.hasAssign() && !e.hasError());
      assertTrue(e.hasAssign(), e.toString());
      // the same process reconnecting (its old connection not yet seen closed) replaces its session
      try (RawPeer again = RawPeer.worker(master.port, SECRET, "twin", 11)) {
        assertTrue(first.closedByMaster());
      }
    }
  }

  @Test
  void beforeLoggingInAFrameMayHoldOnlyAHandshake() throws Exception {
    try (RawPeer p = new RawPeer(master.port)) {
      p.sendRaw(ByteBuffer.allocate(4).putInt(100_000).array());
      Error e = errorThenClose(p);
      assertEquals(Error.Code.FRAME_TOO_LARGE, e.getCode());
      assertTrue(e.getMessage().contains("over the limit of 65536 bytes"), e.getMessage());
    }
  }

  @Test
  void idleConnectionsFromOneAddressCannotLockTheOperatorOutOfIt() throws Exception {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
        .until(() -> master.server.liveWorkers().contains("good"));
    var waiting = master.server.registry().get("gleaner.connections.logging.in").gauge();
    var evicted = master.server.registry().get("gleaner.connections.evicted").counter();
    double evictedBefore = evicted.count();
    List<RawPeer> idle = new java.util.ArrayList<>();
    try {
      // another process on the master's machine holds the 16 places of 127.0.0.1 with idle sockets
      for (int i = 0; i < 16; i++) {
        idle.add(new RawPeer(master.port));
      }
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiting.value() == 16);
      // the operator's status from that address is served once they have waited out the gate's grace
      // (2 s; refused before that, as the gate's own test shows on its clock), long before their 30 s
      // to log in end: it closes the one that has waited longest instead of being refused
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
          .pollInterval(java.time.Duration.ofMillis(500)).until(() -> {
            try (RawPeer client = RawPeer.client(master.port, SECRET)) {
              client.send(Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
              return client.read().hasStatusReply();
            } catch (java.io.IOException refused) {
              return false;
            }
          });
      // the eviction is counted on the evicted connection's own thread, which may run after the status
      // was served (it did once in 13 runs with a core busy)
      org.awaitility.Awaitility.await("an idle connection was closed to make room")
          .atMost(java.time.Duration.ofSeconds(10)).until(() -> evicted.count() > evictedBefore);
      // the other 15 still wait: the address is back within its bound
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiting.value() == 15);
    } finally {
      for (RawPeer p : idle) {
        p.close();
      }
    }
  }

  @Test
  void idleConnectionsFromManyAddressesCannotShutOutARealClient() throws Exception {
    List<java.net.Socket> idle = new java.util.ArrayList<>();
    try {
      // 17 addresses, 16 idle connections each: past the gate's bound of 256
      for (int a = 1; a <= 17; a++) {
        for (int i = 0; i < 16; i++) {
          java.net.Socket s = new java.net.Socket();
          s.bind(new java.net.InetSocketAddress("127.0.3." + a, 0));
          s.connect(new java.net.InetSocketAddress("127.0.0.1", master.port));
          idle.add(s);
        }
      }
      var waiting = master.server.registry().get("gleaner.connections.logging.in").gauge();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiting.value() >= 256);
      // a real client still logs in: the master stops accepting while no idle connection has waited
      // out the grace, then closes those waiting longest to make room
      try (RawPeer client = RawPeer.client(master.port, SECRET)) {
        client.send(Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
        assertTrue(client.read().hasStatusReply());
      }
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
        for (java.net.Socket s : idle) {
          s.setSoTimeout(1);
          try {
            if (s.getInputStream().read() == -1) {
              return true;
            }
          } catch (java.net.SocketTimeoutException stillOpen) {
            // not this one
          }
        }
        return false;
      });
    } finally {
      for (java.net.Socket s : idle) {
        s.close();
      }
    }
  }
}
