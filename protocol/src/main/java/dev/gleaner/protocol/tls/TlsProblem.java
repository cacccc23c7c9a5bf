package dev.gleaner.protocol.tls;

import io.netty.handler.ssl.NotSslRecordException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLException;

/**
 * A failed TLS connection, told in one line for people, and whether connecting again could help
 * (a certificate that is untrusted, expired or for another host will be the same next time).
 *
 * @param message the sentence
 * @param permanent true if retrying cannot fix it
 */
public record TlsProblem(String message, boolean permanent) {

  /**
   * What went wrong, seen from a peer of the master at {@code master}; null if {@code failure}
   * is not a TLS failure.
   */
  public static TlsProblem of(Throwable failure, String master) {
    if (find(failure, NotSslRecordException.class) != null || messages(failure).contains("Unsupported or unrecognized SSL message")) {
      return new TlsProblem("the master at " + master + " does not speak TLS (started without --tls?); "
          + "connect without --ca, or start it with --tls", true);
    }
    SSLException ssl = find(failure, SSLException.class);
    if (ssl == null) {
      return null;
    }
    CertificateExpiredException expired = find(failure, CertificateExpiredException.class);
    if (expired != null) {
      return new TlsProblem("the certificate of the master at " + master + " has expired (" + expired.getMessage()
          + "); make a new one with `gleaner init`", true);
    }
    if (find(failure, CertificateNotYetValidException.class) != null) {
      return new TlsProblem("the certificate of the master at " + master + " is not valid yet (is a clock wrong?)", true);
    }
    String text = messages(failure);
    if (text.contains("No subject alternative") || text.contains("No name matching")) {
      return new TlsProblem("the certificate of the master at " + master + " does not name that host or address"
          + " (" + firstMatching(failure) + "); dial a name it has, or remake it with `gleaner init --host`", true);
    }
    if (find(failure, CertPathValidatorException.class) != null || text.contains("PKIX path")
        || text.contains("unable to find valid certification path")) {
      return new TlsProblem("the certificate of the master at " + master + " is not signed by the CA in --ca"
          + " (another cluster's CA, or the wrong file)", true);
    }
    if (find(failure, CertificateException.class) != null) {
      return new TlsProblem("the certificate of the master at " + master + " was refused: " + firstMatching(failure), true);
    }
    if (text.contains("bad_certificate") || text.contains("certificate_required") || text.contains("unknown_ca")
        || text.contains("certificate_unknown") || text.contains("certificate_expired")) {
      return new TlsProblem("the master at " + master + " refused this side's certificate (" + ssl.getMessage()
          + "); it requires one of the cluster CA: pass --cert and --key", true);
    }
    return new TlsProblem("TLS with the master at " + master + " failed: " + ssl.getMessage(), false);
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  private static String messages(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      b.append(c.getMessage()).append('\n');
    }
    return b.toString();
  }

  /** The innermost message, the most specific one. */
  private static String firstMatching(Throwable t) {
    String m = t.getMessage();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null) {
        m = c.getMessage();
      }
    }
    return m;
  }
}
