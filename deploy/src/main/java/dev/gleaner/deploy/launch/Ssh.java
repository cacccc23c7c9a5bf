package dev.gleaner.deploy.launch;

import dev.gleaner.deploy.format.HostsFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The system's {@code ssh} client, as {@code gleaner cluster} runs it: never asking for a password or a host key
 * ({@code BatchMode=yes}), bounded in time, with the user's own ssh configuration and keys, and the
 * {@code -o} options given with {@code --ssh-option}.
 */
public final class Ssh {
  private static final Logger log = LoggerFactory.getLogger(Ssh.class);

  /** What ssh returns when it could not reach or log in to the host (the remote command's own codes differ). */
  static final int UNREACHABLE = 255;

  private final List<String> options;
  private final int connectTimeoutSeconds;
  private final Duration timeout;

  /** ssh's outcome: its exit code and what it printed. */
  record Result(int code, String out, String err) {
    /** The last line ssh or the remote command printed on stderr, for a one-line report. */
    String reason() {
      List<String> lines = err.strip().lines().filter(l -> !l.isBlank()).toList();
      return lines.isEmpty() ? "exit code " + code : lines.get(lines.size() - 1).strip();
    }
  }

  /**
   * @param options ssh configuration options, each as {@code -o} takes it ({@code IdentityFile=~/.ssh/lab},
   *     {@code UserKnownHostsFile=/tmp/k}); they come after the hosts file's user and port, so those win
   */
  public Ssh(List<String> options, int connectTimeoutSeconds, Duration timeout) {
    for (String o : options) {
      if (!o.matches("[A-Za-z][A-Za-z0-9]*[= ].*")) {
        throw new IllegalArgumentException("--ssh-option takes an ssh configuration option as `ssh -o` does"
            + " (IdentityFile=~/.ssh/lab, Port=2222), not '" + o + "'");
      }
    }
    this.options = List.copyOf(options);
    this.connectTimeoutSeconds = connectTimeoutSeconds;
    this.timeout = timeout;
  }

  /** Runs {@code script} with {@code sh} on the host (sent on ssh's standard input). */
  Result script(HostsFile.Host host, String script) throws IOException, InterruptedException {
    return run(host, List.of("sh", "-s"), script.getBytes(StandardCharsets.UTF_8), null);
  }

  /**
   * Runs the POSIX shell {@code command} on the host with the file's bytes on its standard input (through
   * {@code sh -c}, whatever the user's login shell).
   */
  Result withInput(HostsFile.Host host, String command, Path input) throws IOException, InterruptedException {
    return run(host, List.of("sh", "-c", quote(command)), null, input);
  }

  private Result run(HostsFile.Host host, List<String> command, byte[] input, Path inputFile)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=" + connectTimeoutSeconds,
        "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3", "-o", "LogLevel=ERROR"));
    if (host.user() != null) {
      cmd.addAll(List.of("-l", host.user()));
    }
    if (host.port() != null) {
      cmd.addAll(List.of("-p", host.port().toString()));
    }
    for (String o : options) {
      cmd.addAll(List.of("-o", o));
    }
    cmd.add("--");
    cmd.add(host.name());
    cmd.addAll(command);
    log.debug("running {}", cmd);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    if (inputFile != null) {
      pb.redirectInput(inputFile.toFile());
    }
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IOException("cannot run ssh (is an OpenSSH client installed and on the PATH?): " + e.getMessage(), e);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread outReader = drain(p.getInputStream(), out, host.name() + "-out");
    Thread errReader = drain(p.getErrorStream(), err, host.name() + "-err");
    try (OutputStream stdin = p.getOutputStream()) {
      if (input != null) {
        stdin.write(input);
      }
    } catch (IOException e) {
      // ssh exited before reading its input (the host is unreachable): its exit code and stderr say why
      log.debug("ssh to {} did not take its input", host.name(), e);
    }
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        throw new IOException("ssh to " + host.name() + " did not finish within " + timeout.toSeconds() + " s");
      }
      outReader.join(TimeUnit.SECONDS.toMillis(5));
      errReader.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      throw e;
    }
    Result r;
    synchronized (out) {
      synchronized (err) {
        r = new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
      }
    }
    log.debug("ssh to {} exited {}: {} {}", host.name(), r.code(), r.out(), r.err());
    return r;
  }

  private static Thread drain(InputStream in, ByteArrayOutputStream to, String name) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[8192];
      try (in) {
        for (int n; (n = in.read(buf)) >= 0; ) {
          synchronized (to) {
            to.write(buf, 0, n);
          }
        }
      } catch (IOException e) {
        log.debug("reading ssh's output ({}) ended", name, e);
      }
    }, "gleaner-ssh-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** {@code s} as one word for a POSIX shell. */
  public static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** A remote path as a shell word: {@code ~/x} becomes {@code "$HOME"/'x'}, so the remote home counts. */
  static String remotePath(String path) {
    if (path.equals("~")) {
      return "\"$HOME\"";
    }
    if (path.startsWith("~/")) {
      return "\"$HOME\"/" + quote(path.substring(2));
    }
    return quote(path);
  }

  /** The SHA-256 of a local file, in hex as sha256sum prints it. */
  static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) >= 0; ) {
        md.update(buf, 0, n);
      }
      return java.util.HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("this Java has no SHA-256", e);
    }
  }
}
