package dev.gleaner.protocol;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Challenge/response on the shared cluster secret. The master sends a fresh random nonce; the peer
 * answers HMAC-SHA256(secret, nonce || role || peer id). The secret never crosses the wire, and a
 * recorded answer is useless for any other nonce.
 */
public final class Auth {
  public static final int NONCE_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  private Auth() {}

  public static byte[] newNonce() {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
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

  /** Constant-time comparison of the expected and the received answer. */
  public static boolean verify(byte[] secret, byte[] nonce, Role role, String peerId, byte[] answer) {
    return MessageDigest.isEqual(mac(secret, nonce, role, peerId), answer);
  }
}
