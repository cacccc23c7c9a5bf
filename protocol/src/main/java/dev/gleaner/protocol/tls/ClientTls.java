package dev.gleaner.protocol.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A worker's or a client's side of TLS: it trusts the cluster CA only, and checks that the master's
 * certificate names the host (or IP) it dialled, as HTTPS does. Optionally it presents its own
 * certificate, for a master that requires them.
 */
public final class ClientTls {
  private final TrustManagerFactory trust;
  private final KeyManagerFactory keys;
  private final SslContext netty;
  private final SSLContext jdk;

  private ClientTls(TrustManagerFactory trust, KeyManagerFactory keys) {
    this.trust = trust;
    this.keys = keys;
    try {
      SslContextBuilder b = SslContextBuilder.forClient().sslProvider(TlsEngine.provider()).trustManager(trust);
      if (keys != null) {
        b.keyManager(keys);
      }
      this.netty = b.build();
      this.jdk = SSLContext.getInstance("TLS");
      jdk.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
    } catch (SSLException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /** Trusts the certificates of the cluster CA in {@code caFile} (PEM) and no others. */
  public static ClientTls trusting(Path caFile) {
    List<X509Certificate> cas = Pem.certificates(caFile, "CA certificate (--ca)");
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      for (int i = 0; i < cas.size(); i++) {
        store.setCertificateEntry("ca-" + i, cas.get(i));
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      return new ClientTls(tmf, null);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot trust " + caFile + ": " + e.getMessage(), e);
    }
  }

  /** The same trust, presenting this certificate (chain) and key to the master. */
  public ClientTls withIdentity(Path certFile, Path keyFile) {
    List<X509Certificate> chain = Pem.certificates(certFile, "certificate (--cert)");
    PrivateKey key = Pem.privateKey(keyFile, "key (--key)");
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] password = new char[0];
      store.setKeyEntry("me", key, password, chain.toArray(X509Certificate[]::new));
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, password);
      return new ClientTls(trust, kmf);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot use " + certFile + " and " + keyFile + ": " + e.getMessage(), e);
    }
  }

  /** A Netty handler for a connection to {@code host:port}, checking that the certificate names {@code host}. */
  public SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
    SslHandler handler = netty.newHandler(alloc, host, port);
    SSLEngine engine = handler.engine();
    engine.setSSLParameters(checkingHost(engine.getSSLParameters()));
    return handler;
  }

  /** Wraps a connected socket in TLS to {@code host} and completes the handshake. */
  public SSLSocket wrap(Socket socket, String host, int port) throws IOException {
    SSLSocket s = (SSLSocket) jdk.getSocketFactory().createSocket(socket, host, port, true);
    s.setSSLParameters(checkingHost(s.getSSLParameters()));
    s.startHandshake();
    return s;
  }

  private static SSLParameters checkingHost(SSLParameters p) {
    // the certificate must name the host dialled (DNS name) or carry its address (IP SAN)
    p.setEndpointIdentificationAlgorithm("HTTPS");
    return p;
  }
}
