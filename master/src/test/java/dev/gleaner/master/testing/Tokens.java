package dev.gleaner.master.testing;

import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import java.nio.charset.StandardCharsets;

/** A cluster key for tests and the tokens it makes. */
public final class Tokens {
  private Tokens() {}

  public static final byte[] CLUSTER_KEY = "cluster-key-for-tests-0123456789".getBytes(StandardCharsets.UTF_8);

  /** The token of {@code role} and {@code id} under {@link #CLUSTER_KEY}. */
  public static PeerCredential token(Role role, String id) {
    return PeerCredential.token(role, id, Auth.token(CLUSTER_KEY, role, id));
  }
}
