package dev.gleaner.deploy.command;

import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.PrivateFile;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.TokenFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gleaner token worker ID} / {@code gleaner token client NAME}: one more token from the cluster key. */
@Command(name = "token", mixinStandardHelpOptions = true,
    header = "Make a worker's or a client's token from the cluster key.",
    description = {"Make a token file from the cluster key: a worker's logs in as that worker id only, a client's"
        + " submits jobs and reads status under that name and cannot register as a worker. The master stores"
        + " nothing per token: it derives each one from its cluster key, so a new worker needs no master restart."})
public final class TokenCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ROLE", description = "worker or client.")
  String role;

  @Parameters(index = "1", paramLabel = "ID", description = "The worker's id, or the client's name.")
  String id;

  @Option(names = "--cluster-key", paramLabel = "FILE", defaultValue = "cluster.key",
      description = "The cluster key (cluster.key from `gleaner init`; default: ./${DEFAULT-VALUE}).")
  Path clusterKey;

  @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "Where to write it (default: ./ROLE-ID.token).")
  Path out;

  @Option(names = "--force", description = "Overwrite an existing file.")
  boolean force;

  @Override
  public Integer call() {
    Role r = Auth.role(role);
    if (id.isBlank() || id.length() > 200) {
      throw new IllegalArgumentException("an id has 1 to 200 characters");
    }
    if (!Files.exists(clusterKey)) {
      throw new IllegalArgumentException("cluster key " + clusterKey + " does not exist; give --cluster-key FILE"
          + " (`gleaner init DIR` makes DIR/cluster.key)");
    }
    Path file = out != null ? out : Path.of(fileName(r, id));
    if (Files.exists(file) && !force) {
      throw new IllegalArgumentException(file + " exists; pass --force to overwrite it");
    }
    write(file, SecretFile.read(clusterKey), r, id);
    spec.commandLine().getOut().println("made " + file + " (mode 600): " + describe(r, id));
    return 0;
  }

  /** {@code worker-ID.token}, with characters a file name cannot hold replaced. */
  static String fileName(Role role, String id) {
    return Auth.roleName(role) + "-" + id.replaceAll("[^A-Za-z0-9._-]", "_") + ".token";
  }

  static void write(Path file, byte[] clusterKey, Role role, String id) {
    PeerCredential token = PeerCredential.token(role, id, Auth.token(clusterKey, role, id));
    PrivateFile.write(file, TokenFile.format(token).getBytes(StandardCharsets.UTF_8));
  }

  static String describe(Role role, String id) {
    return role == Role.WORKER ? "logs in as worker '" + id + "' and nothing else"
        : "submits jobs and reads status as client '" + id + "'";
  }
}
