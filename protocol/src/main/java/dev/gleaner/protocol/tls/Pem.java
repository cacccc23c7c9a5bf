package dev.gleaner.protocol.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** PEM files: certificates (one or a chain) and unencrypted PKCS#8 private keys. */
public final class Pem {
  private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
  private static final String KEY_END = "-----END PRIVATE KEY-----";

  private Pem() {}

  /** The certificates of a PEM file, in file order; a missing or empty file is a one-line error. */
  public static List<X509Certificate> certificates(Path file, String what) {
    byte[] bytes = read(file, what);
    try {
      List<X509Certificate> out = new ArrayList<>();
      for (var c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))) {
        out.add((X509Certificate) c);
      }
      if (out.isEmpty()) {
        throw new IllegalArgumentException(what + " " + file + " holds no certificate");
      }
      return out;
    } catch (CertificateException e) {
      throw new IllegalArgumentException(what + " " + file + " is not a PEM certificate: " + e.getMessage(), e);
    }
  }

  /** The private key of a PKCS#8 PEM file (EC or RSA). */
  public static PrivateKey privateKey(Path file, String what) {
    String text = new String(read(file, what), StandardCharsets.US_ASCII);
    int b = text.indexOf(KEY_BEGIN);
    int e = text.indexOf(KEY_END);
    if (b < 0 || e < b) {
      throw new IllegalArgumentException(what + " " + file + " is not a PEM private key (no " + KEY_BEGIN + ")");
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(b + KEY_BEGIN.length(), e));
    for (String alg : new String[] {"EC", "RSA"}) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException ignored) {
        // try the next algorithm
      }
    }
    throw new IllegalArgumentException(what + " " + file + " holds neither an EC nor an RSA private key");
  }

  public static String certificate(X509Certificate cert) {
    try {
      return block("CERTIFICATE", cert.getEncoded());
    } catch (CertificateException e) {
      throw new IllegalStateException("cannot encode a certificate", e);
    }
  }

  public static String privateKey(PrivateKey key) {
    return block("PRIVATE KEY", key.getEncoded());
  }

  private static String block(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  private static byte[] read(Path file, String what) {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(what + " " + file + " does not exist (`gleaner init DIR` makes it)", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + what + " " + file + ": " + e.getMessage(), e);
    }
  }
}
