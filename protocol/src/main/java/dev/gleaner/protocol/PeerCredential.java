package dev.gleaner.protocol;

/**
 * What a worker or a client answers the master's challenge with: the shared cluster secret (any
 * role, any id: a trusted lab network only), or a token bound to one role and one id.
 *
 * @param kind SHARED_SECRET or TOKEN
 * @param key the HMAC key of the answer
 * @param role the token's role; null for the shared secret
 * @param id the token's worker id or client name; null for the shared secret
 * @param generation the token's generation (0 the first; a later one after a revocation)
 */
public record PeerCredential(Credential kind, byte[] key, Role role, String id, int generation) {
  public PeerCredential {
    if (kind == Credential.TOKEN && (role == null || id == null || id.isBlank())) {
      throw new IllegalArgumentException("a token names its role and id");
    }
    if (generation < 0) {
      throw new IllegalArgumentException("a token's generation is 0 or more, not " + generation);
    }
  }

  public static PeerCredential sharedSecret(byte[] secret) {
    return new PeerCredential(Credential.SHARED_SECRET, secret, null, null, 0);
  }

  public static PeerCredential token(Role role, String id, byte[] token) {
    return token(role, id, token, 0);
  }

  public static PeerCredential token(Role role, String id, byte[] token, int generation) {
    return new PeerCredential(Credential.TOKEN, token, role, id, generation);
  }

  /** The role a client with this credential says hello as: its token's (client or operator), else client. */
  public Role clientRole() {
    return isToken() ? role : Role.CLIENT;
  }

  public boolean isToken() {
    return kind == Credential.TOKEN;
  }

  /** The answer to a challenge, for a peer that says hello as {@code role} and {@code peerId}. */
  public byte[] answer(byte[] nonce, Role role, String peerId) {
    return Auth.mac(key, nonce, role, peerId);
  }

  @Override
  public String toString() {
    return isToken() ? Auth.roleName(role) + " token for '" + id + "'" + (generation == 0 ? "" : " (generation " + generation + ")")
        : "shared secret";
  }
}
