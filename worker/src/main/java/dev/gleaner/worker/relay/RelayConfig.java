package dev.gleaner.worker.relay;

import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.ServerTls;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What a relay is configured with.
 *
 * @param id its id (its token's, when it logs in with a token)
 * @param bind where it listens for the workers and relays below it (port 0: any free one)
 * @param upstreams the master or relays above it, tried in order (see {@code MasterDialer})
 * @param credential what it answers the challenge of its own session with: the shared secret or
 *     its relay token (the connections it passes up answer with their own)
 * @param bufferBytes the most bytes it holds for one peer below it, going down (a thin link's
 *     input, read ahead at the uplink's pace) or going up, before it stops reading that side
 * @param backoffInitial first wait before dialling its upstream again
 * @param backoffCap longest wait before dialling again
 * @param maxFrameBytes hard limit of one frame on its own session, and of a frame it reads going down
 * @param serve a directory of input files it holds (null: none): the master has it send a job's input
 *     to the workers behind it when it holds the same file
 * @param up TLS to its upstreams, trusting the cluster CA and presenting its certificate (null: clear text)
 * @param down TLS to the peers below it, with its certificate (null: clear text); each hop is encrypted
 *     on its own, and the relay reads the frames between them (as it reads Fills)
 */
public record RelayConfig(String id, InetSocketAddress bind, List<InetSocketAddress> upstreams,
    PeerCredential credential, int bufferBytes, Duration backoffInitial, Duration backoffCap, int maxFrameBytes,
    Path serve, ClientTls up, ServerTls down) {
  /** The default of {@link #bufferBytes}: a few slices of input, enough for a fat uplink's round trip. */
  public static final int DEFAULT_BUFFER_BYTES = 8 << 20;

  public RelayConfig {
    upstreams = List.copyOf(upstreams);
    if (id == null || id.isBlank() || id.length() > 200) {
      throw new IllegalArgumentException("a relay needs an id of 1 to 200 characters");
    }
    if (upstreams.isEmpty()) {
      throw new IllegalArgumentException("a relay needs at least one upstream (the master, or a relay above it)");
    }
    if (credential.isToken() && credential.role() != Role.RELAY) {
      throw new IllegalArgumentException("that is a " + credential + "; a relay needs a relay token"
          + " (`gleaner token relay ID`)");
    }
    if (credential.isToken() && !credential.id().equals(id)) {
      throw new IllegalArgumentException("the token is for relay '" + credential.id() + "', not '" + id
          + "': a relay logs in under its token's id (leave out --id, or make a token for this id)");
    }
    if (bufferBytes < 64 * 1024) {
      throw new IllegalArgumentException("a relay's buffer must be at least 64 KiB, got " + bufferBytes + " bytes");
    }
  }

  /** Defaults: 8 MiB per peer, reconnecting after 200 ms, up to 30 s. */
  public static RelayConfig defaults(String id, InetSocketAddress bind, List<InetSocketAddress> upstreams,
      PeerCredential credential) {
    return new RelayConfig(id, bind, upstreams, credential, DEFAULT_BUFFER_BYTES, Duration.ofMillis(200),
        Duration.ofSeconds(30), Framing.DEFAULT_MAX_FRAME_BYTES, null, null, null);
  }

  public RelayConfig withBuffer(int bytes) {
    return new RelayConfig(id, bind, upstreams, credential, bytes, backoffInitial, backoffCap, maxFrameBytes, serve,
        up, down);
  }

  public RelayConfig withBackoff(Duration initial, Duration cap) {
    return new RelayConfig(id, bind, upstreams, credential, bufferBytes, initial, cap, maxFrameBytes, serve, up,
        down);
  }

  /** The same relay, holding the input files under {@code dir}. */
  public RelayConfig withServe(Path dir) {
    return new RelayConfig(id, bind, upstreams, credential, bufferBytes, backoffInitial, backoffCap, maxFrameBytes,
        dir, up, down);
  }

  /** The same relay on TLS both ways: {@code up} to its upstreams, {@code down} to the peers below it. */
  public RelayConfig withTls(ClientTls up, ServerTls down) {
    if ((up == null) != (down == null)) {
      throw new IllegalArgumentException("a relay speaks TLS both ways or neither");
    }
    return new RelayConfig(id, bind, upstreams, credential, bufferBytes, backoffInitial, backoffCap, maxFrameBytes,
        serve, up, down);
  }
}
