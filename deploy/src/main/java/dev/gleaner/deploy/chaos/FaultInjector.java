package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.protocol.StatusReply;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The faults of one chaos run: drawn from its seed before it starts, then injected one after another
 * into its cluster while any of its jobs runs, each one over (the killed process restarted, the
 * stall over) before the next gap starts. It notes what each fault did, when the master was killed
 * and listened again, and what went wrong on the way (a process that would not exit or drain).
 */
final class FaultInjector {
  /** A fault drawn for the run, before it starts. */
  record Planned(ChaosFault kind, int worker, double gapSeconds, double seconds) {}

  private final ChaosCluster c;
  private final List<String> ids;
  private final long t0;
  private final PrintStream log;
  private final List<String> problems = new ArrayList<>();
  private final List<ChaosRun.Fault> faults = new ArrayList<>();
  private final List<long[]> kills = new ArrayList<>(); // {killedAtMillis, listeningAgainAtMillis}

  /** Faults into cluster {@code c} while any of the jobs {@code ids} runs; the run started at {@code t0} (ms). */
  FaultInjector(ChaosCluster c, List<String> ids, long t0, PrintStream log) {
    this.c = c;
    this.ids = ids;
    this.t0 = t0;
    this.log = log;
  }

  /**
   * Draws the run's faults from its random stream: kind, target worker, gap before it, how long it
   * lasts. In order, the kinds are taken one after another instead, run {@code index} going on
   * where run {@code index - 1} stopped; the rest is drawn all the same.
   */
  static List<Planned> plan(SplittableRandom rng, ChaosRun.Settings s, int index) {
    List<Planned> out = new ArrayList<>();
    for (int i = 0; i < s.faultsPerRun(); i++) {
      // one draw whatever the number of kinds, so that a run's other draws do not depend on --faults
      ChaosFault drawn = s.kinds().get((int) (rng.nextDouble() * s.kinds().size()));
      ChaosFault kind = s.inOrder() ? s.kinds().get((int) (((long) index * s.faultsPerRun() + i) % s.kinds().size()))
          : drawn;
      out.add(new Planned(kind, rng.nextInt(s.workers()), 0.3 + 1.7 * rng.nextDouble(), 1 + 5 * rng.nextDouble()));
    }
    return out;
  }

  private double now() {
    return (System.currentTimeMillis() - t0) / 1000.0;
  }

  private boolean anyRunning() throws IOException {
    StatusReply s = c.status(null);
    return s.getJobsList().stream().anyMatch(j -> ids.contains(j.getJobId()) && !StatusView.ended(j.getState()));
  }

  /** Waits the fault's gap, then injects it if a job still runs, and says what it did. */
  void inject(Planned p) throws Exception {
    ChaosCluster.pause((long) (p.gapSeconds() * 1000));
    String worker = c.workerIds().get(p.worker());
    String target = p.kind().onMaster() ? "master" : worker;
    if (!anyRunning()) {
      faults.add(new ChaosRun.Fault(p.kind(), target, now(), "skipped: every job had ended", false));
      return;
    }
    double at = now();
    long millis = (long) (p.seconds() * 1000);
    String detail;
    switch (p.kind()) {
      case WORKER_KILL -> {
        Process w = c.worker(worker);
        Signals.send(w.pid(), "KILL");
        detail = "SIGKILL pid " + w.pid() + exited(w, 10);
        ChaosCluster.pause(millis / 4);
        detail += ", started again after " + seconds(millis / 4) + " (pid " + c.startWorker(worker).pid() + ")";
      }
      case WORKER_STOP -> {
        Process w = c.worker(worker);
        Signals.send(w.pid(), "STOP");
        ChaosCluster.pause(millis);
        Signals.send(w.pid(), "CONT");
        detail = "SIGSTOP pid " + w.pid() + ", SIGCONT after " + seconds(millis);
      }
      case WORKER_TERM -> {
        Process w = c.worker(worker);
        long t = System.currentTimeMillis();
        Signals.send(w.pid(), "TERM");
        // the worker drains within its drain timeout (20 s); 40 s is a hang
        if (Signals.awaitExit(w, 40)) {
          detail = "SIGTERM pid " + w.pid() + ", drained and exited (status " + w.exitValue() + ") in "
              + seconds(System.currentTimeMillis() - t);
          // 143 (128 + SIGTERM) is how a JVM exits after its shutdown hooks ran on SIGTERM: the drain
          if (w.exitValue() != 0 && w.exitValue() != 143) {
            problems.add("worker " + worker + " exited with status " + w.exitValue() + " after SIGTERM");
          }
        } else {
          problems.add("worker " + worker + " (pid " + w.pid() + ") did not drain and exit within 40 s of SIGTERM");
          Signals.end(w);
          detail = "SIGTERM pid " + w.pid() + ": no exit within 40 s, SIGKILLed";
        }
        detail += "; started again (pid " + c.startWorker(worker).pid() + ")";
      }
      case MASTER_KILL, MASTER_KILL_COMMIT -> detail = killMaster(p);
      case NET_DROP -> detail = "reset " + c.proxy(worker).drop() + " connection(s) at the proxy";
      case NET_STALL -> {
        c.proxy(worker).stall(millis);
        ChaosCluster.pause(millis);
        detail = "nothing forwarded for " + seconds(millis);
      }
      case STORE_FULL -> {
        c.storeFull(true);
        ChaosCluster.pause(millis);
        c.storeFull(false);
        detail = "no new page in the store for " + seconds(millis);
      }
      case CLOCK_JUMP -> {
        // 20 min to 2 h, forward for even targets and back for odd ones
        long jump = Math.round(p.seconds() * 1200) * (p.worker() % 2 == 0 ? 1 : -1);
        long to = c.clockOffset(jump);
        detail = String.format(Locale.ROOT, "the wall clock jumps %+d s (now %+d s off)", jump, to);
      }
      default -> throw new IllegalStateException("unknown fault " + p.kind());
    }
    faults.add(new ChaosRun.Fault(p.kind(), target, at, detail, true));
    log.printf(Locale.ROOT, "  %5.1f s  %-18s %-6s %s%n", at, p.kind().label(), target, detail);
  }

  private String killMaster(Planned p) throws Exception {
    String aim;
    if (p.kind() == ChaosFault.MASTER_KILL_COMMIT) {
      // right behind a piece: the master has it and is making it durable, or has just done so
      aim = c.reported().awaitMoreThan(c.reported().count(), 5000) ? "right after a piece went through"
          : "no piece within 5 s";
    } else {
      long until = System.currentTimeMillis() + 5000;
      boolean held = false;
      while (!held && System.currentTimeMillis() < until) {
        held = c.status(null).getJobsList().stream().anyMatch(j -> ids.contains(j.getJobId()) && j.getUnitsHeld() > 0);
        if (!held) {
          ChaosCluster.pause(20);
        }
      }
      aim = held ? "with chunks out" : "no chunk out within 5 s";
    }
    Process m = c.master();
    long killedAt = System.currentTimeMillis();
    Signals.send(m.pid(), "KILL");
    String detail = "SIGKILL pid " + m.pid() + " " + aim + exited(m, 10);
    ChaosCluster.pause((long) (p.seconds() * 1000 / 4));
    c.startMaster();
    long listening = System.currentTimeMillis();
    kills.add(new long[] {killedAt, listening});
    return detail + ", listening again after " + seconds(listening - killedAt) + " (pid " + c.master().pid() + ")";
  }

  private String exited(Process p, double seconds) {
    if (Signals.awaitExit(p, seconds)) {
      return "";
    }
    problems.add("pid " + p.pid() + " still alive " + seconds + " s after SIGKILL");
    return " (still alive after " + seconds + " s)";
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /** The faults as they went, in order. */
  List<ChaosRun.Fault> faults() {
    return List.copyOf(faults);
  }

  /** Each master kill: {killed at, listening again at}, ms on the machine's clock. */
  List<long[]> kills() {
    return List.copyOf(kills);
  }

  /** What went wrong while injecting. */
  List<String> problems() {
    return List.copyOf(problems);
  }
}
