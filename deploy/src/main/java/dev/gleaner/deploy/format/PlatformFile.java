package dev.gleaner.deploy.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A platform file: {@code {"workers":[{"id":"a","speed":10,"bandwidth":100,"risk":0.001}, ...]}}.
 * Speed and bandwidth are units per second, risk per second (linear: P(down by t) = risk t).
 * Bandwidth may be left out (no input to send), risk too (a dedicated computer). A worker may list
 * its own {@code "workers"}: it is then a sub-master and their bandwidth is that of its link to them.
 * A node with {@code "relay": true} computes nothing and only forwards (a {@code gleaner relay}): it
 * has no speed or risk, its bandwidth is that of its own link, and it lists its {@code "workers"}.
 */
public final class PlatformFile {
  private static final List<String> ROOT_KEYS = List.of("workers");
  private static final List<String> WORKER_KEYS = List.of("id", "speed", "bandwidth", "risk", "workers", "relay");

  private PlatformFile() {}

  /** A typo ({@code "bandwith"}) must not silently mean the default: unknown keys are errors. */
  private static void unknownKeys(JsonNode n, List<String> known, String where) {
    if (!n.isObject()) {
      throw new IllegalArgumentException(where + "expected an object, got " + n.getNodeType().toString().toLowerCase(
          java.util.Locale.ROOT));
    }
    for (java.util.Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!known.contains(key)) {
        throw new IllegalArgumentException(where + "unknown key \"" + key + "\"; known keys: "
            + String.join(", ", known));
      }
    }
  }

  public static Platform read(Path path) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readString(path));
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("platform file " + path + " does not exist");
    } catch (IOException e) {
      throw new IllegalArgumentException("platform file " + path + " is not valid JSON: "
          + e.getMessage().lines().findFirst().orElse(""), e);
    }
    if (root == null || !root.path("workers").isArray() || root.path("workers").isEmpty()) {
      throw new IllegalArgumentException("platform file " + path + " needs a non-empty \"workers\" array");
    }
    unknownKeys(root, ROOT_KEYS, "platform file " + path + ": ");
    List<Worker> workers = new ArrayList<>();
    Map<String, String> parents = new LinkedHashMap<>();
    Map<String, Double> relays = new LinkedHashMap<>();
    add(root.path("workers"), null, workers, parents, relays, path);
    try {
      return new Platform(workers, parents, relays);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("platform file " + path + ": " + e.getMessage(), e);
    }
  }

  private static void add(JsonNode array, String parent, List<Worker> out, Map<String, String> parents,
      Map<String, Double> relays, Path path) {
    for (JsonNode n : array) {
      String id = n.path("id").asText("");
      String where = "platform file " + path + ", worker " + (id.isEmpty() ? "#" + (out.size() + 1) : id) + ": ";
      if (id.isEmpty()) {
        throw new IllegalArgumentException(where + "needs an \"id\"");
      }
      unknownKeys(n, WORKER_KEYS, where);
      if (n.has("relay") && !n.get("relay").isBoolean()) {
        throw new IllegalArgumentException(where + "\"relay\" must be true or false");
      }
      if (n.path("relay").asBoolean(false)) {
        relay(n, id, where, parent, parents, relays, out, path);
        continue;
      }
      if (!n.path("speed").isNumber()) {
        throw new IllegalArgumentException(where + "needs a numeric \"speed\" (units per second)");
      }
      double bandwidth = number(n, "bandwidth", Double.POSITIVE_INFINITY, where);
      double risk = number(n, "risk", 0, where);
      try {
        out.add(new Worker(id, n.path("speed").asDouble(), bandwidth, risk));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("platform file " + path + ": " + e.getMessage(), e);
      }
      if (parent != null) {
        parents.put(id, parent);
      }
      if (n.has("workers") && !n.get("workers").isNull()) {
        // iterating a number yields nothing and an object its values: neither may pass for workers
        if (!n.get("workers").isArray()) {
          throw new IllegalArgumentException(where + "\"workers\" must be an array of workers");
        }
        add(n.get("workers"), id, out, parents, relays, path);
      }
    }
  }

  /** A relay: no speed, no risk, its link's bandwidth, and the workers (or relays) it forwards to. */
  private static void relay(JsonNode n, String id, String where, String parent, Map<String, String> parents,
      Map<String, Double> relays, List<Worker> out, Path path) {
    for (String key : List.of("speed", "risk")) {
      if (n.has(key)) {
        throw new IllegalArgumentException(where + "a relay computes nothing: leave out \"" + key + "\"");
      }
    }
    if (!n.path("workers").isArray() || n.path("workers").isEmpty()) {
      throw new IllegalArgumentException(where + "a relay needs a non-empty \"workers\" array (what it forwards to)");
    }
    double bandwidth = number(n, "bandwidth", Double.POSITIVE_INFINITY, where);
    if (relays.containsKey(id)) {
      throw new IllegalArgumentException(where + "duplicate id: " + id);
    }
    relays.put(id, bandwidth);
    if (parent != null) {
      parents.put(id, parent);
    }
    add(n.get("workers"), id, out, parents, relays, path);
  }

  private static double number(JsonNode n, String field, double absent, String where) {
    if (!n.has(field) || n.get(field).isNull()) {
      return absent;
    }
    if (!n.get(field).isNumber()) {
      throw new IllegalArgumentException(where + "\"" + field + "\" must be a number");
    }
    return n.get(field).asDouble();
  }
}
