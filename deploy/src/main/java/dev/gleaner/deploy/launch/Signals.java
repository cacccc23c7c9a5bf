package dev.gleaner.deploy.launch;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Sends a signal to one process by its pid ({@code kill -s SIG PID}), never by name. */
public final class Signals {
  private Signals() {}

  /** Sends {@code signal} (KILL, TERM, STOP, CONT) to {@code pid}; false if {@code kill} refused (no such process). */
  public static boolean send(long pid, String signal) {
    try {
      Process kill = new ProcessBuilder(List.of("kill", "-s", signal, Long.toString(pid)))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill -s " + signal + " " + pid + " did not return within 10 s");
      }
      return kill.exitValue() == 0;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill -s " + signal + " " + pid + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending " + signal + " to " + pid, e);
    }
  }

  /** Waits up to {@code seconds} for the process to exit; true if it has. */
  public static boolean awaitExit(Process p, double seconds) {
    try {
      return p.waitFor((long) (seconds * 1000), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !p.isAlive();
    }
  }

  /** SIGKILL (which also ends a stopped process) if alive, then waits up to 10 s for it to go. */
  public static void end(Process p) {
    if (p == null || !p.isAlive()) {
      return;
    }
    send(p.pid(), "KILL");
    awaitExit(p, 10);
  }
}
