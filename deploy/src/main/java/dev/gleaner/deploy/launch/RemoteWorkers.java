package dev.gleaner.deploy.launch;

import dev.gleaner.deploy.format.HostsFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, stops and looks at worker daemons on other computers over ssh. On each host, in its folder (the
 * hosts file's {@code dir=}, else {@code --dir}): the distribution ({@code gleaner}, {@code gleaner.jar}), the
 * credentials (mode 600), and for each worker id {@code ID.log} and either {@code ID.pid} (started with nohup)
 * or {@code ID.unit} (started with {@code systemd-run --user}). A worker is stopped by that PID or unit only,
 * and a PID counts as the worker only while its command line is that worker's.
 */
public final class RemoteWorkers {
  private static final Logger log = LoggerFactory.getLogger(RemoteWorkers.class);

  /** What happened on a host. */
  public enum Kind { STARTED, RUNNING, STOPPED, FAILED, UNREACHABLE }

  /** One host's outcome; {@code pid} when known. */
  public record Outcome(HostsFile.Host host, Kind kind, String text, Long pid) {
    public boolean failed() {
      return kind == Kind.FAILED || kind == Kind.UNREACHABLE;
    }
  }

  /** The local files a start copies: the distribution, and the worker's credentials. */
  public record Files2Copy(Path jar, Path launcher, Path secretFile, Path tokenDir, Path ca) {}

  private final Ssh ssh;
  private final String defaultDir;

  public RemoteWorkers(Ssh ssh, String defaultDir) {
    if (!defaultDir.startsWith("/") && !defaultDir.startsWith("~/")) {
      throw new IllegalArgumentException("--dir must be an absolute path or start with ~/, got '" + defaultDir + "'");
    }
    this.ssh = ssh;
    this.defaultDir = defaultDir;
  }

  /** Runs {@code action} on every host, {@code parallel} at a time, printing a line per host in the file's order. */
  public static List<Outcome> forEach(List<HostsFile.Host> hosts, int parallel, HostAction action, PrintWriter out)
      throws InterruptedException {
    int width = hosts.stream().mapToInt(h -> h.name().length()).max().orElse(0);
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(parallel, hosts.size())), r -> {
      Thread t = new Thread(r, "gleaner-cluster");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (HostsFile.Host h : hosts) {
        futures.add(pool.submit(() -> {
          try {
            return action.on(h);
          } catch (IOException | RuntimeException e) {
            log.debug("{}: failed", h.name(), e);
            log.info("{}: {}", h.name(), e.toString());
            return new Outcome(h, Kind.FAILED, "failed: " + e.getMessage(), null);
          }
        }));
      }
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> f : futures) {
        Outcome o;
        try {
          o = f.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("a host's action failed unexpectedly: " + e.getCause(), e.getCause());
        }
        out.printf("%-" + width + "s  %s%n", o.host().name(), o.text());
        out.flush();
        outcomes.add(o);
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  /** What to do on one host. */
  public interface HostAction {
    Outcome on(HostsFile.Host host) throws IOException, InterruptedException;
  }

  /** The folder on the host, as a shell word. */
  private String dir(HostsFile.Host h) {
    return Ssh.remotePath(h.dir() != null ? h.dir() : defaultDir);
  }

  /** Shell functions every script starts with: where things are, the worker's state, file hashes. */
  private String prelude(HostsFile.Host h) {
    String id = h.workerId();
    return String.join("\n",
        "set -u",
        "D=" + dir(h),
        "ID=" + Ssh.quote(id),
        "UNIT=" + Ssh.quote(unit(id)),
        "PIDF=\"$D/$ID.pid\"; UNITF=\"$D/$ID.unit\"; LOG=\"$D/$ID.log\"",
        "sha() { if [ ! -f \"$1\" ]; then echo none; elif command -v sha256sum >/dev/null 2>&1; then sha256sum \"$1\" | cut -d' ' -f1;"
            + " elif command -v shasum >/dev/null 2>&1; then shasum -a 256 \"$1\" | cut -d' ' -f1;"
            + " else openssl dgst -sha256 -r \"$1\" | cut -d' ' -f1; fi; }",
        // is PID $1 this worker? by its command line (so a reused PID is never taken for it), never by a name
        "ours() { if [ -r /proc/$1/cmdline ]; then a=$(tr '\\0' ' ' < /proc/$1/cmdline);"
            + " else a=$(ps -o args= -p \"$1\" 2>/dev/null) || return 1; fi;"
            + " case \"$a \" in *\"gleaner.jar worker --id $ID \"*) return 0;; esac; return 1; }",
        "alive() { kill -0 \"$1\" 2>/dev/null && ours \"$1\"; }",
        "state() {",
        "  if [ -f \"$UNITF\" ]; then",
        "    if systemctl --user is-active --quiet \"$UNIT\" 2>/dev/null; then"
            + " echo \"unit $(systemctl --user show -p MainPID --value \"$UNIT\")\"; return; fi",
        "    rm -f \"$UNITF\"",
        "  fi",
        "  if [ -f \"$PIDF\" ]; then p=$(cat \"$PIDF\"); if [ -n \"$p\" ] && alive \"$p\"; then echo \"pid $p\"; return; fi;"
            + " rm -f \"$PIDF\"; fi",
        "  echo stopped",
        "}",
        "");
  }

  /**
   * The systemd unit of a worker id (ids are letters, digits, '.', '_' and '-', all valid in unit names; the suffix
   * is explicit, so that an id ending like a unit type cannot make it another kind of unit).
   */
  static String unit(String workerId) {
    return "gleaner-worker-" + workerId + ".service";
  }

  /** The host could not be reached or logged in to: {@code unreachable: WHY} for status, a failure otherwise. */
  private static Outcome unreachable(HostsFile.Host h, Ssh.Result r, boolean asFailure) {
    return new Outcome(h, Kind.UNREACHABLE, (asFailure ? "failed: cannot reach the host: " : "unreachable: ")
        + r.reason(), null);
  }

  private static Map<String, String> fields(String out) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      int sp = line.indexOf(' ');
      if (sp > 0) {
        m.put(line.substring(0, sp), line.substring(sp + 1).strip());
      }
    }
    return m;
  }

  private static Long pidOf(String state) {
    String[] w = state.split(" ");
    try {
      return w.length > 1 ? Long.valueOf(w[1]) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** {@code running (pid N)} or {@code running (unit U, pid N)} for a state line. */
  private static String running(String state, HostsFile.Host h) {
    return state.startsWith("unit") ? "unit " + unit(h.workerId()) + ", pid " + pidOf(state) : "pid " + pidOf(state);
  }

  /** What the worker on the host is doing: running (with its PID), stopped, or the host unreachable. */
  public Outcome status(HostsFile.Host h) throws IOException, InterruptedException {
    Ssh.Result r = ssh.script(h, prelude(h) + "echo \"state $(state)\"\n");
    if (r.code() == Ssh.UNREACHABLE) {
      return unreachable(h, r, false);
    }
    String state = fields(r.out()).get("state");
    if (r.code() != 0 || state == null) {
      return new Outcome(h, Kind.FAILED, "failed: " + r.reason(), null);
    }
    if (state.equals("stopped")) {
      return new Outcome(h, Kind.STOPPED, "stopped", null);
    }
    return new Outcome(h, Kind.RUNNING, "running (" + running(state, h) + ")", pidOf(state));
  }

  /**
   * Stops the worker by its recorded unit or PID with SIGTERM, so that it drains, and waits up to
   * {@code waitSeconds} for it to exit.
   */
  public Outcome stop(HostsFile.Host h, int waitSeconds) throws IOException, InterruptedException {
    String script = prelude(h) + String.join("\n",
        "s=$(state)",
        "case \"$s\" in",
        "  unit*) if out=$(systemctl --user stop \"$UNIT\" 2>&1); then rm -f \"$UNITF\"; echo \"stopped $s\";"
            + " else echo \"failed systemctl --user stop $UNIT: $out\"; fi;;",
        "  pid*) p=${s#pid }; kill -TERM \"$p\"; i=0",
        "    while alive \"$p\" && [ $i -lt " + waitSeconds + " ]; do sleep 1; i=$((i+1)); done",
        "    if alive \"$p\"; then echo \"failed still running (pid $p) " + waitSeconds + " s after SIGTERM; see $LOG\";"
            + " else rm -f \"$PIDF\"; echo \"stopped $s\"; fi;;",
        "  *) echo \"notrunning\";;",
        "esac",
        "");
    Ssh.Result r = ssh.script(h, script);
    if (r.code() == Ssh.UNREACHABLE) {
      return unreachable(h, r, true);
    }
    String out = r.out().strip();
    if (r.code() != 0 || out.isEmpty()) {
      return new Outcome(h, Kind.FAILED, "failed: " + r.reason(), null);
    }
    if (out.startsWith("stopped ")) {
      String state = out.substring("stopped ".length());
      return new Outcome(h, Kind.STOPPED, "stopped (" + running(state, h) + ", drained)", pidOf(state));
    }
    if (out.equals("notrunning")) {
      return new Outcome(h, Kind.STOPPED, "not running", null);
    }
    return new Outcome(h, Kind.FAILED, "failed: " + out.substring("failed ".length()), null);
  }

  /**
   * Starts a worker on the host unless one runs there already: copies what is missing or different, then starts
   * {@code gleaner worker} detached (under the user's systemd when it outlives the session, else with nohup).
   */
  public Outcome start(HostsFile.Host h, Files2Copy files, String master, List<String> workerOptions)
      throws IOException, InterruptedException {
    String id = h.workerId();
    Path token = files.tokenDir() == null ? null : files.tokenDir().resolve("worker-" + id + ".token");
    if (token != null && !Files.isRegularFile(token)) {
      return new Outcome(h, Kind.FAILED, "failed: no token " + token + " for worker '" + id + "' (gleaner token worker "
          + id + " --cluster-key FILE > " + token + ")", null);
    }
    if (token != null) {
      dev.gleaner.protocol.PeerCredential c = dev.gleaner.protocol.TokenFile.read(token);
      if (c.role() != dev.gleaner.protocol.Role.WORKER || !c.id().equals(id)) {
        return new Outcome(h, Kind.FAILED, "failed: " + token + " is a " + c + ", not the token of worker '" + id + "'",
            null);
      }
    }
    // the remote name of each file to copy, its local file, and its mode
    Map<String, Path> copies = new LinkedHashMap<>();
    copies.put("gleaner.jar", files.jar());
    copies.put("gleaner", files.launcher());
    if (token != null) {
      copies.put(id + ".token", token);
    } else {
      copies.put("secret", files.secretFile());
    }
    if (files.ca() != null) {
      copies.put("ca.crt", files.ca());
    }
    StringBuilder probe = new StringBuilder(prelude(h)).append("echo \"state $(state)\"\n");
    for (String name : copies.keySet()) {
      probe.append("echo \"sha:").append(name).append(" $(sha \"$D\"/").append(Ssh.quote(name)).append(")\"\n");
    }
    probe.append("if command -v \"${JAVA_HOME:+$JAVA_HOME/bin/}java\" >/dev/null 2>&1; then echo 'java yes'; else echo 'java no'; fi\n");
    // a user systemd that outlives the ssh session (lingering); otherwise nohup
    probe.append("if command -v systemd-run >/dev/null 2>&1 && systemctl --user show-environment >/dev/null 2>&1"
        + " && [ \"$(loginctl show-user \"$(id -un)\" -p Linger --value 2>/dev/null)\" = yes ]; then echo 'systemd yes';"
        + " else echo 'systemd no'; fi\n");
    Ssh.Result r = ssh.script(h, probe.toString());
    if (r.code() == Ssh.UNREACHABLE) {
      return unreachable(h, r, true);
    }
    Map<String, String> f = fields(r.out());
    String state = f.get("state");
    if (r.code() != 0 || state == null) {
      return new Outcome(h, Kind.FAILED, "failed: " + r.reason(), null);
    }
    if (!state.equals("stopped")) {
      return new Outcome(h, Kind.RUNNING, "already running (" + running(state, h) + ")", pidOf(state));
    }
    if (!"yes".equals(f.get("java"))) {
      return new Outcome(h, Kind.FAILED, "failed: no java on " + h.name() + " for ssh sessions (install Java 17, or set"
          + " JAVA_HOME in ~/.ssh/environment there)", null);
    }
    List<String> copied = new ArrayList<>();
    for (Map.Entry<String, Path> c : copies.entrySet()) {
      String name = c.getKey();
      if (Ssh.sha256(c.getValue()).equals(f.get("sha:" + name))) {
        continue;
      }
      String part = "\"$D\"/" + Ssh.quote("." + name + "." + id + ".part");
      String mode = name.equals("gleaner") ? "755" : name.endsWith(".jar") || name.equals("ca.crt") ? "644" : "600";
      // written under a temporary name and renamed: a worker never runs a half-copied jar, and two hosts sharing
      // the folder (one computer under two names) do not write into each other's copy
      String command = "D=" + dir(h) + " && mkdir -p \"$D\" && umask 077 && cat > " + part + " && chmod " + mode + " "
          + part + " && mv -f " + part + " \"$D\"/" + Ssh.quote(name);
      Ssh.Result cr = ssh.withInput(h, command, c.getValue());
      if (cr.code() == Ssh.UNREACHABLE) {
        return unreachable(h, cr, true);
      }
      if (cr.code() != 0) {
        return new Outcome(h, Kind.FAILED, "failed: copying " + name + ": " + cr.reason(), null);
      }
      copied.add(name);
    }
    List<String> args = new ArrayList<>(List.of("worker", "--id", id, "--master", master));
    String credential = token != null ? "--token \"$D\"/" + Ssh.quote(id + ".token") : "--secret-file \"$D\"/secret";
    if (h.cores() != null) {
      args.addAll(List.of("--cores", h.cores().toString()));
    }
    if (h.available() != null) {
      args.addAll(List.of("--available", h.available()));
    }
    args.addAll(workerOptions);
    StringBuilder words = new StringBuilder("\"$D\"/gleaner");
    for (String a : args) {
      words.append(' ').append(Ssh.quote(a));
    }
    words.append(' ').append(credential);
    if (files.ca() != null) {
      words.append(" --ca \"$D\"/ca.crt");
    }
    boolean systemd = "yes".equals(f.get("systemd"));
    String launch = systemd ? String.join("\n",
        "systemctl --user reset-failed \"$UNIT\" >/dev/null 2>&1",
        "if ! out=$(systemd-run --user --unit=\"$UNIT\" --collect -p KillSignal=SIGTERM -p TimeoutStopSec=60"
            + " -p StandardOutput=append:\"$LOG\" -p StandardError=append:\"$LOG\" --setenv=PATH ${JAVA_HOME:+--setenv=JAVA_HOME} ${JAVA_OPTS:+--setenv=JAVA_OPTS} ${GLEANER_NICE:+--setenv=GLEANER_NICE} "
            + words + " 2>&1); then echo \"failed systemd-run: $out\"; exit 0; fi",
        "echo \"$UNIT\" > \"$UNITF\"",
        // a worker that cannot start (a bad option) exits within a second or two: say so now, not never
        "sleep 2",
        "if systemctl --user is-active --quiet \"$UNIT\"; then echo \"started $(state)\";"
            + " else rm -f \"$UNITF\"; echo \"failed exited at once: $(tail -n 1 \"$LOG\")\"; fi",
        "")
        : String.join("\n",
        "cd \"$D\" || exit 1",
        "n0=$(wc -c 2>/dev/null < \"$LOG\" || echo 0)",
        // the new process exists and has not exited (a child that exited stays a zombie while this shell runs);
        // not yet ours(): it is nohup, then the launcher, before it is java
        "up() { kill -0 \"$1\" 2>/dev/null || return 1; if [ -r /proc/$1/stat ]; then case \"$(cat /proc/$1/stat)\" in"
            + " *\") Z \"*) return 1;; esac; fi; return 0; }",
        "nohup " + words + " >> \"$LOG\" 2>&1 < /dev/null &",
        "p=$!",
        "echo $p > \"$PIDF\"",
        // started once the worker logs in at the master; a bad option or a refused login is an exit instead;
        // one still alive after 15 s runs and keeps trying (a master not up yet): said with its last line
        "i=0",
        "connected() { tail -c +$((n0 + 1)) \"$LOG\" | grep -q ' connected to master '; }",
        "while up \"$p\" && [ $i -lt 30 ] && ! connected; do sleep 0.5; i=$((i+1)); done",
        "s=$(state)",
        "if [ \"$s\" = stopped ]; then echo \"failed exited at once: $(tail -n 1 \"$LOG\")\";"
            + " elif connected; then echo \"started $s\";"
            + " else echo \"waiting $s|$(tail -n 1 \"$LOG\" | cut -c1-300)\"; fi",
        "");
    Ssh.Result lr = ssh.script(h, prelude(h) + launch);
    if (lr.code() == Ssh.UNREACHABLE) {
      return unreachable(h, lr, true);
    }
    String out = lr.out().strip();
    String what = copied.isEmpty() ? "distribution up to date" : "copied " + String.join(", ", copied);
    if (lr.code() == 0 && out.startsWith("started ")) {
      String s = out.substring("started ".length());
      return new Outcome(h, Kind.STARTED, "started (" + running(s, h) + "; " + what + ")", pidOf(s));
    }
    if (lr.code() == 0 && out.startsWith("waiting ") && out.indexOf('|') > 0) {
      String s = out.substring("waiting ".length(), out.indexOf('|'));
      return new Outcome(h, Kind.STARTED, "started (" + running(s, h) + "; " + what + "), not logged in at the master"
          + " yet: " + out.substring(out.indexOf('|') + 1), pidOf(s));
    }
    return new Outcome(h, Kind.FAILED, "failed: " + (out.startsWith("failed ") ? out.substring("failed ".length())
        : lr.reason()), null);
  }
}
