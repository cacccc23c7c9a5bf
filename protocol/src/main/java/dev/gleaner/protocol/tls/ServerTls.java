package dev.gleaner.protocol.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SslHandler;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * The master's side of TLS: its certificate chain and key (from {@code gleaner init}), and, with
 * client authentication, the CA whose certificates peers must present.
 */
public final class ServerTls {
  private final SslContext context;
  private final X509Certificate certificate;
  private final boolean clientAuth;

  private ServerTls(SslContext context, X509Certificate certificate, boolean clientAuth) {
    this.context = context;
    this.certificate = certificate;
    this.clientAuth = clientAuth;
  }

  /**
   * The master's TLS from a {@code gleaner init} directory: {@code master.crt} and
   * {@code master.key}, and {@code ca.crt} when peers must present certificates of the cluster CA.
   */
  public static ServerTls fromDir(Path dir, boolean requireClientCertificates) {
    return fromFiles(dir.resolve(ClusterFiles.MASTER_CERT), dir.resolve(ClusterFiles.MASTER_KEY),
        requireClientCertificates ? dir.resolve(ClusterFiles.CA_CERT) : null);
  }

  /** From a certificate chain and its key; {@code clientCa} non-null requires peers' certificates signed by it. */
  public static ServerTls fromFiles(Path certFile, Path keyFile, Path clientCa) {
    return fromFiles("master", certFile, keyFile, clientCa);
  }

  /** As above, for {@code who} (the master, a relay), as its errors name it. */
  public static ServerTls fromFiles(String who, Path certFile, Path keyFile, Path clientCa) {
    List<X509Certificate> chain = Pem.certificates(certFile, who + " certificate");
    PrivateKey key = Pem.privateKey(keyFile, who + " key");
    X509Certificate leaf = chain.get(0);
    try {
      leaf.checkValidity();
    } catch (CertificateExpiredException e) {
      throw new IllegalArgumentException("the " + who + " certificate " + certFile + " expired on " + leaf.getNotAfter()
          + "; make a new one with `gleaner init`", e);
    } catch (CertificateNotYetValidException e) {
      throw new IllegalArgumentException("the " + who + " certificate " + certFile + " is not valid before "
          + leaf.getNotBefore() + " (is this computer's clock right?)", e);
    }
    try {
      SslContextBuilder b = SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))
          .sslProvider(TlsEngine.provider());
      if (clientCa != null) {
        b.trustManager(Pem.certificates(clientCa, "cluster CA certificate").toArray(X509Certificate[]::new))
            .clientAuth(ClientAuth.REQUIRE);
      }
      return new ServerTls(b.build(), leaf, clientCa != null);
    } catch (SSLException e) {
      throw new IllegalArgumentException("cannot use " + certFile + " and " + keyFile + " for TLS: " + e.getMessage(), e);
    }
  }

  public SslHandler newHandler(ByteBufAllocator alloc) {
    return context.newHandler(alloc);
  }

  /** True if peers must present a certificate of the cluster CA. */
  public boolean requiresClientCertificates() {
    return clientAuth;
  }

  /** The master's own certificate, to say at startup which names it answers to. */
  public X509Certificate certificate() {
    return certificate;
  }
}
