package dev.gleaner.deploy.command.cluster;

import dev.gleaner.deploy.launch.Slurm;
import dev.gleaner.deploy.launch.SlurmScript;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner slurm}: submits a Slurm batch job that runs one worker per node until the job's end. */
@Command(name = "slurm", mixinStandardHelpOptions = true,
    description = {"Submit a Slurm job (sbatch) that runs one gleaner worker on each of its nodes.",
        "Each worker is told the job's end (--available-until, minus --drain-margin), so the master plans with the"
            + " walltime, and drains before it; scancel drains them too. --dry-run prints the script instead."})
public final class SlurmCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  SlurmOptions slurm;

  @Option(names = "--nodes", paramLabel = "N", required = true, description = "Nodes, one worker each.")
  int nodes;

  @Option(names = "--job-name", paramLabel = "NAME", defaultValue = "gleaner-worker",
      description = "The Slurm job's name (default: ${DEFAULT-VALUE}).")
  String jobName;

  @Option(names = "--dry-run", description = "Print the batch script (and the sbatch command) instead of submitting it.")
  boolean dryRun;

  @Override
  public Integer call() {
    SlurmScript script = slurm.script(jobName, nodes, null);
    PrintWriter out = spec.commandLine().getOut();
    List<String> sbatch = new ArrayList<>(List.of("sbatch", "--parsable"));
    sbatch.addAll(slurm.sbatchArgs);
    if (dryRun) {
      out.print(script.text());
      out.println("# submit with: " + String.join(" ", sbatch.stream().map(SlurmScript::quote).toList())
          + " < THIS-SCRIPT");
      out.flush();
      return 0;
    }
    String id = Slurm.submit(script.text(), slurm.sbatchArgs);
    out.println("submitted Slurm job " + id + ": " + nodes + (nodes == 1 ? " node" : " nodes") + " for " + slurm.time
        + ", a worker on each" + (script.idPerNode() ? " (ids slurm-" + id + "-NODENAME)" : ""));
    out.println("follow it:  squeue -j " + id + "   and its workers: gleaner status --master " + slurm.master);
    out.println("cancel it:  scancel " + id + "   (the workers drain first: what they computed is kept)");
    out.flush();
    return 0;
  }
}
