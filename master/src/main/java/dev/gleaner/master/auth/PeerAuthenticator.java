package dev.gleaner.master.auth;

import dev.gleaner.master.store.RevocationTable;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Credential;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Role;
import java.security.MessageDigest;

/**
 * Checks a peer's answer to the challenge against what its Hello claims: the shared secret, or the
 * token the master derives from its cluster key for the Hello's role and id. It stores nothing per
 * worker; a token for worker A cannot answer for B, nor a worker's token for a client, nor the
 * other way round. A token of a revoked generation is refused at once. A refusal names its cause
 * in one sentence, which the peer reads and the log keeps.
 */
public final class PeerAuthenticator {
  private static final Role[] TOKEN_ROLES = {Role.WORKER, Role.CLIENT, Role.OPERATOR, Role.RELAY};
  private final MasterAuth auth;
  private final Revocations revocations;

  public PeerAuthenticator(MasterAuth auth, Revocations revocations) {
    this.auth = auth;
    this.revocations = revocations;
  }

  /** Null if {@code answer} proves the Hello's role and id, else why not. */
  public String refusal(Hello hello, byte[] nonce, byte[] answer) {
    Role role = hello.getRole();
    String id = hello.getPeerId();
    String who = Auth.roleName(role) + " '" + id + "'";
    if (hello.getCredential() == Credential.TOKEN) {
      if (auth.clusterKey() == null) {
        return "authentication failed for " + who + ": this master takes no tokens (it has no cluster key);"
            + " log in with its shared secret (--secret-file)";
      }
      int generation = hello.getTokenGeneration();
      if (matches(Auth.token(auth.clusterKey(), role, id, generation), nonce, role, id, answer)) {
        return revokedRefusal(role, id, generation);
      }
      for (Role other : TOKEN_ROLES) {
        if (other != role && matches(Auth.token(auth.clusterKey(), other, id, generation), nonce, role, id, answer)) {
          return "authentication failed for " + who + ": that is " + a(other) + " token, and " + a(other)
              + " token cannot log in as " + a(role);
        }
      }
      return "authentication failed for " + who + ": the token is not " + who + "'s (a token for another id"
          + " or role, or from another cluster's key)";
    }
    if (auth.sharedSecret() == null) {
      return "authentication failed for " + who + ": this master refuses shared-secret logins; log in with"
          + " --token FILE (made by `gleaner init` or `gleaner token`)";
    }
    if (matches(auth.sharedSecret(), nonce, role, id, answer)) {
      return null;
    }
    return "authentication failed: the peer's secret file differs from the master's";
  }

  /** "a worker", "an operator". */
  private static String a(Role role) {
    return (role == Role.OPERATOR ? "an " : "a ") + Auth.roleName(role);
  }

  /**
   * Null if the generation of {@code role}/{@code id}'s token is the one the master takes (0, or
   * the one its last revocation named), else why it cannot log in.
   */
  public String revokedRefusal(Role role, String id, int generation) {
    int next = revocations.nextGeneration(role, id);
    if (generation == next) {
      return null;
    }
    String name = Auth.roleName(role);
    if (generation > next) {
      // made ahead of time: a later revocation could not kill it
      return "the " + name + " token of '" + id + "' is of generation " + generation + ", and the master takes generation "
          + next + " of it (gleaner token list shows the revoked ids)";
    }
    RevocationTable.RevocationRecord r = revocations.revoked(role, id);
    return "the " + name + " token of '" + id + "'" + (generation == 0 ? "" : " (generation " + generation + ")")
        + " was " + Revocations.describe(r) + "; ask the cluster's admin for a new one (gleaner token " + name + " " + id
        + " --generation " + next + ")";
  }

  /**
   * Null if {@code credential}, as a browser or a program shows it to the web page, lets it read
   * the status, else why not in one sentence. It is a client's or an operator's token as
   * {@code NAME:BASE64} (the {@code id=} and {@code token=} of its token file) or the shared secret
   * (the secret file's text). A worker token cannot read status, as on the framed protocol.
   */
  public String webRefusal(String credential) {
    return webLogin(credential).refusal();
  }

  /**
   * Who {@code credential} is on the web page: a client, an operator or the shared secret's holder;
   * or, with a caller of null, why it may not read the status (see {@link #webRefusal}).
   */
  public WebLogin webLogin(String credential) {
    if (credential == null || credential.isEmpty()) {
      return WebLogin.refused("no credential: give a client token as NAME:BASE64 (the id= and token= of its file) or the shared"
          + " secret, in an Authorization: Bearer header or as ?token=");
    }
    int colon = credential.lastIndexOf(':');
    if (colon > 0 && auth.clusterKey() != null) {
      String name = credential.substring(0, colon);
      byte[] token;
      try {
        token = java.util.Base64.getDecoder().decode(credential.substring(colon + 1).strip().replace(' ', '+'));
      } catch (IllegalArgumentException e) {
        token = null;
      }
      if (token != null) {
        for (Role role : new Role[] {Role.CLIENT, Role.OPERATOR}) {
          // the page takes the generation the master takes now, and names an older one as revoked
          int next = revocations.nextGeneration(role, name);
          if (MessageDigest.isEqual(Auth.token(auth.clusterKey(), role, name, next), token)) {
            return new WebLogin(role == Role.OPERATOR ? Caller.operator(name) : Caller.client(name), null);
          }
          for (int g = Math.max(0, next - 16); g < next; g++) {
            if (MessageDigest.isEqual(Auth.token(auth.clusterKey(), role, name, g), token)) {
              return WebLogin.refused(revokedRefusal(role, name, g));
            }
          }
        }
        if (MessageDigest.isEqual(Auth.token(auth.clusterKey(), Role.WORKER, name, revocations.nextGeneration(Role.WORKER, name)), token)) {
          return WebLogin.refused("that is the token of worker '" + name + "', and a worker token cannot read status;"
              + " use a client token");
        }
      }
    }
    if (auth.sharedSecret() != null) {
      byte[] given = credential.strip().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      // a secret pasted into ?token= unencoded has its '+' read as spaces
      byte[] plus = credential.strip().replace(' ', '+').getBytes(java.nio.charset.StandardCharsets.UTF_8);
      if (MessageDigest.isEqual(auth.sharedSecret(), given) || MessageDigest.isEqual(auth.sharedSecret(), plus)) {
        return new WebLogin(Caller.TRUSTED, null);
      }
    }
    return WebLogin.refused("the credential is neither a client's or an operator's token of this cluster (NAME:BASE64)"
        + " nor its shared secret");
  }

  /** A credential shown to the web page: who it is, or (caller null) why it is refused. */
  public record WebLogin(Caller caller, String refusal) {
    public static WebLogin refused(String why) {
      return new WebLogin(null, why);
    }
  }

  private static boolean matches(byte[] key, byte[] nonce, Role role, String id, byte[] answer) {
    return MessageDigest.isEqual(Auth.mac(key, nonce, role, id), answer);
  }
}
