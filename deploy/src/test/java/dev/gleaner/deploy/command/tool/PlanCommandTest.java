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
   * The closed loop runs flat platforms only: on a tree it says so (in the JSON and on the terminal)
   * instead of running every host as if it hung off the master; the same workers flat still run it.
   */
  @Test
  void simulateSkipsTheClosedLoopOnATreeAndSaysWhy() throws Exception {
    Path tree = dir.resolve("tree.json");
    Files.writeString(tree, """
        {"workers": [
          {"id": "gate", "speed": 10, "bandwidth": 100, "workers": [
            {"id": "host", "speed": 20, "bandwidth": 50, "workers": [{"id": "leaf", "speed": 5, "bandwidth": 20}]}]},
          {"id": "solo", "speed": 10, "bandwidth": 40}]}
        """);
    Path flat = dir.resolve("flat.json");
    Files.writeString(flat, """
        {"workers": [{"id": "gate", "speed": 10, "bandwidth": 100}, {"id": "host", "speed": 20, "bandwidth": 50},
          {"id": "leaf", "speed": 5, "bandwidth": 20}, {"id": "solo", "speed": 10, "bandwidth": 40}]}
        """);
    String says = "runs flat platforms only (every worker on the master's port), and this platform is a tree"
        + " (sub-masters: gate, host)";
    String[] args = {"simulate", "--platform", tree.toString(), "--work", "2000", "--strategy", "bandwidth-centric",
        "--trials", "2", "--runs", "2"};
    CommandLineTest.Run r = gleaner(append(args, "--json"));
    assertEquals(0, r.code(), r.err());
    JsonNode loop = new ObjectMapper().readTree(r.out()).path("closedLoop");
    assertEquals(says, loop.path("skipped").asText(), r.out());
    assertFalse(loop.has("meanWork"), r.out());
    CommandLineTest.Run text = gleaner(args);
    assertEquals(0, text.code(), text.err());
    assertTrue(text.out().lines().anyMatch(l -> l.equals("closed loop: " + says)), text.out());

    args[2] = flat.toString();
    JsonNode ran = new ObjectMapper().readTree(gleaner(append(args, "--json")).out()).path("closedLoop");
    assertFalse(ran.has("skipped"), ran.toString());
    assertEquals(2, ran.path("runs").asInt(), ran.toString());
  }

  private static String[] append(String[] args, String more) {
    String[] out = java.util.Arrays.copyOf(args, args.length + 1);
    out[args.length] = more;
    return out;
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
    };
    String[] says = {"not valid JSON", "needs a numeric \"speed\"", "duplicate worker id", "speed must be a positive",
        "unknown key \"bandwith\"", "unknown key \"worker\"",
        "does not exist", "unknown strategy", "--work must be at least 1", "deadline must be a positive", "--trials"};
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
