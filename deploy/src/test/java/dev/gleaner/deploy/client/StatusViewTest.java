package dev.gleaner.deploy.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The status table as people read it. */
class StatusViewTest {
  private static String table(StatusReply reply) {
    StringWriter out = new StringWriter();
    StatusView.table(reply, new PrintWriter(out, true));
    return out.toString();
  }

  private static String line(String table, String worker) {
    return table.lines().filter(l -> l.startsWith("  " + worker + " ")).findFirst().orElseThrow();
  }

  /** A worker with no time up (one that joined away, or a new one) has no risk of its own: '?', as for speeds. */
  @Test
  void aWorkerWithoutHistoryShowsAQuestionMarkForItsRisk() {
    String t = table(StatusReply.newBuilder()
        .addWorkers(WorkerStatus.newBuilder().setWorkerId("away").setState("AWAY").setHost("pc-1").setCores(4)
            .setAwayReason("the owner is at the keyboard"))
        .addWorkers(WorkerStatus.newBuilder().setWorkerId("seen").setState("READY").setHost("pc-2").setCores(4)
            .setRiskRate(2.0 / 7200).setRiskInterruptions(2).setRiskExposureSeconds(7200))
        .build());
    assertTrue(line(t, "away").contains("? (no history)"), t);
    assertTrue(line(t, "seen").contains("1.00 (2 in 2.0 h)"), t);
  }
}
