package dev.gleaner.worker.owner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The CPU load of processes other than this worker's: the cores busy in {@code /proc/stat} since
 * the last look, less what this worker's process and its programs (exec pieces) used in that time.
 *
 * <p>How: {@code /proc/stat}'s first line counts every CPU's time in clock ticks by kind; busy is
 * all but idle and iowait. A process's {@code /proc/PID/stat} counts its own ticks (utime, stime)
 * and those of its children it waited for (cutime, cstime): summed over this process and its live
 * descendants, a program that ends between two looks moves from its own count into its parent's,
 * and the sum stays continuous. Both files count in the same ticks, so the load in cores is
 * (busy - own) / all ticks * CPUs, whatever the tick rate.
 */
public final class OtherLoad implements OwnerActivity {
  private final Path proc;
  private final Supplier<List<Long>> ownPids;
  private long[] last;

  /**
   * @param proc where {@code /proc} is
   * @param ownPids this worker's process and its live descendants
   */
  public OtherLoad(Path proc, Supplier<List<Long>> ownPids) {
    this.proc = proc;
    this.ownPids = ownPids;
  }

  /** This process and its descendants, on the real {@code /proc}. */
  public static OtherLoad system() {
    return new OtherLoad(Path.of("/proc"), () -> {
      ProcessHandle self = ProcessHandle.current();
      List<Long> pids = new java.util.ArrayList<>();
      pids.add(self.pid());
      self.descendants().forEach(p -> pids.add(p.pid()));
      return pids;
    });
  }

  @Override
  public String name() {
    return "the CPU load of other processes in " + proc.resolve("stat");
  }

  @Override
  public Observation observe(Instant now) throws IOException {
    long[] cpu = cpu(Files.readAllLines(proc.resolve("stat")));
    long own = 0;
    for (long pid : ownPids.get()) {
      own += ticks(proc.resolve(Long.toString(pid)).resolve("stat"));
    }
    long[] previous = last;
    last = new long[] {cpu[0], cpu[1], own};
    if (previous == null || cpu[1] <= previous[1]) {
      return Observation.nothing();
    }
    double busy = cpu[0] - previous[0] - Math.max(0, own - previous[2]);
    double load = Math.max(0, busy) / (cpu[1] - previous[1]) * cpu[2];
    return Observation.load(load, String.format(Locale.ROOT, "other processes keep %.2f cores busy", load));
  }

  /** Busy ticks, all ticks and the number of CPUs from /proc/stat. */
  static long[] cpu(List<String> lines) throws IOException {
    long[] out = null;
    int cpus = 0;
    for (String line : lines) {
      String[] f = line.trim().split("\\s+");
      if (f[0].equals("cpu")) {
        if (f.length < 9) {
          throw new IOException("/proc/stat's cpu line has " + (f.length - 1) + " fields, expected at least 8: " + line);
        }
        long all = 0;
        for (int i = 1; i <= 8; i++) {
          all += Long.parseLong(f[i]);
        }
        // idle (4th) and iowait (5th) are not busy; guest time is already inside user time
        out = new long[] {all - Long.parseLong(f[4]) - Long.parseLong(f[5]), all, 0};
      } else if (f[0].startsWith("cpu")) {
        cpus++;
      }
    }
    if (out == null) {
      throw new IOException("/proc/stat has no cpu line");
    }
    out[2] = Math.max(1, cpus);
    return out;
  }

  /** utime + stime + cutime + cstime of one process; 0 for one that has ended. */
  static long ticks(Path stat) throws IOException {
    String text;
    try {
      text = Files.readString(stat);
    } catch (NoSuchFileException e) {
      return 0;
    }
    // the command name may hold spaces and parentheses: the fields start after the last ')'
    String[] f = text.substring(text.lastIndexOf(')') + 2).trim().split("\\s+");
    if (f.length < 15) {
      throw new IOException(stat + " has " + f.length + " fields after the command, expected at least 15");
    }
    // fields 14-17 of proc(5), counted from the pid; f[0] is field 3 (the state)
    return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
  }
}
