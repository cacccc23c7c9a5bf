package dev.gleaner.deploy.command.tool;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.deploy.CommandLineTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecoveryCommandTest {
  @TempDir
  Path dir;

  @Test
  void jsonFollowsTheContract() throws Exception {
    CommandLineTest.Run r = gleaner("recovery", "--n", "6", "--list", "1,3,5,4,2", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode doc = new ObjectMapper().readTree(r.out());
    assertEquals("[2,2,3,3,6]", doc.get("worstCaseLoad").toString());
    assertEquals("[2,2,3,3,6]", doc.get("bound").toString());
    assertEquals(5, doc.get("optimalUpTo").asInt());
    assertEquals(6, doc.get("lists").size());
    assertEquals("[2,4,0,5,3]", doc.get("lists").get(1).toString());
  }

  @Test
  void listTakesTheThesisNotationToo() throws Exception {
    // the thesis and DESIGN.md write list 0 starting with the failed computer itself
    CommandLineTest.Run thesis = gleaner("recovery", "--n", "6", "--list", "0,1,3,5,4,2", "--json");
    CommandLineTest.Run plain = gleaner("recovery", "--n", "6", "--list", "1,3,5,4,2", "--json");
    assertEquals(0, thesis.code(), thesis.err());
    JsonNode a = new ObjectMapper().readTree(thesis.out());
    JsonNode b = new ObjectMapper().readTree(plain.out());
    assertEquals(b.get("lists"), a.get("lists"));
    assertEquals("[1,3,5,4,2]", a.get("lists").get(0).toString());
  }

  @Test
  void namedSchemesAndTheBestOne() throws Exception {
    CommandLineTest.Run r = gleaner("recovery", "--n", "12", "--scheme", "golomb", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode doc = new ObjectMapper().readTree(r.out());
    assertEquals("[1,4,9,11,2,3,5,6,7,8,10]", doc.get("lists").get(0).toString());
    assertEquals(4, doc.get("paperGuarantee").asInt());
    CommandLineTest.Run best = gleaner("recovery", "--n", "10");
    assertEquals(0, best.code(), best.err());
    assertTrue(best.out().contains("optimal (L = MV) up to 9 crashes"), best.out());
  }

  @Test
  void tableAndChart() throws Exception {
    Path svg = dir.resolve("schemes.svg");
    CommandLineTest.Run r = gleaner("recovery", "--table", "--from", "4", "--to", "12", "--svg", svg.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(9 + 2, r.out().lines().filter(l -> !l.startsWith("chart")).count(), r.out());
    String drawing = Files.readString(svg);
    assertTrue(drawing.startsWith("<svg") && drawing.contains("golomb") && drawing.contains("<polyline"));
  }

  @Test
  void badInputIsOneClearLine() {
    for (String[] args : new String[][] {
        {"recovery", "--n", "5", "--list", "1,1"},
        {"recovery", "--n", "5", "--list", "0,1,7"},
        {"recovery", "--n", "5", "--scheme", "nope"},
        {"recovery"},
        {"recovery", "--n", "1"}}) {
      CommandLineTest.Run r = gleaner(args);
      assertEquals(1, r.code(), String.join(" ", args) + ": " + r.out());
      assertEquals(1, r.err().strip().lines().count(), r.err());
      assertTrue(r.err().startsWith("gleaner: "), r.err());
    }
  }
}
