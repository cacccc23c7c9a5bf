package dev.gleaner.deploy.command.cluster;

import dev.gleaner.deploy.format.HostsFile;
import dev.gleaner.deploy.launch.RemoteWorkers;
import dev.gleaner.deploy.launch.Ssh;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What every {@code gleaner cluster} command shares: the hosts file, which of its hosts, and how to reach them. */
final class ClusterOptions {
  @Parameters(index = "0", paramLabel = "HOSTS", description = "The hosts file (see `gleaner cluster --help`).")
  Path hostsFile;

  @Option(names = "--tag", paramLabel = "TAG", description = "Only the hosts with this tag (repeat: any of them).")
  List<String> tags = List.of();

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = "~/.gleaner/dist",
      description = "The folder on each host for the distribution, credentials, PID and log files, unless the hosts"
          + " file says dir= (default: ${DEFAULT-VALUE}, in the remote home; quote it so your shell leaves ~ alone).")
  String dir;

  @Option(names = "--ssh-option", paramLabel = "OPTION",
      description = "An ssh configuration option, as `ssh -o` takes it (IdentityFile=~/.ssh/lab,"
          + " UserKnownHostsFile=FILE, StrictHostKeyChecking=accept-new); repeat for several. ssh runs with"
          + " BatchMode=yes and your ~/.ssh/config.")
  List<String> sshOptions = List.of();

  @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "10",
      description = "ssh's ConnectTimeout (default: ${DEFAULT-VALUE}).")
  int connectTimeout;

  @Option(names = "--parallel", paramLabel = "N", defaultValue = "16",
      description = "Hosts handled at once (default: ${DEFAULT-VALUE}).")
  int parallel;

  /** The hosts of the file that carry one of --tag (all without it). */
  List<HostsFile.Host> hosts() {
    List<HostsFile.Host> all = HostsFile.read(hostsFile);
    if (tags.isEmpty()) {
      return all;
    }
    List<HostsFile.Host> picked = all.stream().filter(h -> h.tags().stream().anyMatch(tags::contains)).toList();
    if (picked.isEmpty()) {
      throw new IllegalArgumentException("no host of " + hostsFile + " has the tag " + String.join(" or ", tags));
    }
    return picked;
  }

  RemoteWorkers remote() {
    if (connectTimeout < 1) {
      throw new IllegalArgumentException("--connect-timeout must be at least 1 s, got " + connectTimeout);
    }
    if (parallel < 1) {
      throw new IllegalArgumentException("--parallel must be at least 1, got " + parallel);
    }
    // long enough to copy the jar over a slow link and to wait for a worker's drain
    return new RemoteWorkers(new Ssh(sshOptions, connectTimeout, Duration.ofMinutes(5)), dir);
  }

  /** These options as typed, for a command line that repeats them (`gleaner cluster stop ...`). */
  String asArguments() {
    StringBuilder sb = new StringBuilder(Ssh.quote(hostsFile.toString()).replaceAll("^'([A-Za-z0-9_./-]+)'$", "$1"));
    for (String t : tags) {
      sb.append(" --tag ").append(t);
    }
    if (!dir.equals("~/.gleaner/dist")) {
      sb.append(" --dir ").append(Ssh.quote(dir));
    }
    for (String o : sshOptions) {
      sb.append(" --ssh-option ").append(Ssh.quote(o).replaceAll("^'([A-Za-z0-9_./=:-]+)'$", "$1"));
    }
    return sb.toString();
  }
}
