package dev.gleaner.deploy;

import dev.gleaner.protocol.SecretFile;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a command reaches the master: address and secret file. */
final class ClientOptions {
  @Option(names = "--master", paramLabel = "HOST:PORT", defaultValue = "localhost:7070",
      converter = HostPort.Converter.class, description = "The master's address (default: ${DEFAULT-VALUE}).")
  HostPort master;

  @Option(names = "--secret-file", paramLabel = "FILE", defaultValue = "${env:GLEANER_SECRET_FILE:-${sys:user.home}/.gleaner/secret}",
      description = "The shared cluster secret (default: $GLEANER_SECRET_FILE or ~/.gleaner/secret).")
  Path secretFile;

  byte[] secret() {
    return SecretFile.read(secretFile);
  }
}
