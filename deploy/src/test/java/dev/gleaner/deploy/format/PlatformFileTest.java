package dev.gleaner.deploy.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Platform files whose workers list workers of their own (sub-masters). */
class PlatformFileTest {
  @TempDir
  Path dir;

  private Path write(String json) throws Exception {
    Path p = dir.resolve("platform.json");
    Files.writeString(p, json);
    return p;
  }

  /** The error for a file, checked to be one line that names the file. */
  private String error(String json) throws Exception {
    Path p = write(json);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PlatformFile.read(p));
    String m = e.getMessage();
    assertEquals(1, m.lines().count(), "one line: " + m);
    assertTrue(m.startsWith("platform file " + p), m);
    return m;
  }

  @Test
  void threeLevelsParseIntoTheirParents() throws Exception {
    Platform p = PlatformFile.read(write("""
        {"workers": [
          {"id": "gate", "speed": 1, "bandwidth": 100, "workers": [
            {"id": "host", "speed": 2, "bandwidth": 50, "workers": [
              {"id": "leaf1", "speed": 3, "bandwidth": 10},
              {"id": "leaf2", "speed": 4, "bandwidth": 20, "risk": 0.001}
            ]},
            {"id": "side", "speed": 5}
          ]},
          {"id": "solo", "speed": 6, "bandwidth": 30}
        ]}
        """));
    assertEquals(Map.of("host", "gate", "side", "gate", "leaf1", "host", "leaf2", "host"), p.parents());
    assertTrue(p.isTree());
    Map<String, Worker> byId = p.byId();
    assertEquals(6, byId.size());
    assertEquals(new Worker("leaf2", 4, 20, 0.001), byId.get("leaf2"), "the bandwidth of its link from host");
    assertEquals(new Worker("side", 5, Double.POSITIVE_INFINITY, 0), byId.get("side"));
    assertEquals(new Worker("gate", 1, 100, 0), byId.get("gate"));
    assertFalse(p.parents().containsKey("gate") || p.parents().containsKey("solo"), "they hang off the master");
  }

  @Test
  void aNestedWorkerWithAnUnknownKeyIsNamed() throws Exception {
    String m = error("""
        {"workers": [{"id": "gate", "speed": 1, "workers": [
          {"id": "host", "speed": 2, "workers": [{"id": "leaf", "speed": 3, "bandwith": 10}]}]}]}
        """);
    assertTrue(m.endsWith("worker leaf: unknown key \"bandwith\"; known keys: id, speed, bandwidth, risk, workers, relay"), m);
  }

  @Test
  void anIdTwiceAcrossLevelsIsADuplicate() throws Exception {
    String m = error("""
        {"workers": [{"id": "gate", "speed": 1, "workers": [
          {"id": "host", "speed": 2, "workers": [{"id": "gate", "speed": 3}]}]}]}
        """);
    assertTrue(m.endsWith(": duplicate worker id: gate"), m);
  }

  @Test
  void aNestedWorkerWithoutSpeedIsNamed() throws Exception {
    String m = error("""
        {"workers": [{"id": "gate", "speed": 1, "workers": [
          {"id": "host", "speed": 2, "workers": [{"id": "leaf", "bandwidth": 10}]}]}]}
        """);
    assertTrue(m.endsWith("worker leaf: needs a numeric \"speed\" (units per second)"), m);
  }

  /** Nested workers that are not an array were taken as no workers, or read the object's values as workers. */
  @Test
  void nestedWorkersThatAreNotAnArrayAreAnError() throws Exception {
    for (String bad : new String[] {"5", "{\"id\": \"leaf\", \"speed\": 3}", "\"leaf\""}) {
      String m = error("{\"workers\": [{\"id\": \"gate\", \"speed\": 1, \"workers\": " + bad + "}]}");
      assertTrue(m.endsWith("worker gate: \"workers\" must be an array of workers"), m);
    }
  }

  @Test
  void aRelayForwardsToItsWorkersAndComputesNothing() throws Exception {
    Platform p = PlatformFile.read(write("""
        {"workers": [
          {"id": "r1", "relay": true, "bandwidth": 100, "workers": [
            {"id": "a", "speed": 1, "bandwidth": 10},
            {"id": "r2", "relay": true, "workers": [{"id": "b", "speed": 2, "bandwidth": 20}]}
          ]},
          {"id": "c", "speed": 3}
        ]}
        """));
    assertEquals(java.util.List.of("a", "b", "c"), p.workers().stream().map(Worker::id).toList(),
        "relays are not workers");
    assertEquals(Map.of("r1", 100.0, "r2", Double.POSITIVE_INFINITY), p.relays());
    assertEquals(Map.of("a", "r1", "r2", "r1", "b", "r2"), p.parents());
    assertTrue(p.isTree());
  }

  @Test
  void aRelayWithASpeedOrWithoutWorkersIsOneLine() throws Exception {
    assertTrue(error("""
        {"workers": [{"id": "r", "relay": true, "speed": 5, "workers": [{"id": "a", "speed": 1}]}]}
        """).endsWith("worker r: a relay computes nothing: leave out \"speed\""));
    assertTrue(error("""
        {"workers": [{"id": "r", "relay": true}]}
        """).endsWith("worker r: a relay needs a non-empty \"workers\" array (what it forwards to)"));
    assertTrue(error("""
        {"workers": [{"id": "r", "relay": "yes", "workers": [{"id": "a", "speed": 1}]}]}
        """).endsWith("worker r: \"relay\" must be true or false"));
    assertTrue(error("""
        {"workers": [{"id": "a", "relay": true, "workers": [{"id": "a", "speed": 1}]}]}
        """).contains("duplicate id: a"));
  }
}
