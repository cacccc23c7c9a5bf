package dev.gleaner.master.auth;

/**
 * Which logins the master takes.
 *
 * @param sharedSecret the one cluster secret (any role, any id: a trusted lab network only); null:
 *     shared-secret logins are refused
 * @param clusterKey the key every token derives from; null: token logins are refused
 */
public record MasterAuth(byte[] sharedSecret, byte[] clusterKey) {
  public MasterAuth {
    if (sharedSecret == null && clusterKey == null) {
      throw new IllegalArgumentException("the master needs a shared secret or a cluster key to let anyone in");
    }
  }

  public static MasterAuth sharedSecret(byte[] secret) {
    return new MasterAuth(secret, null);
  }

  /** Tokens only: the master's cluster key; shared-secret logins are refused. */
  public static MasterAuth tokens(byte[] clusterKey) {
    return new MasterAuth(null, clusterKey);
  }
}
