package dev.gleaner.protocol.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;

/**
 * Which TLS engine the master, workers and clients use: OpenSSL (BoringSSL, from Netty's
 * tcnative) where its native library loads on this platform, else the JDK's. The two speak the
 * same TLS; OpenSSL costs several times less CPU per byte, which matters once a chunk's input is
 * streamed over TLS. {@code -Dgleaner.tls.engine=jdk} forces the JDK's.
 */
public final class TlsEngine {
  private TlsEngine() {}

  /** The provider for a new TLS context. */
  public static SslProvider provider() {
    if ("jdk".equalsIgnoreCase(System.getProperty("gleaner.tls.engine", ""))) {
      return SslProvider.JDK;
    }
    return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
  }

  /** The engine's name for logs: "OpenSSL (BoringSSL ...)" or "JDK". */
  public static String name() {
    return provider() == SslProvider.OPENSSL ? "OpenSSL (" + OpenSsl.versionString() + ")" : "JDK";
  }
}
