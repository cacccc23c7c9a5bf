package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.TokenFile;
import dev.gleaner.protocol.tls.ClientTls;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a command reaches the master: address, credential (token or shared secret) and TLS trust. */
public final class ClientOptions {
  @picocli.CommandLine.Spec(picocli.CommandLine.Spec.Target.MIXEE)
  picocli.CommandLine.Model.CommandSpec mixee;

  /** The master's address, or the first upstream of a worker's or a relay's list. */
  public HostPort master;
  /** A worker's or a relay's other upstreams, tried in order after {@link #master}. */
  public java.util.List<HostPort> alternates = java.util.List.of();

  @Option(names = "--master", paramLabel = "HOST:PORT", defaultValue = "localhost:7070",
      description = "The master's address (default: ${DEFAULT-VALUE}). A worker or a relay takes a list, HOST:PORT,..."
          + " (relays and the master): it connects to the first and moves along the list when one cannot be reached.")
  void master(String text) {
    java.util.List<HostPort> all = new java.util.ArrayList<>();
    for (String one : text.split(",", -1)) {
      try {
        all.add(new HostPort.Converter().convert(one));
      } catch (picocli.CommandLine.TypeConversionException e) {
        throw new picocli.CommandLine.ParameterException(mixee.commandLine(), "--master: " + e.getMessage());
      }
    }
    master = all.get(0);
    alternates = java.util.List.copyOf(all.subList(1, all.size()));
  }

  /** Every upstream, {@link #master} first. */
  public java.util.List<HostPort> upstreams() {
    java.util.List<HostPort> all = new java.util.ArrayList<>(java.util.List.of(master));
    all.addAll(alternates);
    return all;
  }

  @Option(names = "--secret-file", paramLabel = "FILE", defaultValue = "${env:GLEANER_SECRET_FILE:-${sys:user.home}/.gleaner/secret}",
      description = "The shared cluster secret (default: $GLEANER_SECRET_FILE or ~/.gleaner/secret); a trusted lab"
          + " network only. Not read with --token.")
  public Path secretFile;

  @Option(names = "--token", paramLabel = "FILE", defaultValue = "${env:GLEANER_TOKEN_FILE}",
      description = "Log in with this token file (from `gleaner init` or `gleaner token`) instead of the shared"
          + " secret (default: $GLEANER_TOKEN_FILE).")
  public Path tokenFile;

  @Option(names = "--ca", paramLabel = "FILE", defaultValue = "${env:GLEANER_CA}",
      description = "Speak TLS to the master and trust the cluster CA in FILE (ca.crt from `gleaner init`) only;"
          + " the master's certificate must name the host or IP of --master (default: $GLEANER_CA).")
  public Path caFile;

  @Option(names = "--cert", paramLabel = "FILE", description = "With --ca: present this certificate (for a master"
      + " started with --client-auth require).")
  Path certFile;

  @Option(names = "--key", paramLabel = "FILE", description = "The private key of --cert.")
  Path keyFile;

  /**
   * The token of {@code role} from --token, or the shared secret; a token of another role is a
   * one-line error. An operator's token does what a client's does.
   */
  public PeerCredential credential(Role role, String command) {
    if (tokenFile == null) {
      return PeerCredential.sharedSecret(SecretFile.read(secretFile));
    }
    PeerCredential c = TokenFile.read(tokenFile);
    if (c.role() != role && !(role == Role.CLIENT && c.role() == Role.OPERATOR)) {
      throw new IllegalArgumentException(tokenFile + " is a " + c + "; " + command + " needs a "
          + Auth.roleName(role) + " token (`gleaner token " + Auth.roleName(role) + " NAME`)");
    }
    return c;
  }

  /** TLS trusting --ca, or null for clear text. */
  public ClientTls tls() {
    if ((certFile == null) != (keyFile == null)) {
      throw new IllegalArgumentException("--cert and --key go together");
    }
    if (caFile == null) {
      if (certFile != null) {
        throw new IllegalArgumentException("--cert needs --ca: client certificates are a part of TLS");
      }
      return null;
    }
    ClientTls t = ClientTls.trusting(caFile);
    return certFile == null ? t : t.withIdentity(certFile, keyFile);
  }

  /** Connects as a client, with this command's credential and TLS. */
  public MasterClient connect(String command) throws java.io.IOException {
    if (!alternates.isEmpty()) {
      throw new IllegalArgumentException(command + " talks to one master: give --master HOST:PORT (a list is for"
          + " `gleaner worker` and `gleaner relay`)");
    }
    return MasterClient.connect(master, credential(Role.CLIENT, command), tls());
  }
}
