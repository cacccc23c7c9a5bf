package dev.gleaner.deploy.launch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How many worker jobs {@code gleaner cluster autoscale} keeps, and which ones go: a pure function of
 * what the master and the batch system report. Enough workers to finish the remaining work within the
 * target time at the workers' measured speed, never fewer than min nor more than max; with work
 * waiting and no speed measured yet, max. Scaling down waits for a cool-down after the last
 * submission, then cancels pending jobs first (newest first), then jobs whose worker has been idle
 * for at least the cool-down (longest idle first); a busy worker, or one still starting, is never
 * cancelled.
 */
public final class Autoscaler {
  private Autoscaler() {}

  /**
   * One worker job the autoscaler submitted.
   *
   * @param jobId the batch system's job id
   * @param pending not started yet
   * @param connected its worker is logged in to the master
   * @param busy its worker holds a chunk
   * @param idleSeconds how long its worker has been connected without a chunk (0 when busy or not connected)
   */
  public record WorkerJob(String jobId, boolean pending, boolean connected, boolean busy, double idleSeconds) {}

  /**
   * What the decision rests on.
   *
   * @param min workers kept at least
   * @param max workers at most
   * @param remainingUnits units of unfinished jobs not yet computed
   * @param unitsPerSecond one worker's measured speed (NaN: none measured yet)
   * @param targetSeconds the time the remaining work should take
   * @param jobs the worker jobs it submitted that the batch system still has
   * @param sinceSubmitSeconds seconds since its last submission (infinite if none)
   * @param cooldownSeconds how long after a submission, and how long idle, before scaling down
   * @param maxSubmit submissions at most per decision
   */
  public record Inputs(int min, int max, long remainingUnits, double unitsPerSecond, double targetSeconds,
      List<WorkerJob> jobs, double sinceSubmitSeconds, double cooldownSeconds, int maxSubmit) {
    public Inputs {
      if (min < 0 || max < 1 || min > max) {
        throw new IllegalArgumentException("--min and --max must be 0 <= min <= max and max >= 1, got min " + min
            + " and max " + max);
      }
      if (!(targetSeconds > 0)) {
        throw new IllegalArgumentException("--target-time must be longer than 0");
      }
      if (maxSubmit < 1) {
        throw new IllegalArgumentException("--max-submit must be at least 1, got " + maxSubmit);
      }
      jobs = List.copyOf(jobs);
    }
  }

  /**
   * The decision.
   *
   * @param target the worker count wanted
   * @param submit jobs to submit now
   * @param cancel jobs to cancel now
   * @param reason why, for people
   */
  public record Decision(int target, int submit, List<String> cancel, String reason) {}

  /** The workers the remaining work needs, before [min, max]. */
  static int wanted(long remainingUnits, double unitsPerSecond, double targetSeconds, int max) {
    if (remainingUnits <= 0) {
      return 0;
    }
    if (!(unitsPerSecond > 0) || Double.isInfinite(unitsPerSecond)) {
      return max;
    }
    double n = Math.ceil(remainingUnits / (unitsPerSecond * targetSeconds));
    return n >= max ? max : (int) n;
  }

  private static String workers(int n) {
    return n + (n == 1 ? " worker" : " workers");
  }

  public static Decision decide(Inputs in) {
    int wanted = wanted(in.remainingUnits(), in.unitsPerSecond(), in.targetSeconds(), in.max());
    int target = Math.max(in.min(), Math.min(in.max(), wanted));
    int have = in.jobs().size();
    String work = in.remainingUnits() <= 0 ? "no work waiting"
        : in.remainingUnits() + " units waiting at " + (Double.isNaN(in.unitsPerSecond()) ? "no measured speed"
            : String.format(java.util.Locale.ROOT, "%.0f units/s a worker", in.unitsPerSecond()));
    if (target > have) {
      int submit = Math.min(target - have, in.maxSubmit());
      return new Decision(target, submit, List.of(), work + ": " + have + " -> " + workers(target) + ", submitting "
          + submit);
    }
    if (target == have) {
      return new Decision(target, 0, List.of(), work + ": " + workers(have) + ", as wanted");
    }
    if (in.sinceSubmitSeconds() < in.cooldownSeconds()) {
      return new Decision(target, 0, List.of(), work + ": " + workers(have) + ", " + target + " wanted; cooling down"
          + " after the last submission");
    }
    int surplus = have - target;
    List<String> cancel = new ArrayList<>();
    List<WorkerJob> pending = new ArrayList<>(in.jobs().stream().filter(WorkerJob::pending).toList());
    java.util.Collections.reverse(pending);
    for (WorkerJob j : pending) {
      if (cancel.size() < surplus) {
        cancel.add(j.jobId());
      }
    }
    List<WorkerJob> idle = in.jobs().stream()
        .filter(j -> !j.pending() && j.connected() && !j.busy() && j.idleSeconds() >= in.cooldownSeconds())
        .sorted(Comparator.comparingDouble(WorkerJob::idleSeconds).reversed()).toList();
    for (WorkerJob j : idle) {
      if (cancel.size() < surplus) {
        cancel.add(j.jobId());
      }
    }
    String why = work + ": " + workers(have) + ", " + target + " wanted; " + (cancel.isEmpty()
        ? "none pending or idle long enough to cancel" : "cancelling " + String.join(", ", cancel));
    return new Decision(target, 0, List.copyOf(cancel), why);
  }
}
