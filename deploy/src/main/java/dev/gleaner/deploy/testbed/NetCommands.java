package dev.gleaner.deploy.testbed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code ip} and {@code tc} (iproute2), each bounded in time; a command that fails is reported
 * with its words and what it printed, in one line.
 */
final class NetCommands {
  /** How long one command may take. */
  private static final long LIMIT_SECONDS = 20;

  private NetCommands() {}

  /** What the command printed, or an exception naming it and its error output. */
  static String run(List<String> command) {
    Result r = tryRun(command);
    if (r.exit != 0) {
      throw new IllegalStateException("'" + String.join(" ", command) + "' failed (exit " + r.exit + "): "
          + r.output.strip().replace('\n', ' '));
    }
    return r.output;
  }

  static String run(String... command) {
    return run(List.of(command));
  }

  /** The command's exit code and output (stdout and stderr); -1 if it could not be started. */
  static Result tryRun(List<String> command) {
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      return new Result(-1, "cannot run " + command.get(0) + ": " + e.getMessage());
    }
    try {
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(-1, "did not return within " + LIMIT_SECONDS + " s");
      }
      return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      p.destroyForcibly();
      return new Result(-1, "reading its output failed: " + e.getMessage());
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted");
    }
  }

  /** {@code ip netns list}: the names of the network namespaces that exist. */
  static List<String> namespaces() {
    List<String> names = new ArrayList<>();
    for (String line : run("ip", "netns", "list").split("\n")) {
      String name = line.strip().split("\\s+")[0];
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return names;
  }

  /** The pids of the processes in a namespace ({@code ip netns pids}). */
  static List<Long> pids(String namespace) {
    Result r = tryRun(List.of("ip", "netns", "pids", namespace));
    List<Long> pids = new ArrayList<>();
    if (r.exit != 0) {
      return pids;
    }
    for (String line : r.output.split("\n")) {
      if (!line.isBlank()) {
        pids.add(Long.parseLong(line.strip()));
      }
    }
    return pids;
  }

  record Result(int exit, String output) {}
}
