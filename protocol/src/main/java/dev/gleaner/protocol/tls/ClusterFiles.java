package dev.gleaner.protocol.tls;

/** The names of the files {@code gleaner init DIR} makes, which {@code --tls DIR} reads. */
public final class ClusterFiles {
  /** The cluster CA's certificate: public; workers and clients trust it with {@code --ca}. */
  public static final String CA_CERT = "ca.crt";
  /** The cluster CA's private key: secret, stays with whoever issues certificates. */
  public static final String CA_KEY = "ca.key";
  /** The master's certificate chain (its own, then the CA's). */
  public static final String MASTER_CERT = "master.crt";
  /** The master's private key: secret, on the master only. */
  public static final String MASTER_KEY = "master.key";
  /** The cluster key every token derives from: secret, on the master only. */
  public static final String CLUSTER_KEY = "cluster.key";

  private ClusterFiles() {}
}
