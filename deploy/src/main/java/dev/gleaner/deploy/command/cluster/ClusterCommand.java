package dev.gleaner.deploy.command.cluster;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gleaner cluster}: workers on many computers at once, from a hosts file or a batch system. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    header = "Start, stop and look at workers on many computers over ssh, or autoscale them on Slurm.",
    description = {"Start, stop and look at workers on the computers of a hosts file, over the system's ssh with your"
        + " ssh configuration and keys (never a password prompt), or run a job on them in one command; or keep"
        + " enough Slurm jobs of workers for the queued work (autoscale).",
        "",
        "Hosts file: one computer a line, the host first, then key=value settings; # starts a comment:",
        "  lab-pc-1",
        "  lab-pc-2  cores=4 available=\"Fri 18:00-Mon 08:00\" tags=desktop,room-2",
        "  node-7    user=gleaner port=2222 id=node-7 dir=/opt/gleaner",
        "Keys: " + "cores, available, tags, user, port, id (the worker id; default: the host), dir (the folder there;"
        + " default: --dir). An unknown key is an error.", ""},
    subcommands = {ClusterStartCommand.class, ClusterStopCommand.class, ClusterStatusCommand.class,
        ClusterRunCommand.class, AutoscaleCommand.class})
public final class ClusterCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
