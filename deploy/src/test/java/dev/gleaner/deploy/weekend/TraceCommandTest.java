package dev.gleaner.deploy.weekend;

import dev.gleaner.deploy.CommandLineTest;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gleaner trace} and {@code gleaner simulate --trace}: the shipped trace, its replay, bad input. */
class TraceCommandTest {
  static final String TRACE = "examples/desktops-6x60h-seed1.tab";
  static final String DESKTOPS = "examples/desktops.json";

  @TempDir
  Path dir;

  @Test
  void theShippedTraceIsWhatItsCommandMakes() throws Exception {
    Path made = dir.resolve("t.tab");
    CommandLineTest.Run r = gleaner("trace", "generate", "--nodes", "6", "--hours", "60", "--seed", "1", "-o",
        made.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(Files.readString(Path.of(TRACE)), Files.readString(made));
  }

  /**
   * {@code trace oracle} on the shipped trace: the up time it sums is the trace's (334.3 h, as {@code
   * simulate}'s bound has it), and the forecast is reproducible for a seed; a moment outside the
   * trace is a one-line error.
   */
  @Test
  void theOracleForecastsTheShippedTraceFromAQuarterReproducibly() {
    CommandLineTest.Run r = gleaner("trace", "oracle", TRACE, "--draws", "2000");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("6 nodes over 60.00 h, 334.3 h up in all"), r.out());
    assertTrue(r.out().contains("at 15.00 h, "), r.out());
    assertTrue(r.out().matches("(?s).*the oracle expects [0-9.]+ h up in all \\(5-95 %: [0-9.]+ to [0-9.]+\\): error"
        + " [-+][0-9.]+% of the actual figure.*"), r.out());
    assertEquals(r.out(), gleaner("trace", "oracle", TRACE, "--draws", "2000").out());

    CommandLineTest.Run bad = gleaner("trace", "oracle", TRACE, "--at", "1.5");
    assertEquals(1, bad.code());
    assertTrue(bad.err().contains("--at must be a share of the trace between 0 and 1, got 1.5"), bad.err());
  }

  /** The bar on the shipped trace, with the command the README gives; deterministic. */
  @Test
  void simulatedReplayOfTheShippedTraceSavesNinetyPercentOfTheBound() throws Exception {
    CommandLineTest.Run r = gleaner("simulate", "--platform", DESKTOPS, "--work", "20000000", "--eps", "1", "--trace",
        TRACE, "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode doc = new ObjectMapper().readTree(r.out());
    long committed = doc.path("committed").asLong();
    long bound = doc.path("bound").asLong();
    // 6 workers at 10 units/s over their up time of the trace (334.3 h), one eps per up period
    assertEquals(12035207, bound);
    assertTrue(committed <= bound);
    assertTrue(committed >= 0.9 * bound, committed + " of " + bound);
    assertEquals(31, doc.path("returns").asInt());
  }

  /** {@code plan --availability} expects what {@code simulate --trace} measures, and plans for the trace's length. */
  @Test
  void planWithAvailabilityAgreesWithSimulate() throws Exception {
    JsonNode plan = new ObjectMapper().readTree(gleaner("plan", "--platform", DESKTOPS, "--work", "20000000", "--eps",
        "1", "--availability", TRACE, "--json").out());
    JsonNode sim = new ObjectMapper().readTree(gleaner("simulate", "--platform", DESKTOPS, "--work", "20000000", "--eps",
        "1", "--trace", TRACE, "--json").out());
    JsonNode a = plan.path("availability");
    assertEquals(sim.path("committed").asLong(), a.path("committed").asLong());
    assertEquals(12035207, a.path("bound").asLong());
    assertEquals(216000.0, a.path("horizon").asDouble());
    assertEquals(6, a.path("upHoursByWorker").size());
    // the static plan is for the same 60 hours: at most 6 x 10 units/s x 216000 s
    assertTrue(plan.path("expectedWork").asDouble() <= 12_960_000, plan.path("expectedWork").asText());
  }

  @Test
  void badTracesAndMismatchedPlatformsGetOneLine() throws Exception {
    Path bad = dir.resolve("bad.tab");
    Files.writeString(bad, "1\t0\t1\t0\th\t1\t0\t10\t0\n2\t0\t1\t0\th\tup\t10\t20\t0\n");
    CommandLineTest.Run r = gleaner("simulate", "--platform", DESKTOPS, "--work", "1000", "--trace", bad.toString());
    assertEquals(1, r.code());
    assertEquals("gleaner: trace file " + bad + " line 2: event_type must be 1 (available) or 0 (not), got 'up'",
        r.err().strip());
    r = gleaner("simulate", "--platform", "examples/lab.json", "--work", "1000", "--trace", TRACE);
    assertEquals(1, r.code());
    assertTrue(r.err().startsWith("gleaner: the platform's workers and the trace's nodes differ"), r.err());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    r = gleaner("trace", "show", dir.resolve("none.tab").toString());
    assertEquals("gleaner: trace file " + dir.resolve("none.tab") + " does not exist", r.err().strip());
    r = gleaner("trace", "generate", "--nodes", "2", "--hours", "5", "--up", "0.45");
    assertEquals("gleaner: --up must be SHAPE,SCALE_HOURS (two positive numbers), got '0.45'", r.err().strip());
  }

  @Test
  void showSummarisesEachNode() throws Exception {
    CommandLineTest.Run r = gleaner("trace", "show", TRACE, "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode doc = new ObjectMapper().readTree(r.out());
    assertEquals(60.0, doc.path("hours").asDouble());
    assertEquals(6, doc.path("nodes").size());
    double hours = 0;
    for (JsonNode n : doc.path("nodes")) {
      hours += n.path("upHours").asDouble();
    }
    // the bound at 10 units/s and eps 1 s is 10 x (up seconds - 1) per period, rounded down: 37 periods
    assertEquals(12035207 + 10 * 37, hours * 3600 * 10, 37);
  }
}
