package dev.gleaner.deploy.testbed;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real network on one machine: a master and N workers, each in a network namespace of its own,
 * joined by veth pairs to a bridge in a namespace of its own, with a rate (tbf) on each worker's
 * downlink (the bridge's side of its veth) and on the master's uplink (the master's side of its
 * veth), set at any time, a job running or not.
 *
 * <p>Every address lives inside the namespaces made here ({@code 10.213.0.1} the master,
 * {@code 10.213.0.(10+i)} worker i): the namespace this JVM runs in gets no address, link or route
 * to them, and each veth is made directly in the namespaces it joins. Processes are started inside
 * a namespace with {@code ip netns exec}, which becomes the program, so each is known by its pid.
 *
 * <p>{@link #close} ends every process started here by its pid (then any other process left in the
 * namespaces, by the pids {@code ip netns pids} gives), and deletes the namespaces, which takes
 * their veths, the bridge and the qdiscs with them. It runs at the end, on failure, and on Ctrl-C (a
 * shutdown hook); a testbed left by a JVM that was killed is removed by the next one made
 * ({@link #sweep}), by the names it made: {@code gltb-PID-N-ROLE}, PID the JVM that made it.
 */
public final class Testbed implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Testbed.class);

  /** The most workers a testbed holds (the addresses of its /24). */
  public static final int MAX_WORKERS = 200;
  /** How long a process is given to end on SIGTERM before SIGKILL. */
  private static final long PATIENCE_SECONDS = 5;

  private static final Pattern NAME = Pattern.compile("gltb-(\\d+)-\\d+-[a-z0-9]+");
  private static final AtomicInteger SEQ = new AtomicInteger();

  /** The handle of each shaped device's qdisc, by "namespace device": guarded by this. */
  private final Map<String, Integer> handles = new HashMap<>();

  private final String prefix;
  private final int workers;
  private final List<String> made = new ArrayList<>();
  private final List<Process> processes = Collections.synchronizedList(new ArrayList<>());
  private final Rate[] downlinks;
  private Rate uplink = Rate.UNLIMITED;
  private final Thread hook;
  private boolean closed;
  /** Counted down when the first close has ended everything: a second close waits for it. */
  private final java.util.concurrent.CountDownLatch removed = new java.util.concurrent.CountDownLatch(1);

  private Testbed(String prefix, int workers) {
    this.prefix = prefix;
    this.workers = workers;
    this.downlinks = new Rate[workers + 1];
    java.util.Arrays.fill(downlinks, Rate.UNLIMITED);
    this.hook = new Thread(this::close, "testbed-teardown");
  }

  /**
   * Why a testbed cannot be made here ("not root", "no 'tc' command", the kernel's refusal of a
   * namespace or of tbf), or null when it can: found by making a namespace with a tbf qdisc and
   * removing it.
   */
  public static String missing() {
    for (String tool : List.of("ip", "tc")) {
      NetCommands.Result r = NetCommands.tryRun(List.of(tool, "-V"));
      if (r.exit() != 0) {
        return "no '" + tool + "' command (iproute2): " + r.output().strip();
      }
    }
    String probe = "gltb-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet() + "-probe";
    NetCommands.Result add = NetCommands.tryRun(List.of("ip", "netns", "add", probe));
    if (add.exit() != 0) {
      return "cannot make a network namespace (root is needed): " + add.output().strip();
    }
    try {
      NetCommands.Result tbf = NetCommands.tryRun(List.of("tc", "-n", probe, "qdisc", "add", "dev", "lo", "root",
          "tbf", "rate", "1mbit", "burst", "16000", "limit", "100000"));
      if (tbf.exit() != 0) {
        return "the kernel has no tbf qdisc: " + tbf.output().strip();
      }
      NetCommands.Result veth = NetCommands.tryRun(List.of("ip", "-n", probe, "link", "add", "p0", "type", "veth",
          "peer", "name", "p1"));
      if (veth.exit() != 0) {
        return "the kernel makes no veth pair: " + veth.output().strip();
      }
      return null;
    } finally {
      NetCommands.tryRun(List.of("ip", "netns", "del", probe));
    }
  }

  /**
   * Makes a testbed of {@code workers} workers, every link unlimited until shaped; what was made
   * before a failure is removed.
   */
  public static Testbed create(int workers) {
    if (workers < 1 || workers > MAX_WORKERS) {
      throw new IllegalArgumentException("a testbed holds 1 to " + MAX_WORKERS + " workers, not " + workers);
    }
    sweep();
    Testbed t = new Testbed("gltb-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet(), workers);
    Runtime.getRuntime().addShutdownHook(t.hook);
    try {
      t.build();
      return t;
    } catch (RuntimeException e) {
      t.close();
      throw e;
    }
  }

  private void build() {
    String br = bridgeNamespace();
    add(br);
    NetCommands.run("ip", "-n", br, "link", "add", "br0", "type", "bridge");
    NetCommands.run("ip", "-n", br, "link", "set", "dev", "br0", "up");
    join(masterNamespace(), "vm", masterAddress());
    for (int i = 1; i <= workers; i++) {
      join(workerNamespace(i), "vw" + i, workerAddress(i));
    }
  }

  private void add(String namespace) {
    NetCommands.run("ip", "netns", "add", namespace);
    made.add(namespace);
  }

  /** A host's namespace, its eth0 on the bridge (the bridge's end named {@code port}), its address. */
  private void join(String namespace, String port, String address) {
    String br = bridgeNamespace();
    add(namespace);
    NetCommands.run("ip", "link", "add", "eth0", "netns", namespace, "type", "veth", "peer", "name", port, "netns", br);
    NetCommands.run("ip", "-n", br, "link", "set", "dev", port, "master", "br0");
    NetCommands.run("ip", "-n", br, "link", "set", "dev", port, "up");
    NetCommands.run("ip", "-n", namespace, "addr", "add", address + "/24", "dev", "eth0");
    NetCommands.run("ip", "-n", namespace, "link", "set", "dev", "eth0", "up");
    NetCommands.run("ip", "-n", namespace, "link", "set", "dev", "lo", "up");
  }

  public int workers() {
    return workers;
  }

  public String masterAddress() {
    return "10.213.0.1";
  }

  /** Worker {@code i}'s address, i from 1. */
  public String workerAddress(int i) {
    checkWorker(i);
    return "10.213.0." + (10 + i);
  }

  public String masterNamespace() {
    return prefix + "-m";
  }

  /** Worker {@code i}'s namespace, i from 1. */
  public String workerNamespace(int i) {
    checkWorker(i);
    return prefix + "-w" + i;
  }

  public String bridgeNamespace() {
    return prefix + "-br";
  }

  /** Every namespace made here, the bridge's first. */
  public List<String> namespaces() {
    return List.copyOf(made);
  }

  private void checkWorker(int i) {
    if (i < 1 || i > workers) {
      throw new IllegalArgumentException("this testbed has workers 1 to " + workers + ", not " + i);
    }
  }

  /** Shapes the master's uplink (everything it sends) to {@code rate}; unlimited removes the shaping. */
  public synchronized void shapeUplink(Rate rate) {
    shape(masterNamespace(), "eth0", uplink, rate);
    uplink = rate;
  }

  /** Shapes worker {@code i}'s downlink (everything sent to it) to {@code rate}; unlimited removes it. */
  public synchronized void shapeDownlink(int i, Rate rate) {
    checkWorker(i);
    shape(bridgeNamespace(), "vw" + i, downlinks[i], rate);
    downlinks[i] = rate;
  }

  public synchronized Rate uplink() {
    return uplink;
  }

  public synchronized Rate downlink(int i) {
    checkWorker(i);
    return downlinks[i];
  }

  /**
   * A token bucket on the device's egress: a burst of 2 ms of the rate (16 kB at least, a few
   * packets) and a queue of 200 kB (or 4 bursts), enough for TCP to keep the link busy without the
   * queue's delay growing past a few tens of milliseconds. The burst is what the link may send above
   * its rate after a pause: at 10 ms of the rate, a transfer of 1.4 MB after one measured 7% faster
   * than the link.
   *
   * <p>A new rate is a new qdisc under the other of two handles, put in the old one's place in one
   * step, not the old one changed in place. Changed in place, a link changed back and forth (80
   * mbit, 70 during each run of the links bench, 80 again at its end) left its worker's connection
   * dead both ways for 10-15 s (no heartbeat either way, a new connection's SYN unanswered for 5 s)
   * in 6 of 24 runs after the first; with a new qdisc each time, in none of 18. What waited in the old
   * one's queue (up to its limit) is dropped with it, once per change: TCP sends it again.
   */
  private void shape(String namespace, String device, Rate was, Rate rate) {
    String key = namespace + " " + device;
    if (rate.unlimited()) {
      if (!was.unlimited()) {
        NetCommands.run("tc", "-n", namespace, "qdisc", "del", "dev", device, "root");
        handles.remove(key);
      }
      return;
    }
    long burst = Math.max(16_000, (long) (rate.bytesPerSecond() / 500));
    long limit = Math.max(200_000, 4 * burst);
    // 1: or 2:, whichever the device's qdisc is not (noted once it is there)
    int handle = 3 - handles.getOrDefault(key, 2);
    NetCommands.run("tc", "-n", namespace, "qdisc", "replace", "dev", device, "root", "handle", handle + ":", "tbf",
        "rate", rate.bitsPerSecond() + "bit", "burst", Long.toString(burst), "limit", Long.toString(limit));
    handles.put(key, handle);
  }

  /** The command that runs {@code command} inside {@code namespace}. */
  public static List<String> inside(String namespace, List<String> command) {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    cmd.addAll(command);
    return cmd;
  }

  /**
   * Starts {@code command} inside {@code namespace}, its output (both streams) appended to
   * {@code log}; ended at {@link #close} by its pid.
   */
  public Process start(String namespace, List<String> command, Path log) throws IOException {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the testbed " + prefix + " is closed");
      }
    }
    Process p = new ProcessBuilder(inside(namespace, command)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    processes.add(p);
    return p;
  }

  /** The namespaces of this testbed that still exist (none after {@link #close}). */
  public List<String> left() {
    List<String> left = new ArrayList<>();
    for (String n : NetCommands.namespaces()) {
      if (n.startsWith(prefix + "-")) {
        left.add(n);
      }
    }
    return left;
  }

  /**
   * Ends the processes started here (SIGTERM, then SIGKILL after 5 s, each by its pid), then every
   * other process in its namespaces, and deletes the namespaces. Safe to call more than once, from
   * several threads (the shutdown hooks): a later call returns once the first has ended everything.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        awaitRemoved();
        return;
      }
      closed = true;
    }
    try {
      removeAll();
    } finally {
      removed.countDown();
    }
  }

  /** Waits (bounded: every process's patience and the namespaces' removal) for the first close to end. */
  private void awaitRemoved() {
    try {
      if (!removed.await(4 * PATIENCE_SECONDS + 30, TimeUnit.SECONDS)) {
        log.warn("the testbed {} is still being removed by another thread", prefix);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void removeAll() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: this is the hook
    }
    List<Process> mine;
    synchronized (processes) {
      mine = new ArrayList<>(processes);
    }
    for (Process p : mine) {
      p.destroy();
    }
    for (Process p : mine) {
      endNow(p);
    }
    List<String> failures = new ArrayList<>();
    // the bridge last: the hosts' veths go with their namespaces
    List<String> order = new ArrayList<>(made);
    Collections.reverse(order);
    for (String n : order) {
      String why = remove(n);
      if (why != null) {
        failures.add(why);
      }
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("the testbed " + prefix + " was not all removed: " + String.join("; ", failures));
    }
  }

  private static void endNow(Process p) {
    try {
      if (!p.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Ends what runs in the namespace (by pid), then deletes it; why it could not, or null. */
  private static String remove(String namespace) {
    for (int round = 0; round < 3; round++) {
      List<Long> pids = NetCommands.pids(namespace);
      if (pids.isEmpty()) {
        break;
      }
      for (long pid : pids) {
        log.warn("testbed: process {} was still running in {}; ending it", pid, namespace);
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
      for (long pid : pids) {
        ProcessHandle.of(pid).ifPresent(h -> h.onExit().orTimeout(PATIENCE_SECONDS, TimeUnit.SECONDS)
            .exceptionally(e -> h).join());
      }
    }
    NetCommands.Result r = NetCommands.tryRun(List.of("ip", "netns", "del", namespace));
    if (r.exit() != 0 && NetCommands.namespaces().contains(namespace)) {
      return namespace + ": " + r.output().strip();
    }
    return null;
  }

  /**
   * Removes the testbeds of JVMs that are gone (killed before they could remove theirs): every
   * namespace named {@code gltb-PID-...} whose PID is not a running process. The names removed.
   */
  public static List<String> sweep() {
    List<String> removed = new ArrayList<>();
    for (String n : NetCommands.namespaces()) {
      Matcher m = NAME.matcher(n);
      if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
        log.warn("testbed: removing {}, left by process {} which is gone", n, m.group(1));
        if (remove(n) == null) {
          removed.add(n);
        }
      }
    }
    return removed;
  }

  @Override
  public String toString() {
    return prefix + " (" + workers + " workers)";
  }
}
