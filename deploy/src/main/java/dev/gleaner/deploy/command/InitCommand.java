package dev.gleaner.deploy.command;

import dev.gleaner.protocol.PrivateFile;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.tls.ClusterCertificates;
import dev.gleaner.protocol.tls.ClusterFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gleaner init DIR}: a cluster's credentials. A CA, the master's certificate and key signed by
 * it, the cluster key that tokens derive from, and tokens for the workers and clients named.
 */
@Command(name = "init", mixinStandardHelpOptions = true,
    header = "Make a cluster's CA, master certificate, cluster key and tokens.",
    description = {"Make a cluster's credentials in DIR: a cluster CA (ca.crt, ca.key), the master's certificate"
        + " and key (master.crt, master.key), the cluster key (cluster.key) and tokens (tokens/*.token).",
        "Secret files are mode 600. Then run `gleaner master --tls DIR`; workers and clients need ca.crt and"
        + " their own token only."})
public final class InitCommand implements Callable<Integer> {
  static final String TOKENS = "tokens";
  static final String CERTS = "certs";

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "Where to put the files (made if missing).")
  Path dir;

  @Option(names = "--host", split = ",", paramLabel = "NAME",
      description = "Host names and IP addresses workers and clients dial the master by (default: localhost,"
          + " 127.0.0.1 and this machine's host name); the master's certificate names each one.")
  List<String> hosts = new ArrayList<>();

  @Option(names = "--workers", split = ",", paramLabel = "ID", description = "Worker ids to make tokens for.")
  List<String> workers = new ArrayList<>();

  @Option(names = "--clients", split = ",", paramLabel = "NAME", defaultValue = "admin",
      description = "Client names to make tokens for (default: ${DEFAULT-VALUE}).")
  List<String> clients = new ArrayList<>();

  @Option(names = "--operators", split = ",", paramLabel = "NAME",
      description = "Operator names to make tokens for: clients that may also change anybody's job, drain workers and"
          + " revoke tokens.")
  List<String> operators = new ArrayList<>();

  @Option(names = "--relays", split = ",", paramLabel = "ID",
      description = "Relay ids to make tokens for (`gleaner relay`: passes the connections of workers behind it up).")
  List<String> relays = new ArrayList<>();

  @Option(names = "--relay-host", paramLabel = "ID=NAME[,NAME...]",
      description = "The host names and IP addresses workers dial relay ID by: its certificate (certs/relay-ID.crt,"
          + " made for every --relays ID) names them (default: the relay's id). Repeat per relay.")
  java.util.Map<String, String> relayHosts = new java.util.LinkedHashMap<>();

  @Option(names = "--client-certs", description = "Also issue a certificate and key for each worker and client, for a"
      + " master run with --client-auth require.")
  boolean clientCerts;

  @Option(names = "--days", defaultValue = "825", description = "Validity of the master's certificate (default: ${DEFAULT-VALUE} days;"
      + " the CA's is ten years).")
  int days;

  @Option(names = "--force", description = "Replace the credentials already in DIR (every worker and client then needs new files).")
  boolean force;

  @Override
  public Integer call() throws IOException {
    if (days < 1) {
      throw new IllegalArgumentException("--days must be at least 1");
    }
    List<String> existing = existing();
    if (!existing.isEmpty() && !force) {
      throw new IllegalArgumentException(dir + " already holds cluster credentials (" + String.join(", ", existing)
          + "); `gleaner token worker|client|operator ID --cluster-key " + dir.resolve("cluster.key") + "` makes a token for"
          + " one more peer from them; --force replaces them all (every worker and client then needs new files)");
    }
    Set<String> names = new LinkedHashSet<>(hosts);
    if (names.isEmpty()) {
      names.addAll(List.of("localhost", "127.0.0.1"));
      String me = hostName();
      if (me != null) {
        names.add(me);
      }
    }
    Files.createDirectories(dir.resolve(TOKENS));
    ClusterCertificates.makeCa(dir, "Gleaner cluster CA " + dir.toAbsolutePath().getFileName(), 3650);
    ClusterCertificates.issue(dir, dir.resolve(ClusterFiles.MASTER_CERT), dir.resolve(ClusterFiles.MASTER_KEY),
        "gleaner master", List.copyOf(names), null, days);
    byte[] clusterKey = new byte[32];
    new SecureRandom().nextBytes(clusterKey);
    // the key is the file's text, as `gleaner master` and `gleaner token` read it back
    byte[] keyText = Base64.getEncoder().encode(clusterKey);
    PrivateFile.write(dir.resolve(ClusterFiles.CLUSTER_KEY), (new String(keyText, StandardCharsets.US_ASCII) + "\n")
        .getBytes(StandardCharsets.US_ASCII));

    PrintWriter out = spec.commandLine().getOut();
    out.println("made the credentials of a cluster in " + dir + ":");
    line(out, ClusterFiles.CA_CERT, "the cluster CA: copy it to every worker and client (public)");
    line(out, ClusterFiles.CA_KEY, "the CA's key (600): signs certificates; keep it off the network");
    line(out, ClusterFiles.MASTER_CERT, "the master's certificate, for " + String.join(", ", names));
    line(out, ClusterFiles.MASTER_KEY, "the master's key (600): the master only");
    line(out, ClusterFiles.CLUSTER_KEY, "the key all tokens derive from (600): the master only (and `gleaner token`)");
    List<String[]> peers = new ArrayList<>();
    for (String w : workers) {
      peers.add(new String[] {"worker", w});
    }
    for (String c : clients) {
      peers.add(new String[] {"client", c});
    }
    for (String o : operators) {
      peers.add(new String[] {"operator", o});
    }
    for (String r : relays) {
      peers.add(new String[] {"relay", r});
    }
    for (String r : relayHosts.keySet()) {
      if (!relays.contains(r)) {
        throw new IllegalArgumentException("--relay-host " + r + "=...: " + r + " is not among --relays");
      }
    }
    if (clientCerts && !peers.isEmpty() || !relays.isEmpty()) {
      Files.createDirectories(dir.resolve(CERTS));
    }
    for (String[] p : peers) {
      Role role = Auth.role(p[0]);
      String file = TokenCommand.fileName(role, p[1]);
      TokenCommand.write(dir.resolve(TOKENS).resolve(file), keyText, role, p[1]);
      line(out, TOKENS + "/" + file, "(600) " + TokenCommand.describe(role, p[1]));
      if (role == Role.RELAY) {
        // a relay serves its workers over TLS: its certificate names the hosts they dial it by
        String base = file.substring(0, file.length() - ".token".length());
        List<String> hosts = List.of(relayHosts.getOrDefault(p[1], p[1]).split(","));
        Path certs = dir.resolve(CERTS);
        ClusterCertificates.issue(dir, certs.resolve(base + ".crt"), certs.resolve(base + ".key"), "relay " + p[1],
            hosts, null, days);
        line(out, CERTS + "/" + base + ".crt, .key", "(key 600) its certificate, for " + String.join(", ", hosts)
            + ": --cert and --key");
      } else if (clientCerts) {
        String base = file.substring(0, file.length() - ".token".length());
        ClusterCertificates.issue(dir, dir.resolve(CERTS).resolve(base + ".crt"), dir.resolve(CERTS).resolve(base + ".key"),
            p[0] + " " + p[1], List.of(), null, days);
        line(out, CERTS + "/" + base + ".crt, .key", "(key 600) its certificate, for --cert and --key");
      }
    }
    String master = names.stream().filter(n -> !n.equals("localhost") && !n.startsWith("127.")).findFirst()
        .orElse(names.iterator().next());
    String worker = workers.isEmpty() ? "ID" : workers.get(0);
    String client = clients.isEmpty() ? "NAME" : clients.get(0);
    out.println();
    out.println("next:");
    out.println("  on the master:  gleaner master --tls " + dir + (clientCerts ? " --client-auth require" : ""));
    out.println("  on worker " + worker + ":    gleaner worker --master " + master + ":7070 --ca ca.crt --token "
        + TokenCommand.fileName(Role.WORKER, worker) + (clientCerts ? " --cert worker-" + worker + ".crt --key worker-" + worker + ".key" : ""));
    for (String r : relays) {
      out.println("  on relay " + r + ":  gleaner relay --master " + master + ":7070 --ca ca.crt --token "
          + TokenCommand.fileName(Role.RELAY, r) + " --cert relay-" + r + ".crt --key relay-" + r + ".key"
          + (clientCerts ? " --client-auth require" : ""));
      String at = relayHosts.getOrDefault(r, r).split(",")[0];
      out.println("  behind relay " + r + ": gleaner worker --master " + at + ":7071," + master
          + ":7070 --ca ca.crt --token " + TokenCommand.fileName(Role.WORKER, worker));
    }
    out.println("  as a client:    gleaner submit JOB.yaml --master " + master + ":7070 --ca ca.crt --token "
        + TokenCommand.fileName(Role.CLIENT, client)
        + (clientCerts ? " --cert client-" + client + ".crt --key client-" + client + ".key" : ""));
    out.println("  more tokens:    gleaner token worker ID --cluster-key " + dir.resolve(ClusterFiles.CLUSTER_KEY)
        + " (or client NAME, operator NAME, relay ID)");
    out.println("copy ca.crt and each peer's own token (never cluster.key, ca.key or master.key) to that peer.");
    return 0;
  }

  private List<String> existing() {
    List<String> found = new ArrayList<>();
    for (String f : List.of(ClusterFiles.CA_CERT, ClusterFiles.CA_KEY, ClusterFiles.MASTER_CERT, ClusterFiles.MASTER_KEY,
        ClusterFiles.CLUSTER_KEY)) {
      if (Files.exists(dir.resolve(f))) {
        found.add(f);
      }
    }
    return found;
  }

  private static void line(PrintWriter out, String file, String what) {
    out.printf("  %-28s %s%n", file, what);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return null;
    }
  }
}
