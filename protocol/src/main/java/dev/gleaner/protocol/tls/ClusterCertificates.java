package dev.gleaner.protocol.tls;

import dev.gleaner.protocol.PrivateFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Makes the cluster CA and the certificates it signs (EC P-256, SHA-256), as PEM files.
 *
 * <p>How: the JDK's own {@code keytool} does the X.509 work, run as a child process on a private
 * temporary folder; this class only moves keys between PEM files and PKCS#12 stores. Why: the
 * build has no BouncyCastle PKIX jar offline, and {@code sun.security.x509} is internal to the JDK
 * (it needs {@code --add-exports} and may change without notice); {@code keytool} ships with every
 * JDK and JRE and its options are stable. Store passwords go to it through its environment, never
 * its command line.
 */
public final class ClusterCertificates {
  private static final Pattern IP = Pattern.compile("[0-9.]+|.*:.*");
  private static final String PASSWORD_VARIABLE = "GLEANER_KEYSTORE_PASSWORD";

  private ClusterCertificates() {}

  /** Makes {@code ca.crt} and {@code ca.key} (mode 600) in {@code dir}, valid for {@code days}. */
  public static X509Certificate makeCa(Path dir, String name, int days) {
    return withScratch(tmp -> {
      Path store = tmp.resolve("ca.p12");
      String password = password();
      keytool(password, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1",
          "-sigalg", "SHA256withECDSA", "-dname", "CN=" + escape(name), "-ext", "bc:c", "-ext", "KU=keyCertSign,cRLSign",
          "-validity", Integer.toString(days), "-keystore", store.toString(), "-storetype", "PKCS12");
      KeyStore ks = load(store, password);
      X509Certificate cert = (X509Certificate) ks.getCertificate("ca");
      PrivateFile.write(dir.resolve(ClusterFiles.CA_KEY), Pem.privateKey((PrivateKey) ks.getKey("ca", password.toCharArray()))
          .getBytes(StandardCharsets.US_ASCII));
      Files.writeString(dir.resolve(ClusterFiles.CA_CERT), Pem.certificate(cert));
      return cert;
    });
  }

  /**
   * Issues a certificate signed by the CA in {@code caDir}: {@code certOut} holds it and then the
   * CA's, {@code keyOut} (mode 600) its key.
   *
   * @param names DNS names and IP addresses the certificate answers to (subject alternative names)
   * @param startDate when it becomes valid, in keytool's form ({@code -1d}, {@code 2020/01/01}); null: now
   */
  public static X509Certificate issue(Path caDir, Path certOut, Path keyOut, String commonName, List<String> names,
      String startDate, int days) {
    List<X509Certificate> caChain = Pem.certificates(caDir.resolve(ClusterFiles.CA_CERT), "CA certificate");
    PrivateKey caKey = Pem.privateKey(caDir.resolve(ClusterFiles.CA_KEY), "CA key");
    return withScratch(tmp -> {
      String password = password();
      Path caStore = tmp.resolve("ca.p12");
      KeyStore ca = KeyStore.getInstance("PKCS12");
      ca.load(null, null);
      ca.setKeyEntry("ca", caKey, password.toCharArray(), caChain.toArray(X509Certificate[]::new));
      try (var out = Files.newOutputStream(caStore)) {
        ca.store(out, password.toCharArray());
      }
      Path store = tmp.resolve("leaf.p12");
      keytool(password, "-genkeypair", "-alias", "leaf", "-keyalg", "EC", "-groupname", "secp256r1",
          "-sigalg", "SHA256withECDSA", "-dname", "CN=" + escape(commonName), "-validity", Integer.toString(days),
          "-keystore", store.toString(), "-storetype", "PKCS12");
      Path csr = tmp.resolve("leaf.csr");
      keytool(password, "-certreq", "-alias", "leaf", "-keystore", store.toString(), "-file", csr.toString());
      Path crt = tmp.resolve("leaf.crt");
      List<String> args = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", caStore.toString(),
          "-infile", csr.toString(), "-outfile", crt.toString(), "-rfc", "-sigalg", "SHA256withECDSA",
          "-validity", Integer.toString(days), "-ext", "KU=digitalSignature,keyAgreement",
          "-ext", "EKU=serverAuth,clientAuth"));
      if (!names.isEmpty()) {
        args.add("-ext");
        args.add("SAN=" + String.join(",", names.stream().map(ClusterCertificates::san).toList()));
      }
      if (startDate != null) {
        args.add("-startdate");
        args.add(startDate);
      }
      keytool(password, args.toArray(String[]::new));
      X509Certificate cert = Pem.certificates(crt, "issued certificate").get(0);
      PrivateKey key = (PrivateKey) load(store, password).getKey("leaf", password.toCharArray());
      PrivateFile.write(keyOut, Pem.privateKey(key).getBytes(StandardCharsets.US_ASCII));
      StringBuilder chain = new StringBuilder(Pem.certificate(cert));
      for (X509Certificate c : caChain) {
        chain.append(Pem.certificate(c));
      }
      Files.writeString(certOut, chain);
      return cert;
    });
  }

  /** keytool's SAN entry for a DNS name or an IP address. */
  static String san(String name) {
    if (name.isBlank() || name.contains(",")) {
      throw new IllegalArgumentException("'" + name + "' is not a host name or an IP address");
    }
    return (IP.matcher(name).matches() ? "ip:" : "dns:") + name;
  }

  private static String escape(String dn) {
    return dn.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=").replace("+", "\\+");
  }

  private static String password() {
    byte[] b = new byte[18];
    new SecureRandom().nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private static KeyStore load(Path store, String password) throws GeneralSecurityException, IOException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, password.toCharArray());
    }
    return ks;
  }

  private static void keytool(String password, String... args) throws IOException, InterruptedException {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    if (!Files.isExecutable(keytool)) {
      throw new IllegalStateException("the JDK's keytool is not at " + keytool + "; run this with a full Java installation");
    }
    List<String> command = new ArrayList<>(List.of(keytool.toString(), "-noprompt"));
    command.addAll(List.of(args));
    command.addAll(List.of("-storepass:env", PASSWORD_VARIABLE));
    if (args[0].equals("-genkeypair")) {
      command.addAll(List.of("-keypass:env", PASSWORD_VARIABLE));
    }
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put(PASSWORD_VARIABLE, password);
    Process p = pb.start();
    try {
      byte[] output = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("keytool " + args[0] + " did not finish within 60 s");
      }
      if (p.exitValue() != 0) {
        String text = new String(output, StandardCharsets.UTF_8).strip();
        throw new IllegalStateException("keytool " + args[0] + " failed: " + text.lines().reduce((a, b) -> b).orElse(""));
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
  }

  private interface Step<T> {
    T run(Path scratch) throws Exception;
  }

  /** Runs {@code step} in a private temporary folder and removes the folder afterwards. */
  private static <T> T withScratch(Step<T> step) {
    Path tmp = null;
    try {
      tmp = Files.createTempDirectory("gleaner-keytool-",
          java.nio.file.attribute.PosixFilePermissions.asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
      return step.run(tmp);
    } catch (RuntimeException e) {
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while making certificates", e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot make certificates: " + e.getMessage(), e);
    } finally {
      if (tmp != null) {
        try (var files = Files.walk(tmp)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
          // a leftover empty scratch folder in the temporary directory is harmless
        }
      }
    }
  }
}
