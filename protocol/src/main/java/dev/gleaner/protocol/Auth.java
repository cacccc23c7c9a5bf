package dev.gleaner.protocol;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Challenge/response. The master sends a fresh random nonce; the peer answers
 * HMAC-SHA256(key, nonce || role || peer id), where the key is the shared cluster secret or the
 * peer's {@linkplain #token token}. No key crosses the wire, and a recorded answer is useless for
 * any other nonce.
 *
 * <p>A token is HMAC-SHA256(cluster key, ROLE + ":" + id), ROLE being "worker", "client",
 * "operator" or "relay": the master keeps only the cluster key and derives the token of whoever says hello, so
 * a token answers for its own role and id and for nothing else, and no per-worker list is stored.
 * After a revocation the id needs a token of a later generation G, HMAC-SHA256(cluster key, ROLE +
 * "#" + G + ":" + id): the text before the first ':' is the role's and the generation's alone, so no
 * id can make one generation's text equal another's.
 */
public final class Auth {
  public static final int NONCE_BYTES = 32;

  private Auth() {}

  /** The master's source of nonces, made on first use: a client that only answers never seeds one. */
  private static final class Nonces {
    static final SecureRandom RANDOM = new SecureRandom();
  }

  public static byte[] newNonce() {
    byte[] nonce = new byte[NONCE_BYTES];
    Nonces.RANDOM.nextBytes(nonce);
    return nonce;
  }

  public static byte[] mac(byte[] secret, byte[] nonce, Role role, String peerId) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(nonce);
      mac.update((byte) role.getNumber());
      mac.update(peerId.getBytes(StandardCharsets.UTF_8));
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /** The first-generation token of {@code role} and {@code id} under the cluster key. */
  public static byte[] token(byte[] clusterKey, Role role, String id) {
    return token(clusterKey, role, id, 0);
  }

  /** The token of {@code role} and {@code id} of {@code generation} (0 the first) under the cluster key. */
  public static byte[] token(byte[] clusterKey, Role role, String id, int generation) {
    if (generation < 0) {
      throw new IllegalArgumentException("a token's generation is 0 or more, not " + generation);
    }
    String prefix = generation == 0 ? roleName(role) : roleName(role) + "#" + generation;
    return hmac(clusterKey, (prefix + ":" + id).getBytes(StandardCharsets.UTF_8));
  }

  /** "worker", "client", "operator" or "relay": the name a role has in tokens, token files and commands. */
  public static String roleName(Role role) {
    return switch (role) {
      case WORKER -> "worker";
      case CLIENT -> "client";
      case OPERATOR -> "operator";
      case RELAY -> "relay";
      default -> throw new IllegalArgumentException("no tokens for role " + role);
    };
  }

  /** The role named "worker", "client", "operator" or "relay". */
  public static Role role(String name) {
    return switch (name) {
      case "worker" -> Role.WORKER;
      case "client" -> Role.CLIENT;
      case "operator" -> Role.OPERATOR;
      case "relay" -> Role.RELAY;
      default -> throw new IllegalArgumentException("a role is worker, client, operator or relay, not '" + name + "'");
    };
  }

  private static byte[] hmac(byte[] key, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /** Constant-time comparison of the expected and the received answer. */
  public static boolean verify(byte[] secret, byte[] nonce, Role role, String peerId, byte[] answer) {
    return MessageDigest.isEqual(mac(secret, nonce, role, peerId), answer);
  }
}
