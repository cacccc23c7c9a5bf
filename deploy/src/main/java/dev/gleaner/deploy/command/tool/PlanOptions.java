package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.deploy.format.PlatformFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options {@code gleaner plan} and {@code gleaner simulate} share. */
final class PlanOptions {
  @Option(names = "--platform", paramLabel = "P.json", required = true,
      description = "The workers: {\"workers\":[{\"id\":\"a\",\"speed\":10,\"bandwidth\":100,\"risk\":0.001}, ...]}"
          + " (units/s, units/s, per second; a worker may nest its own \"workers\").")
  Path platform;

  @Option(names = "--work", paramLabel = "W", required = true, description = "Units of work to share.")
  long work;

  @Option(names = "--strategy", paramLabel = "S", defaultValue = "auto",
      description = "auto, distrib, replicate, fifo, bandwidth-centric, equal, proportional, self or distrib-reverse"
          + " (default: ${DEFAULT-VALUE}).")
  String strategy;

  @Option(names = "--eps", paramLabel = "E", defaultValue = "0",
      description = "Cost of each chunk or checkpoint, seconds (default: ${DEFAULT-VALUE}).")
  double eps;

  @Option(names = "--deadline", paramLabel = "L", description = "Lifespan in seconds: work saved after it does not count.")
  Double deadline;

  @Option(names = "--chunk", paramLabel = "UNITS", defaultValue = "0",
      description = "Chunk (task) size for self and bandwidth-centric; 0 lets the strategy choose.")
  long chunk;

  @Option(names = "--checkpoints", paramLabel = "K", defaultValue = "0",
      description = "Checkpoints per chunk, or at most K+1 chunks per worker; 0 lets the strategy choose.")
  int checkpoints;

  @Option(names = "--risk-model", paramLabel = "M", defaultValue = "linear",
      description = "linear or exponential (default: ${DEFAULT-VALUE}); the closed forms assume linear.")
  String riskModel;

  @Option(names = "--lifetimes", paramLabel = "FILE",
      description = "Observed times to interruption, seconds, one per line: an empirical risk model for all workers.")
  Path lifetimes;

  @Option(names = "--no-replication", description = "Do not let auto replicate work.")
  boolean noReplication;

  Platform platform() {
    return PlatformFile.read(platform);
  }

  RiskModel risk() {
    if (lifetimes == null) {
      return RiskModel.byName(riskModel);
    }
    try {
      double[] values = Files.readAllLines(lifetimes).stream().map(String::trim).filter(s -> !s.isEmpty())
          .mapToDouble(s -> {
            try {
              return Double.parseDouble(s);
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("lifetimes file " + lifetimes + ": '" + s + "' is not a number", e);
            }
          }).toArray();
      return RiskModel.empirical(values);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read lifetimes file " + lifetimes + ": " + e.getMessage(), e);
    }
  }

  /** A request under the papers' one-port model. */
  PlanRequest request(Platform p) {
    return request(p, PortRule.ONE_PORT);
  }

  /** A request under the master's port {@code port} (its egress in the platform's bandwidth units). */
  PlanRequest request(Platform p, PortRule port) {
    if (work < 1) {
      throw new IllegalArgumentException("--work must be at least 1 unit, got " + work);
    }
    if (chunk < 0 || checkpoints < 0) {
      throw new IllegalArgumentException("--chunk and --checkpoints must not be negative");
    }
    return new PlanRequest(0, work, p, chunk, checkpoints, x -> x, eps, risk(),
        deadline == null ? Double.NaN : deadline, !noReplication, port);
  }
}
