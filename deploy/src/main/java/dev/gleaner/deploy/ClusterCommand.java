package dev.gleaner.deploy;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gleaner cluster}: commands that manage a cluster's workers as a whole. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Manage a cluster's workers as a whole (autoscale them on Slurm).",
    subcommands = {AutoscaleCommand.class})
final class ClusterCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 0;
  }
}
