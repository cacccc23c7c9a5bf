package dev.gleaner.deploy.command;

import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.relay.RelayConfig;
import dev.gleaner.worker.relay.RelayDaemon;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner relay}: passes the connections of workers (and relays) below it up to the master. */
@Command(name = "relay", mixinStandardHelpOptions = true,
    header = "Run a relay: workers connect to it, and it passes their connections up to the master.",
    description = {"Run a relay daemon between the master and workers, for a site behind one link: it logs in"
        + " upward (to the master, or to another relay) with its own token and listens on --port; each worker that"
        + " connects to it gets a connection of its own upward, and its bytes pass through unchanged, its login"
        + " included (the relay holds no key and stores nothing). It computes nothing: start a worker beside it.",
        "",
        "Workers name it first and the master after it, --master RELAY:7071,MASTER:7070: when the relay is gone they"
            + " connect to the master directly, and their chunks go on. `gleaner status` shows each worker's relay.",
        "",
        "With --serve DIR holding copies of the jobs' input files, the relay sends that input to its workers itself.",
        "",
        "With --ca, --cert and --key it speaks TLS both ways: to the master (trusting the cluster CA, presenting its"
            + " certificate), and to its workers, who check that its certificate names the host they dial.",
        "",
        "Example:",
        "  gleaner relay --id site-a --token relay-site-a.token --master master.lab:7070 --port 7071",
        "  gleaner relay --id site-a --token relay-site-a.token --master master.lab:7070 --serve /data/inputs",
        "  gleaner relay --token relay-site-a.token --ca ca.crt --cert relay-site-a.crt --key relay-site-a.key"
            + " --master master.lab:7070",
        "  gleaner worker --token worker-w1.token --master site-a.lab:7071,master.lab:7070"})
public final class RelayCommand implements Callable<Integer> {
  @Mixin
  ClientOptions client;

  @Option(names = "--id", description = "The relay's id (default: the id of --token, else this host's name).")
  String id;

  @Option(names = "--port", defaultValue = "7071",
      description = "Port to listen on for workers (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
      description = "Address to listen on (default: ${DEFAULT-VALUE}, every interface).")
  String bind;

  @Option(names = "--buffer", paramLabel = "BYTES", defaultValue = "8M",
      description = "The most bytes held for one worker each way before the relay stops reading that side"
          + " (e.g. 8M, 512k; default: ${DEFAULT-VALUE}): a thin link's input is read ahead this far at the"
          + " uplink's pace.")
  String buffer;

  @Option(names = "--serve", paramLabel = "DIR",
      description = "Input files this relay holds (copies of the master's --serve files): for a job whose input is one"
          + " of them (same size and SHA-256), the relay sends it to the workers behind it, and only the assignments"
          + " cross its uplink. Read once at start; the files must not change while it runs.")
  Path serve;

  @Option(names = "--client-auth", paramLabel = "none|require", defaultValue = "none",
      description = "With TLS: require a certificate of the cluster CA from every worker and relay below it, as"
          + " gleaner master --client-auth does (default: ${DEFAULT-VALUE}).")
  String clientAuth;

  @Option(names = "--log-file", paramLabel = "FILE", description = "Also log to this file.")
  Path logFile;

  /** TLS upward: trusting --ca, presenting the relay's own certificate (a master may require it). */
  private dev.gleaner.protocol.tls.ClientTls tlsUp(String relayId) {
    if (client.certFile == null || client.keyFile == null) {
      throw new IllegalArgumentException("a relay on TLS serves its workers with a certificate of its own: give --cert"
          + " and --key (`gleaner init DIR --relays " + relayId + "` makes certs/relay-" + relayId + ".crt and .key)");
    }
    return client.tls();
  }

  /** TLS downward: the relay's certificate, and with --client-auth require the cluster CA to check peers'. */
  private dev.gleaner.protocol.tls.ServerTls tlsDown(String relayId) {
    if (!clientAuth.equals("none") && !clientAuth.equals("require")) {
      throw new IllegalArgumentException("--client-auth must be none or require, got '" + clientAuth + "'");
    }
    return dev.gleaner.protocol.tls.ServerTls.fromFiles("relay " + relayId, client.certFile, client.keyFile,
        clientAuth.equals("require") ? client.caFile : null);
  }

  @Override
  public Integer call() throws Exception {
    if (logFile != null) {
      LogFile.install(logFile);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port must be a port number (0 to 65535), got " + port);
    }
    long bytes = WorkerCommand.bytes(buffer, "--buffer");
    if (bytes > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException("--buffer must be at most 1G, got '" + buffer + "'");
    }
    PeerCredential credential = client.credential(Role.RELAY, "`gleaner relay`");
    String relayId = id == null || id.isBlank() ? WorkerDaemon.hostName() : id;
    if (credential.isToken()) {
      if (id != null && !id.equals(credential.id())) {
        throw new IllegalArgumentException("--id " + id + " disagrees with " + client.tokenFile + ", which is the token"
            + " of relay '" + credential.id() + "'; leave out --id (a relay takes its token's id)");
      }
      relayId = credential.id();
    }
    RelayConfig config = RelayConfig.defaults(relayId, new InetSocketAddress(bind, port),
        client.upstreams().stream().map(h -> InetSocketAddress.createUnresolved(h.host(), h.port())).toList(),
        credential).withBuffer((int) bytes);
    if (client.caFile != null) {
      config = config.withTls(tlsUp(relayId), tlsDown(relayId));
      if (clientAuth.equals("none")) {
        // its own certificate goes up for every connection it passes: a master's --client-auth require sees it
        org.slf4j.LoggerFactory.getLogger(RelayCommand.class).warn("relay {} takes workers without a certificate"
            + " (--client-auth none) and passes them up under its own: if the master runs with --client-auth"
            + " require, start this relay with --client-auth require too", relayId);
      }
    } else if (clientAuth.equals("require")) {
      throw new IllegalArgumentException("--client-auth require needs TLS: give --ca, --cert and --key");
    }
    if (serve != null) {
      if (!java.nio.file.Files.isDirectory(serve)) {
        throw new IllegalArgumentException("--serve " + serve + " is not a directory");
      }
      config = config.withServe(serve);
    }
    RelayDaemon relay = RelayDaemon.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(relay::stop, "gleaner-relay-shutdown"));
    while (!relay.awaitStop(Duration.ofDays(1))) {
      // wait for a stop; bounded by the JVM's life
    }
    if (relay.fatalError() != null) {
      System.err.println("gleaner relay: " + relay.fatalError());
      return 1;
    }
    return 0;
  }
}
