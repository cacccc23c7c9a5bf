package dev.gleaner.deploy.bench.driver;

import java.time.Duration;

/**
 * CPU seconds (user + system) a process has used so far, as the kernel counts them
 * ({@code /proc/PID/stat} utime + stime on Linux, read through {@link ProcessHandle.Info}).
 * Read before and after a run, the difference is what that process spent on it.
 */
public final class CpuClock {
  private CpuClock() {}

  /** The process's CPU seconds so far; throws if it is gone or the system does not say. */
  public static double seconds(long pid) {
    ProcessHandle h = ProcessHandle.of(pid)
        .orElseThrow(() -> new IllegalArgumentException("no process " + pid + " to read the CPU time of"));
    Duration d = h.info().totalCpuDuration()
        .orElseThrow(() -> new IllegalStateException("the CPU time of process " + pid + " cannot be read here"));
    return d.toNanos() / 1e9;
  }

  /** The process's CPU seconds so far if it is alive; 0 once it has ended (or if the system does not say). */
  public static double secondsIfAlive(long pid) {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).flatMap(h -> h.info().totalCpuDuration())
        .map(d -> d.toNanos() / 1e9).orElse(0.0);
  }
}
