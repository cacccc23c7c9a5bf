package dev.gleaner.deploy.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Slurm's commands (sbatch, squeue, scancel), run as processes with bounded waits; errors are one line. */
public final class Slurm {
  /** How long a Slurm command may take before it is given up (a controller that does not answer). */
  public static final long COMMAND_SECONDS = 60;

  /** The Slurm job of a worker that `gleaner slurm` started (id slurm-JOBID-NODE); null for another worker. */
  public static String jobOfWorker(String workerId) {
    if (!workerId.startsWith("slurm-")) {
      return null;
    }
    int dash = workerId.indexOf('-', "slurm-".length());
    return dash > "slurm-".length() ? workerId.substring("slurm-".length(), dash) : null;
  }

  private Slurm() {}

  /** A Slurm command is not installed here (not on the PATH). */
  public static final class Unavailable extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A Slurm command refused what it was asked (a non-zero exit); the message is its own. */
  public static final class Refused extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /** A Slurm job as squeue lists it. */
  public record Job(String id, String state, String nodes) {
    public boolean pending() {
      return state.equals("PENDING") || state.equals("CONFIGURING") || state.equals("REQUEUED");
    }
  }

  /**
   * Submits {@code script} with {@code sbatch --parsable EXTRA...} and returns the job id.
   *
   * @throws IllegalStateException with sbatch's own message when it refuses, or when it is not installed
   */
  public static String submit(String script, List<String> extra) {
    List<String> cmd = new ArrayList<>(List.of("sbatch", "--parsable"));
    cmd.addAll(extra);
    String out = run(cmd, script).strip();
    // --parsable prints "JOBID" or "JOBID;CLUSTER"
    String id = out.lines().reduce((a, b) -> b).orElse("").split(";")[0].strip();
    if (!id.matches("\\d+")) {
      throw new IllegalStateException("sbatch answered '" + out + "', which holds no job id");
    }
    return id;
  }

  /** The jobs of this name that Slurm still knows as pending or running (squeue's default states). */
  public static List<Job> jobsNamed(String name) {
    String out = run(List.of("squeue", "-h", "--name=" + name, "-o", "%i|%T|%N"), null);
    List<Job> jobs = new ArrayList<>();
    for (String line : out.strip().lines().toList()) {
      String[] f = line.strip().split("\\|", -1);
      if (f.length == 3 && !f[0].isEmpty()) {
        jobs.add(new Job(f[0], f[1], f[2]));
      }
    }
    return jobs;
  }

  /** Cancels these jobs with scancel (Slurm sends their steps SIGTERM, then SIGKILL after KillWait). */
  public static void cancel(List<String> ids) {
    if (ids.isEmpty()) {
      return;
    }
    List<String> cmd = new ArrayList<>(List.of("scancel"));
    cmd.addAll(ids);
    run(cmd, null);
  }

  /** Runs a Slurm command and returns its standard output; stderr becomes the message of a failure. */
  static String run(List<String> cmd, String stdin) {
    String name = cmd.get(0);
    Process p;
    try {
      p = new ProcessBuilder(cmd).start();
    } catch (IOException e) {
      throw new Unavailable("cannot run " + name + ": it is not on the PATH (" + e.getMessage()
          + "); run this on a Slurm login node, where Slurm's commands are", e);
    }
    CompletableFuture<String> out = read(p.getInputStream());
    CompletableFuture<String> err = read(p.getErrorStream());
    try (var in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      // the command exited before reading its input: its status and stderr below say why
      org.slf4j.LoggerFactory.getLogger(Slurm.class).debug("{} did not read its input", name, e);
    }
    try {
      if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(name + " did not answer within " + COMMAND_SECONDS + " s (is slurmctld up?)");
      }
      String message = err.get(10, TimeUnit.SECONDS).strip();
      if (p.exitValue() != 0) {
        throw new Refused(name + " refused (exit " + p.exitValue() + "): "
            + (message.isEmpty() ? "no message" : String.join("; ", message.lines().toList())));
      }
      return out.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + name + " ran", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot read what " + name + " printed: " + e, e);
    }
  }

  private static CompletableFuture<String> read(java.io.InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, task -> {
      // a thread of its own per stream: a full pipe on one must not wait for the other
      Thread t = new Thread(task, "gleaner-slurm-output");
      t.setDaemon(true);
      t.start();
    });
  }
}
