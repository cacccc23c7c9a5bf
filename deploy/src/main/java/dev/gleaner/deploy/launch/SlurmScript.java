package dev.gleaner.deploy.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The batch script that runs Gleaner workers under Slurm, one per node of the job (srun, one task a
 * node). Each worker's {@code --available-until} is the job's end as Slurm has it (read from
 * {@code squeue} when the job starts) minus the drain margin, so the master plans with the walltime
 * and the worker drains before it; sbatch's {@code --signal=TERM@60} is the second line of defence
 * (a worker drains on SIGTERM), and {@code scancel} sends SIGTERM too. Pure: no process is run here.
 *
 * @param jobName the Slurm job's name
 * @param nodes nodes of the job, one worker each
 * @param time the time limit in Slurm's syntax (checked with {@link #timeLimitSeconds})
 * @param partition the partition, or null for the cluster's default
 * @param cores cores a worker uses (sbatch and srun {@code --cpus-per-task}, worker {@code --cores}), or null
 * @param comment the job's comment (how {@code gleaner cluster autoscale} knows its own jobs), or null
 * @param drainMarginSeconds how long before the job's end each worker drains
 * @param gleaner the command that runs gleaner on the nodes (java and its class path, or the launcher)
 * @param workerOptions options of {@code gleaner worker} (master, credential, ...), without --id
 * @param idPerNode whether to add {@code --id slurm-JOBID-NODENAME} (not with a token, which names the worker)
 */
public record SlurmScript(String jobName, int nodes, String time, String partition, Integer cores, String comment,
    long drainMarginSeconds, List<String> gleaner, List<String> workerOptions, boolean idPerNode) {
  /** Seconds before the end at which Slurm signals the job's steps (it may do so up to 60 s earlier). */
  static final int SIGNAL_SECONDS = 60;

  private static final Pattern TIME = Pattern.compile(
      "(?:(\\d+)-)?(\\d+)(?::(\\d+))?(?::(\\d+))?");
  private static final Pattern SAFE_WORD = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  public SlurmScript {
    if (nodes < 1) {
      throw new IllegalArgumentException("--nodes must be at least 1, got " + nodes);
    }
    if (cores != null && cores < 1) {
      throw new IllegalArgumentException("--cores must be at least 1, got " + cores);
    }
    if (jobName == null || !SAFE_WORD.matcher(jobName).matches()) {
      throw new IllegalArgumentException("the job name '" + jobName + "' must be letters, digits and _@%+=:,./-");
    }
    if (partition != null && !SAFE_WORD.matcher(partition).matches()) {
      throw new IllegalArgumentException("--partition '" + partition + "' is not a partition name");
    }
    if (comment != null && !SAFE_WORD.matcher(comment).matches()) {
      throw new IllegalArgumentException("the job comment '" + comment + "' must be letters, digits and _@%+=:,./-");
    }
    long limit = timeLimitSeconds(time);
    if (limit <= drainMarginSeconds + SIGNAL_SECONDS) {
      throw new IllegalArgumentException("--time " + time + " is too short: the workers drain " + drainMarginSeconds
          + " s before the end; give more than " + (drainMarginSeconds + SIGNAL_SECONDS) + " s");
    }
    gleaner = List.copyOf(gleaner);
    workerOptions = List.copyOf(workerOptions);
  }

  /**
   * A time limit in sbatch's syntax ({@code MINUTES}, {@code MINUTES:SECONDS}, {@code HOURS:MINUTES:SECONDS},
   * {@code DAYS-HOURS}, {@code DAYS-HOURS:MINUTES}, {@code DAYS-HOURS:MINUTES:SECONDS}), in seconds.
   *
   * @throws IllegalArgumentException naming the forms taken
   */
  static long timeLimitSeconds(String text) {
    String t = text == null ? "" : text.trim();
    Matcher m = TIME.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException("--time '" + text + "' is not a Slurm time limit; write MINUTES, MM:SS,"
          + " HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (8:00:00 is 8 hours)");
    }
    long seconds;
    try {
      long first = Long.parseLong(m.group(2));
      Long second = m.group(3) == null ? null : Long.parseLong(m.group(3));
      Long third = m.group(4) == null ? null : Long.parseLong(m.group(4));
      if (m.group(1) != null) {
        // D-HH[:MM[:SS]]
        seconds = Long.parseLong(m.group(1)) * 86_400 + first * 3600 + (second == null ? 0 : second * 60)
            + (third == null ? 0 : third);
        checkPart(text, second, 60);
        checkPart(text, third, 60);
        checkPart(text, first, 24);
      } else if (third != null) {
        seconds = first * 3600 + second * 60 + third;
        checkPart(text, second, 60);
        checkPart(text, third, 60);
      } else if (second != null) {
        seconds = first * 60 + second;
        checkPart(text, second, 60);
      } else {
        seconds = first * 60;
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--time '" + text + "' has a number too large", e);
    }
    if (seconds <= 0) {
      throw new IllegalArgumentException("--time '" + text + "' is no time at all");
    }
    return seconds;
  }

  private static void checkPart(String text, Long part, int bound) {
    if (part != null && part >= bound) {
      throw new IllegalArgumentException("--time '" + text + "' is not a Slurm time limit: " + part
          + " is out of range (below " + bound + ")");
    }
  }

  /** The script, for sbatch's standard input. */
  public String text() {
    StringBuilder s = new StringBuilder();
    s.append("#!/bin/sh\n");
    s.append("# Gleaner workers, one per node of this job (written by `gleaner slurm`). Each worker is told the\n");
    s.append("# job's end minus ").append(drainMarginSeconds).append(" s with --available-until, so the master plans"
        + " with the walltime\n");
    s.append("# and the worker drains before it; Slurm's SIGTERM (--signal, scancel) drains it too.\n");
    s.append("#SBATCH --job-name=").append(jobName).append('\n');
    s.append("#SBATCH --nodes=").append(nodes).append('\n');
    s.append("#SBATCH --ntasks-per-node=1\n");
    s.append("#SBATCH --time=").append(time.trim()).append('\n');
    s.append("#SBATCH --signal=TERM@").append(SIGNAL_SECONDS).append('\n');
    if (partition != null) {
      s.append("#SBATCH --partition=").append(partition).append('\n');
    }
    if (cores != null) {
      s.append("#SBATCH --cpus-per-task=").append(cores).append('\n');
    }
    if (comment != null) {
      s.append("#SBATCH --comment=").append(comment).append('\n');
    }
    s.append("set -u\n");
    s.append("until=\n");
    s.append("end=$(squeue -h -j \"$SLURM_JOB_ID\" -o %e) && end_s=$(date -d \"$end\" +%s) \\\n");
    s.append("  && until=$(date -u -d \"@$((end_s - ").append(drainMarginSeconds)
        .append("))\" +%Y-%m-%dT%H:%M:%SZ)\n");
    s.append("if [ -z \"$until\" ]; then\n");
    s.append("  echo \"gleaner: no end time for job $SLURM_JOB_ID from squeue; the workers run without"
        + " --available-until\" >&2\n");
    s.append("fi\n");
    List<String> command = new ArrayList<>(gleaner);
    command.add("worker");
    command.addAll(workerOptions);
    if (cores != null) {
      command.add("--cores");
      command.add(Integer.toString(cores));
    }
    s.append("set --");
    for (String w : command) {
      s.append(' ').append(quote(w));
    }
    s.append('\n');
    s.append("if [ -n \"$until\" ]; then set -- \"$@\" --available-until \"$until\"; fi\n");
    s.append("exec srun --ntasks-per-node=1 --kill-on-bad-exit=0");
    if (cores != null) {
      // srun does not take the batch job's --cpus-per-task by itself (Slurm 22.05)
      s.append(" --cpus-per-task=").append(cores);
    }
    if (idPerNode) {
      s.append(" /bin/sh -c 'exec \"$@\" --id \"slurm-$SLURM_JOB_ID-$SLURMD_NODENAME\"' gleaner-worker \"$@\"\n");
    } else {
      s.append(" \"$@\"\n");
    }
    return s.toString();
  }

  /** A word for the POSIX shell: as it is when nothing in it is special, else in single quotes. */
  public static String quote(String word) {
    if (!word.isEmpty() && SAFE_WORD.matcher(word).matches()) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
