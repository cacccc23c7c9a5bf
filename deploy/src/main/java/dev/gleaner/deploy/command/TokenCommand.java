package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.master.auth.Revocations;
import dev.gleaner.master.store.RevocationTable;
import dev.gleaner.master.store.Store;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.PrivateFile;
import dev.gleaner.protocol.Revocation;
import dev.gleaner.protocol.RevokeReply;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.TokenFile;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gleaner token worker ID} / {@code client NAME} / {@code operator NAME}: one more token
 * from the cluster key; {@code gleaner token revoke ROLE ID} and {@code gleaner token list}: what
 * the master refuses.
 */
@Command(name = "token", mixinStandardHelpOptions = true,
    header = "Make a worker's, a client's or an operator's token from the cluster key; revoke one.",
    description = {"Make a token file from the cluster key: a worker's logs in as that worker id only; a client's"
        + " submits jobs, reads status and cancels, forgets and reads the results of its own jobs; an operator's"
        + " may also cancel and forget anybody's job, drain workers and revoke tokens. The master stores nothing"
        + " per token: it derives each one from its cluster key, so a new peer needs no master restart.",
        "",
        "A leaked token is revoked with `gleaner token revoke ROLE ID` (by an operator, or against the master's"
        + " data directory while it is stopped): the master refuses its logins at once and closes its sessions."
        + " A new token for the same id then needs the next generation (--generation), so an old copy stays dead.",
        "",
        "Under the shared secret (no tokens) every peer is trusted alike: there are no owners and nothing to revoke."},
    subcommands = {TokenCommand.ForWorker.class, TokenCommand.ForClient.class, TokenCommand.ForOperator.class,
        TokenCommand.ForRelay.class, TokenCommand.Revoke.class, TokenCommand.ListRevoked.class})
public final class TokenCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "say what to do: worker ID, client NAME, operator NAME,"
        + " relay ID, revoke ROLE ID or list");
  }

  /** What the three kinds of token have in common. */
  abstract static class Make implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID", description = "The worker's id, or the client's or operator's name.")
    String id;

    @Option(names = "--cluster-key", paramLabel = "FILE", defaultValue = "cluster.key",
        description = "The cluster key (cluster.key from `gleaner init`; default: ./${DEFAULT-VALUE}).")
    Path clusterKey;

    @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "Where to write it (default: ./ROLE-ID.token).")
    Path out;

    @Option(names = "--generation", paramLabel = "N", defaultValue = "0",
        description = "The token's generation: 0 for a new id; after `gleaner token revoke`, the one the revocation"
            + " names (`gleaner token list` shows it). Default: ${DEFAULT-VALUE}.")
    int generation;

    @Option(names = "--force", description = "Overwrite an existing file.")
    boolean force;

    abstract Role role();

    @Override
    public Integer call() {
      Role r = role();
      checkId(id);
      if (generation < 0) {
        throw new IllegalArgumentException("--generation is 0 or more, not " + generation);
      }
      if (!Files.exists(clusterKey)) {
        throw new IllegalArgumentException("cluster key " + clusterKey + " does not exist; give --cluster-key FILE"
            + " (`gleaner init DIR` makes DIR/cluster.key)");
      }
      Path file = out != null ? out : Path.of(fileName(r, id));
      if (Files.exists(file) && !force) {
        throw new IllegalArgumentException(file + " exists; pass --force to overwrite it");
      }
      write(file, SecretFile.read(clusterKey), r, id, generation);
      spec.commandLine().getOut().println("made " + file + " (mode 600" + (generation == 0 ? "" : ", generation "
          + generation) + "): " + describe(r, id));
      return 0;
    }
  }

  @Command(name = "worker", mixinStandardHelpOptions = true, header = "Make a worker's token: it logs in as that id only.")
  static final class ForWorker extends Make {
    @Override
    Role role() {
      return Role.WORKER;
    }
  }

  @Command(name = "client", mixinStandardHelpOptions = true,
      header = "Make a client's token: it submits jobs, reads status and changes its own jobs only.")
  static final class ForClient extends Make {
    @Override
    Role role() {
      return Role.CLIENT;
    }
  }

  @Command(name = "operator", mixinStandardHelpOptions = true,
      header = "Make an operator's token: a client that may also change anybody's job, drain workers and revoke tokens.")
  static final class ForOperator extends Make {
    @Override
    Role role() {
      return Role.OPERATOR;
    }
  }

  @Command(name = "relay", mixinStandardHelpOptions = true,
      header = "Make a relay's token: `gleaner relay` logs in with it and passes workers' connections up.")
  static final class ForRelay extends Make {
    @Override
    Role role() {
      return Role.RELAY;
    }
  }

  /** Where a revocation is recorded: through the running master, or in its data directory while it is stopped. */
  static final class Target {
    @Mixin
    ClientOptions client;

    @Option(names = "--data", paramLabel = "DIR", description = "Work on the master's data directory instead of"
        + " asking the master (the master must be stopped; it reads the revocations when it starts).")
    Path data;
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true,
      header = "Revoke a token: the master refuses its logins at once and closes its live sessions.",
      description = {"Revoke the token of ROLE ID: the master refuses its logins from now on and closes its live"
          + " sessions (a worker's unfinished work goes to the others). Asks the running master with an operator's"
          + " --token, or writes into its --data directory while it is stopped.",
          "A new token for the same id needs the next generation: `gleaner token ROLE ID --generation N`, N as printed."})
  static final class Revoke implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    Target target;

    @Parameters(index = "0", paramLabel = "ROLE", description = "worker, client, operator or relay.")
    String role;

    @Parameters(index = "1", paramLabel = "ID", description = "The worker's id, or the client's or operator's name.")
    String id;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the master's log and `gleaner token list`.")
    String reason = "";

    @Override
    public Integer call() throws Exception {
      Role r = Auth.role(role);
      checkId(id);
      Revocation rec;
      int closed;
      if (target.data != null) {
        rec = offline(target.data, store -> Revocations.proto(store.submit(RevocationTable.revoke(Auth.roleName(r),
            id, System.currentTimeMillis(), "the admin (--data " + target.data + ")",
            reason.length() > 500 ? reason.substring(0, 500) : reason)).join()));
        closed = 0;
      } else {
        try (MasterClient c = target.client.connect("`gleaner token revoke`")) {
          RevokeReply reply = c.revoke(r, id, reason);
          rec = reply.getRevocation();
          closed = reply.getSessionsClosed();
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println("revoked " + role + " '" + id + "': its logins are refused from now on"
          + (target.data != null ? " (when the master starts on " + target.data + ")" : "; " + closed
          + " live session(s) closed"));
      out.println("a new token for it, made where the cluster key is (the folder of `gleaner init`): gleaner token " + role
          + " " + id + " --generation " + rec.getNextGeneration() + " --cluster-key DIR/cluster.key");
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, header = "List the revoked tokens: which, when, by whom, why.")
  static final class ListRevoked implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    Target target;

    @Override
    public Integer call() throws Exception {
      List<Revocation> all;
      if (target.data != null) {
        all = offline(target.data, store -> {
          List<Revocation> l = new ArrayList<>();
          store.now(RevocationTable.revocations()).forEach(r -> l.add(Revocations.proto(r)));
          return l;
        });
      } else {
        try (MasterClient c = target.client.connect("`gleaner token list`")) {
          all = c.revocations();
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      if (all.isEmpty()) {
        out.println("no token is revoked");
        return 0;
      }
      out.printf("%-9s %-20s %-10s %-24s %s%n", "ROLE", "ID", "NEXT-GEN", "REVOKED", "BY, WHY");
      for (Revocation r : all) {
        out.printf("%-9s %-20s %-10d %-24s %s%n", Auth.roleName(r.getRole()), r.getId(), r.getNextGeneration(),
            java.time.Instant.ofEpochMilli(r.getAtMillis()), r.getBy() + (r.getReason().isEmpty() ? "" : ": " + r.getReason()));
      }
      return 0;
    }
  }

  private static <T> T offline(Path data, java.util.function.Function<Store, T> work) {
    if (!Files.isRegularFile(data.resolve("gleaner.db"))) {
      throw new IllegalArgumentException(data + " holds no master's store (gleaner.db): give the --data of `gleaner master`");
    }
    Store store;
    try {
      store = new Store(data);
    } catch (IllegalStateException e) {
      if (e.getMessage() != null && e.getMessage().contains("in use by another master")) {
        throw new IllegalArgumentException(e.getMessage().replace("; stop it or give this one its own --data", "")
            + ": ask it instead (an operator's --token, without --data), or stop it first", e);
      }
      throw e;
    }
    try (store) {
      return work.apply(store);
    }
  }

  private static void checkId(String id) {
    if (id.isBlank() || id.length() > 200) {
      throw new IllegalArgumentException("an id has 1 to 200 characters");
    }
  }

  /** {@code worker-ID.token}, with characters a file name cannot hold replaced. */
  static String fileName(Role role, String id) {
    return Auth.roleName(role) + "-" + id.replaceAll("[^A-Za-z0-9._-]", "_") + ".token";
  }

  static void write(Path file, byte[] clusterKey, Role role, String id) {
    write(file, clusterKey, role, id, 0);
  }

  static void write(Path file, byte[] clusterKey, Role role, String id, int generation) {
    PeerCredential token = PeerCredential.token(role, id, Auth.token(clusterKey, role, id, generation), generation);
    PrivateFile.write(file, TokenFile.format(token).getBytes(StandardCharsets.UTF_8));
  }

  static String describe(Role role, String id) {
    return TokenFile.describe(role, id);
  }
}
