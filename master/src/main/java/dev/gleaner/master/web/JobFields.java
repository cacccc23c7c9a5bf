package dev.gleaner.master.web;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gleaner.protocol.JobSpec;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A job's fields as people write them, in a job file (YAML, or JSON) or in the body of {@code POST
 * /api/jobs} (JSON), read into the {@link JobSpec} the master takes: the same keys and the same
 * one-line errors both ways.
 * <pre>
 * name: count-primes        # optional
 * workload: primes          # primes | grep | exec | a plugin's name
 * params: {from: 0, to: 1e9}
 * strategy: auto            # auto | distrib | fifo | replicate | bandwidth-centric | proportional | equal | self | distrib-reverse
 * chunk-units: 0            # chunk size for the strategies that use one; 0 = automatic
 * checkpoints: 4            # checkpoints per chunk; 0 = automatic
 * min-workers: 1            # wait for this many workers before planning
 * deadline: 62h             # or 2026-11-30T08:00, 08:00 or Mon 08:00: the job ends then with what is saved
 * replication: false        # let plans give the same units to several workers
 * verify: 0.1               # compute this share of the units again on a second worker and compare
 * priority: 0               # among your own jobs, higher goes first (owners share the workers fairly)
 * </pre>
 * An unknown key is an error that names it: a typo must not be silently ignored.
 */
public final class JobFields {
  public static final List<String> KEYS = List.of("name", "workload", "params", "strategy", "chunk-units",
      "checkpoints", "min-workers", "deadline", "replication", "verify", "priority");

  private JobFields() {}

  /** The job {@code root} (a mapping) describes; {@code where} names it in errors ("job.yaml", "the request"). */
  public static JobSpec fromTree(JsonNode root, String where) {
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(where + ": a job is a mapping with at least 'workload' and 'params'");
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(where + ": unknown key '" + key + "'; known keys: " + String.join(", ", KEYS));
      }
    }
    JobSpec.Builder spec = JobSpec.newBuilder();
    spec.setWorkload(text(root, "workload", where, true));
    spec.setName(text(root, "name", where, false));
    spec.setStrategy(text(root, "strategy", where, false));
    spec.setChunkUnits(number(root, "chunk-units", where));
    spec.setCheckpoints((int) number(root, "checkpoints", where));
    spec.setMinWorkers((int) number(root, "min-workers", where));
    String deadline = text(root, "deadline", where, false);
    if (!deadline.isEmpty()) {
      try {
        spec.setDeadlineMillis(Deadlines.parse(deadline).toEpochMilli());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": 'deadline': " + e.getMessage(), e);
      }
    }
    JsonNode replication = root.get("replication");
    if (replication != null && !replication.isNull()) {
      if (!replication.isBoolean()) {
        throw new IllegalArgumentException(where + ": 'replication' must be true or false, got " + replication);
      }
      spec.setReplication(replication.booleanValue());
    }
    JsonNode verify = root.get("verify");
    if (verify != null && !verify.isNull()) {
      if (!verify.isNumber() || !(verify.doubleValue() >= 0 && verify.doubleValue() <= 1)) {
        throw new IllegalArgumentException(where + ": 'verify' must be a share within 0..1 (0.1 checks a tenth of the"
            + " units on a second worker), got " + verify);
      }
      spec.setVerify(verify.doubleValue());
    }
    JsonNode priority = root.get("priority");
    if (priority != null && !priority.isNull()) {
      if (!priority.isIntegralNumber() || !priority.canConvertToInt()) {
        throw new IllegalArgumentException(where + ": 'priority' must be a whole number (higher goes first among your"
            + " own jobs; 0 by default), got " + priority);
      }
      spec.setPriority(priority.intValue());
    }
    JsonNode params = root.get("params");
    if (params != null && !params.isNull()) {
      if (!params.isObject()) {
        throw new IllegalArgumentException(where + ": 'params' must be a mapping of names to values");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = params.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isContainerNode()) {
          throw new IllegalArgumentException(where + ": parameter '" + e.getKey() + "' must be a single value");
        }
        spec.putParams(e.getKey(), plain(e.getValue()));
      }
    }
    return spec.build();
  }

  private static String plain(JsonNode v) {
    if (v.isIntegralNumber()) {
      return v.bigIntegerValue().toString();
    }
    if (v.isNumber()) {
      java.math.BigDecimal d = v.decimalValue();
      return d.stripTrailingZeros().scale() <= 0 ? d.toBigInteger().toString() : d.toPlainString();
    }
    return v.asText();
  }

  private static String text(JsonNode root, String key, String where, boolean required) {
    JsonNode v = root.get(key);
    if (v == null || v.isNull() || v.asText().isBlank()) {
      if (required) {
        throw new IllegalArgumentException(where + ": missing '" + key + "'");
      }
      return "";
    }
    if (!v.isValueNode()) {
      throw new IllegalArgumentException(where + ": '" + key + "' must be a single value");
    }
    return v.asText().trim();
  }

  private static long number(JsonNode root, String key, String where) {
    JsonNode v = root.get(key);
    if (v == null || v.isNull()) {
      return 0;
    }
    if (!v.isIntegralNumber() || v.asLong() < 0) {
      throw new IllegalArgumentException(where + ": '" + key + "' must be a whole number >= 0, got " + v);
    }
    return v.asLong();
  }
}
