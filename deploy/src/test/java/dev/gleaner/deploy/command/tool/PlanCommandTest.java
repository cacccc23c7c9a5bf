package dev.gleaner.deploy.command.tool;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.deploy.CommandLineTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gleaner plan} and {@code gleaner simulate} answer for every strategy; bad input gets one line. */
class PlanCommandTest {
  private static final String LAB = "examples/lab.json";

  @TempDir
  Path dir;

  @Test
  void planAnswersForEveryStrategyWithTheContractFields() throws Exception {
    for (String s : Strategies.names()) {
      CommandLineTest.Run r = gleaner("plan", "--platform", LAB, "--work", "200000", "--eps", "30", "--strategy", s, "--json");
      assertEquals(0, r.code(), s + ": " + r.err());
      JsonNode doc = new ObjectMapper().readTree(r.out());
      assertTrue(doc.path("strategy").isTextual(), s);
      assertTrue(doc.path("order").isArray() && doc.path("order").size() > 0, s);
      long units = 0;
      for (JsonNode a : doc.path("allocations")) {
        assertTrue(a.path("worker").isTextual() && a.path("chunks").isArray(), s);
        units += a.path("units").asLong();
      }
      for (JsonNode c : doc.path("pool")) {
        units += c.path("end").asLong() - c.path("start").asLong();
      }
      // without replicas, allocations and pool share out the work exactly
      if (!doc.path("replicated").asBoolean()) {
        assertEquals(200000, units, s);
      }
      double expected = doc.path("expectedWork").asDouble();
      assertTrue(expected > 0 && expected <= doc.path("deployed").asLong(), s + ": " + expected);
    }
  }

  @Test
  void svgTimelineHasALinePerWorker() throws Exception {
    Path svg = dir.resolve("plan.svg");
    CommandLineTest.Run r = gleaner("plan", "--platform", LAB, "--work", "200000", "--strategy", "distrib", "--svg", svg.toString());
    assertEquals(0, r.code(), r.err());
    String text = Files.readString(svg);
    assertTrue(text.startsWith("<svg") && text.trim().endsWith("</svg>"));
    for (String id : new String[] {"atlas", "bohr", "curie", "dirac", "euler", "fermi"}) {
      assertTrue(text.contains(">" + id + "</text>"), id);
      assertTrue(r.out().contains(id), "the table names " + id);
    }
  }

  @Test
  void simulateReportsTheMeanBesideTheExpectation() throws Exception {
    CommandLineTest.Run r = gleaner("simulate", "--platform", LAB, "--work", "200000", "--strategy", "distrib", "--eps", "30",
        "--trials", "4000", "--seed", "3", "--heuristics", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode doc = new ObjectMapper().readTree(r.out());
    double mean = doc.path("meanWork").asDouble();
    double se = doc.path("stdErr").asDouble();
    double expected = doc.path("expectedWork").asDouble();
    assertTrue(Math.abs(mean - expected) <= 4 * se, mean + " vs " + expected + " +- " + se);
    assertTrue(doc.path("singleChunkExpectedWork").asDouble() <= expected, "checkpoints never lose expected work");
    assertEquals(6, doc.path("heuristics").size());
    double omniscient = doc.path("heuristics").get(5).path("meanWork").asDouble();
    for (int i = 0; i < 5; i++) {
      assertTrue(doc.path("heuristics").get(i).path("meanWork").asDouble() <= omniscient, "H6 is the upper limit");
    }
  }

  /**
   * The closed loop runs trees: a relay's link is shared by the workers behind it. Two workers of
   * 100 units/s each behind a relay of 100 take twice as long as behind a relay of 1000, which runs
   * like the same workers flat; and {@code gleaner plan} takes the same port options and plans the
   * tree's steady state under them.
   */
  @Test
  void simulateRunsTheClosedLoopOnATreeWithItsRelaysLinksShared() throws Exception {
    String tree = """
        {"workers": [
          {"id": "r", "relay": true, "bandwidth": %s, "workers": [
            {"id": "a", "speed": 1000000, "bandwidth": 100}, {"id": "b", "speed": 1000000, "bandwidth": 100}]}]}
        """;
    Path thin = dir.resolve("thin.json");
    Files.writeString(thin, tree.formatted("100"));
    Path fat = dir.resolve("fat.json");
    Files.writeString(fat, tree.formatted("1000"));
    Path flat = dir.resolve("flat.json");
    Files.writeString(flat, """
        {"workers": [{"id": "a", "speed": 1000000, "bandwidth": 100}, {"id": "b", "speed": 1000000, "bandwidth": 100}]}
        """);
    Map<Path, Double> time = new HashMap<>();
    for (Path p : List.of(thin, fat, flat)) {
      CommandLineTest.Run r = gleaner("simulate", "--platform", p.toString(), "--work", "20000", "--strategy", "self",
          "--chunk", "500", "--trials", "2", "--runs", "1", "--concurrent-sends", "share", "--links-known", "--json");
      assertEquals(0, r.code(), r.err());
      JsonNode loop = new ObjectMapper().readTree(r.out()).path("closedLoop");
      assertFalse(loop.has("skipped"), r.out());
      time.put(p, loop.path("meanTime").asDouble());
    }
    // 20000 units at 200 units/s, or at the thin relay's 100
    assertEquals(100, time.get(flat), 5, time.toString());
    assertEquals(time.get(flat), time.get(fat), 1e-6, time.toString());
    assertEquals(200, time.get(thin), 10, time.toString());

    CommandLineTest.Run onePort = gleaner("plan", "--platform", fat.toString(), "--work", "20000", "--strategy",
        "bandwidth-centric", "--chunk", "100", "--json");
    CommandLineTest.Run multi = gleaner("plan", "--platform", fat.toString(), "--work", "20000", "--strategy",
        "bandwidth-centric", "--chunk", "100", "--concurrent-sends", "fit", "--egress", "1000", "--json");
    assertEquals(0, multi.code(), multi.err());
    String one = new ObjectMapper().readTree(onePort.out()).path("reason").asText();
    String both = new ObjectMapper().readTree(multi.out()).path("reason").asText();
    // one port: one child's link at a time, 1 task/s; several streams: both links at once, 2 tasks/s
    assertTrue(one.startsWith("bandwidth-centric steady state: 1.00000 tasks of 100 units per second"), one);
    assertTrue(both.contains(": 2.00000 tasks of 100 units per second"), both);
    CommandLineTest.Run bad = gleaner("plan", "--platform", fat.toString(), "--work", "20000", "--egress", "0");
    assertEquals(1, bad.code(), bad.err());
    assertTrue(bad.err().contains("--egress must be positive"), bad.err());
  }

  private static String[] append(String[] args, String more) {
    String[] out = java.util.Arrays.copyOf(args, args.length + 1);
    out[args.length] = more;
    return out;
  }

  /**
   * With --handover each stream holds the one port that long before its bytes flow: two workers behind
   * links of 100 units/s, 40 chunks of 500 units (5 s each on the wire), computing next to free: the
   * wire's 200 s, and a second before each of the 40 streams.
   */
  @Test
  void simulateHoldsEachStreamItsHandoverAtThePort() throws Exception {
    Path flat = dir.resolve("flat.json");
    Files.writeString(flat, """
        {"workers": [{"id": "a", "speed": 1000000, "bandwidth": 100}, {"id": "b", "speed": 1000000, "bandwidth": 100}]}
        """);
    double[] time = new double[2];
    for (int i = 0; i < 2; i++) {
      CommandLineTest.Run r = gleaner("simulate", "--platform", flat.toString(), "--work", "20000", "--strategy", "self",
          "--chunk", "500", "--trials", "2", "--runs", "1", "--links-known", "--handover", i == 0 ? "0" : "1", "--json");
      assertEquals(0, r.code(), r.err());
      time[i] = new ObjectMapper().readTree(r.out()).path("closedLoop").path("meanTime").asDouble();
    }
    assertEquals(200, time[0], 2, "the wire's time");
    assertEquals(time[0] + 40, time[1], 2, "a second before each of 40 streams");
  }

  @Test
  void workTakesTheFormsJobFilesTake() throws Exception {
    CommandLineTest.Run sci = gleaner("plan", "--platform", LAB, "--work", "2e6", "--strategy", "distrib", "--json");
    CommandLineTest.Run plain = gleaner("plan", "--platform", LAB, "--work", "2000000", "--strategy", "distrib", "--json");
    assertEquals(0, sci.code(), sci.err());
    assertEquals(plain.out(), sci.out());
    CommandLineTest.Run fraction = gleaner("plan", "--platform", LAB, "--work", "2.5");
    assertEquals(2, fraction.code());
    assertTrue(fraction.err().contains("'2.5' is not a whole number"), fraction.err());
  }

  @Test
  void badInputGetsOneClearLine() throws Exception {
    Path broken = dir.resolve("broken.json");
    Files.writeString(broken, "{\"workers\": [ {\"id\": \"a\", \"speed\": ");
    Path noSpeed = dir.resolve("nospeed.json");
    Files.writeString(noSpeed, "{\"workers\": [ {\"id\": \"a\"} ]}");
    Path dup = dir.resolve("dup.json");
    Files.writeString(dup, "{\"workers\": [ {\"id\": \"a\", \"speed\": 1}, {\"id\": \"a\", \"speed\": 2} ]}");
    Path typo = dir.resolve("typo.json");
    Files.writeString(typo, "{\"workers\": [ {\"id\": \"a\", \"speed\": 1, \"bandwith\": 5} ]}");
    Path topTypo = dir.resolve("toptypo.json");
    Files.writeString(topTypo, "{\"worker\": [], \"workers\": [ {\"id\": \"a\", \"speed\": 1} ]}");
    Path negative = dir.resolve("neg.json");
    Files.writeString(negative, "{\"workers\": [ {\"id\": \"a\", \"speed\": -1} ]}");
    String[][] cases = {
        {"plan", "--platform", broken.toString(), "--work", "10"},
        {"plan", "--platform", noSpeed.toString(), "--work", "10"},
        {"plan", "--platform", dup.toString(), "--work", "10"},
        {"plan", "--platform", negative.toString(), "--work", "10"},
        {"plan", "--platform", typo.toString(), "--work", "10"},
        {"plan", "--platform", topTypo.toString(), "--work", "10"},
        {"plan", "--platform", dir.resolve("missing.json").toString(), "--work", "10"},
        {"plan", "--platform", LAB, "--work", "10", "--strategy", "fastest"},
        {"plan", "--platform", LAB, "--work", "0"},
        {"plan", "--platform", LAB, "--work", "10", "--deadline", "-5"},
        {"simulate", "--platform", LAB, "--work", "10", "--trials", "1"},
        {"simulate", "--platform", LAB, "--work", "10", "--handover", "-0.5"},
        {"simulate", "--platform", LAB, "--work", "10", "--handover", "0.01", "--runs", "0"},
    };
    String[] says = {"not valid JSON", "needs a numeric \"speed\"", "duplicate worker id", "speed must be a positive",
        "unknown key \"bandwith\"", "unknown key \"worker\"",
        "does not exist", "unknown strategy", "--work must be at least 1", "deadline must be a positive", "--trials",
        "--handover must be", "--runs 0 runs none"};
    for (int i = 0; i < cases.length; i++) {
      CommandLineTest.Run r = gleaner(cases[i]);
      assertEquals(1, r.code(), String.join(" ", cases[i]));
      assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
      assertTrue(r.err().contains(says[i]), r.err());
      assertEquals("", r.out());
    }
  }

  /**
   * A self plan gives nobody units ahead: it says so instead of an empty table. Over a trace it
   * gives one expectation, the simulator's playing the trace, one fact a line, in plain numbers.
   */
  @Test
  void aSelfPlanOverATraceSaysWhatItIsWithOneExpectation() {
    CommandLineTest.Run r = gleaner("plan", "--platform", "examples/desktops.json", "--work", "2000000", "--availability",
        "examples/desktops-6x60h-seed1.tab", "--strategy", "self");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("no worker is given units ahead: every chunk waits in the shared pool for whoever is"
        + " free"), r.out());
    assertFalse(r.out().contains("#    worker"), "no empty table: " + r.out());
    assertTrue(r.out().matches("(?s).*\nexpect: \\d+ of 2000000 units saved \\([0-9.]+%\\) by 60\\.00 h with the workers lent as .*"),
        r.out());
    assertFalse(r.out().contains("expected work:"), "the plan's own figure is not a second expectation: " + r.out());
    assertFalse(r.out().contains("\n\n"), "no blank lines: " + r.out());
    assertFalse(r.out().matches("(?s).*[0-9]e\\+[0-9].*"), "plain numbers: " + r.out());
    // without a trace, the plan's own figure is the expectation
    CommandLineTest.Run own = gleaner("plan", "--platform", "examples/desktops.json", "--work", "2000000", "--strategy",
        "auto");
    assertEquals(0, own.code(), own.err());
    assertTrue(own.out().contains("expected work: "), own.out());
    assertFalse(own.out().matches("(?s).*[0-9]e\\+[0-9].*"), "plain numbers: " + own.out());
  }
}
