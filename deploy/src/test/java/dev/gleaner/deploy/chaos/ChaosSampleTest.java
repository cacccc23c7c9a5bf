package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.Gleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.deploy.launch.Signals;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A short seeded sample of {@code gleaner chaos}, through the command line as people run it: two runs
 * of a master JVM and three worker JVMs, eight faults taken in order (the master killed right behind a
 * piece and while chunks are out, a stall and a reset at the proxies, a worker killed and one
 * terminated, the master's store full for seconds, its wall clock jumping), every answer exact and every job's pieces tiling its range. Every process the
 * command starts it ends by pid; this test checks that none is left, and ends any it finds.
 */
class ChaosSampleTest {
  private final List<Long> before = new ArrayList<>();

  @BeforeEach
  void noteChildren() {
    ProcessHandle.current().descendants().forEach(p -> before.add(p.pid()));
  }

  @AfterEach
  void noProcessLeft() {
    List<ProcessHandle> left = ProcessHandle.current().descendants()
        .filter(p -> !before.contains(p.pid()) && p.isAlive()).toList();
    for (ProcessHandle p : left) {
      Signals.send(p.pid(), "KILL");
    }
    assertEquals(List.of(), left.stream().map(ProcessHandle::pid).toList(), "processes left running");
  }

  @Test
  void twoSeededRunsWithMasterRestartsAndNetworkCutsGiveExactAnswersAndTiledStores() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Gleaner.run(new PrintWriter(out, true), new PrintWriter(err, true), "chaos", "--runs", "2",
        "--seed", "1", "--workers", "3", "--faults-per-run", "4", "--in-order",
        "--faults", "master-kill-commit,net-stall,worker-kill,store-full,net-drop,master-kill,clock-jump,worker-term",
        "--max-speed", "1000000", "--job-seconds", "4", "--hang-seconds", "90", "--json");
    JsonNode doc = new ObjectMapper().readTree(out.toString());
    JsonNode summary = doc.get("summary");
    String why = out + "\n" + err;
    assertEquals(0, code, why);
    assertTrue(summary.get("ok").asBoolean(), why);
    assertEquals(2, summary.get("runs").asInt(), why);
    for (String zero : List.of("wrongAnswers", "failedJobs", "hangs", "unitsLost", "unitsCountedTwice",
        "storeDisagreements", "otherProblems")) {
      assertEquals(0, summary.get(zero).asLong(), zero + "\n" + why);
    }
    for (JsonNode run : doc.get("runs")) {
      for (JsonNode job : run.get("jobs")) {
        assertTrue(job.get("answerExact").asBoolean() && job.get("tilingExact").asBoolean(), job + "\n" + why);
      }
    }
    // the faults that matter most happened, not skipped because the jobs had ended
    assertTrue(summary.get("masterRestarts").asInt() >= 1, why);
    JsonNode kinds = summary.get("faultsByKind");
    assertTrue(kinds.path("net-stall").asInt() + kinds.path("net-drop").asInt() >= 1, why);
  }
}
