package dev.gleaner.worker;

import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.Workloads;
import java.util.Set;

/** Builds the workloads a worker offers. */
public final class Workers {
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
    if (allowedPrograms.isEmpty()) {
      return Workloads.withPlugins(plugins);
    }
    return Workloads.withPlugins(plugins, new ExecWorkload(new ProcessExecRunner(
        ExecAllowList.resolve(allowedPrograms, System.getenv("PATH")))));
  }
}
