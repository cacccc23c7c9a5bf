package dev.gleaner.worker;

import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.Workloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the workloads a worker offers. */
public final class Workers {
  private static final Logger log = LoggerFactory.getLogger(Workers.class);

  private Workers() {}

  /**
   * The built-ins and plugins, plus {@code exec} if any program is allowed.
   *
   * @param plugins class loader holding plugin jars (or this class's loader)
   * @param allowedPrograms programs {@code exec} may run (paths, or names looked up on PATH now); empty: no
   *     {@code exec} at all
   * @throws IllegalArgumentException if an allowed program does not exist
   */
  public static Workloads workloads(ClassLoader plugins, Set<String> allowedPrograms) {
    return workloads(plugins, allowedPrograms, null);
  }

  /**
   * As above, {@code exec}'s programs run in {@code execDir} (null: the worker's working
   * directory), where a job's relative paths ({@code python3 simulate.py}) are found.
   *
   * @throws IllegalArgumentException if {@code execDir} is given without a program allowed, or is
   *     not a directory
   */
  public static Workloads workloads(ClassLoader plugins, Set<String> allowedPrograms, Path execDir) {
    if (allowedPrograms.isEmpty()) {
      if (execDir != null) {
        throw new IllegalArgumentException("--exec-dir goes with --allow-exec: without a program allowed, this worker"
            + " runs no exec job");
      }
      return Workloads.withPlugins(plugins);
    }
    Path dir = execDir == null ? Path.of("").toAbsolutePath() : execDir.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--exec-dir " + execDir + ": no such directory");
    }
    log.info("exec runs its programs in {}{}", dir, execDir == null ? " (this worker's working directory; --exec-dir"
        + " sets another)" : "");
    return Workloads.withPlugins(plugins, new ExecWorkload(new ProcessExecRunner(
        ExecAllowList.resolve(allowedPrograms, System.getenv("PATH")), dir)));
  }
}
