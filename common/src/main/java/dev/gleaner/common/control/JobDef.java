package dev.gleaner.common.control;

import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.util.RangeSet;
import java.util.function.LongUnaryOperator;

/**
 * A job as the controller runs it.
 *
 * @param id the job's id
 * @param workload the workload's name (a worker takes the job only if it accepts it)
 * @param start first unit of the job
 * @param end one past the last unit
 * @param remaining units still to compute (all of them for a new job; fewer after a restart)
 * @param strategy the plan strategy's name ({@code auto}, {@code distrib}, ...)
 * @param chunkUnits chunk size for the strategies that use one; 0 lets them choose
 * @param checkpoints checkpoints per chunk; 0 lets the strategy choose
 * @param minWorkers workers to wait for before the first plan
 * @param deadline when the job ends, in controller time; {@link Double#POSITIVE_INFINITY} for none
 * @param replication whether the plan may give the same units to several workers
 * @param bytesPerUnit input bytes per unit streamed to workers; 0 when the job has no input
 * @param align the workload's legal cuts (see {@link dev.gleaner.common.plan.PlanRequest#align()})
 * @param risk the risk model plans are made under
 * @param firstChunkId the first chunk id to use (ids are never reused, also across restarts)
 * @param verify the share of committed units (0..1) computed again on a second worker and compared
 *     (BOINC's quorum, at a chosen cost); a disagreement is settled by a third worker
 * @param tenant whose job it is and its priority among that owner's jobs (see {@link Tenant})
 */
public record JobDef(String id, String workload, long start, long end, RangeSet remaining, String strategy,
    long chunkUnits, int checkpoints, int minWorkers, double deadline, boolean replication, double bytesPerUnit,
    LongUnaryOperator align, RiskModel risk, long firstChunkId, double verify, Tenant tenant) {
  /**
   * Whose job it is, for the fair share of the workers among owners, and its priority among that
   * owner's jobs (higher first, then by arrival).
   *
   * @param owner the owner's name as the master records it ("client:NAME", "operator:NAME"); empty
   *     for a job submitted with the shared secret (one owner, as any other)
   * @param priority higher goes first among the owner's jobs; 0 by default
   */
  public record Tenant(String owner, int priority) {
    /** A job with no owner, at the default priority. */
    public static final Tenant NONE = new Tenant("", 0);

    public Tenant {
      owner = owner == null ? "" : owner;
    }
  }

  /** A job of no owner. */
  public JobDef(String id, String workload, long start, long end, RangeSet remaining, String strategy,
      long chunkUnits, int checkpoints, int minWorkers, double deadline, boolean replication, double bytesPerUnit,
      LongUnaryOperator align, RiskModel risk, long firstChunkId, double verify) {
    this(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline, replication,
        bytesPerUnit, align, risk, firstChunkId, verify, Tenant.NONE);
  }

  /** A job with no verification. */
  public JobDef(String id, String workload, long start, long end, RangeSet remaining, String strategy,
      long chunkUnits, int checkpoints, int minWorkers, double deadline, boolean replication, double bytesPerUnit,
      LongUnaryOperator align, RiskModel risk, long firstChunkId) {
    this(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline, replication,
        bytesPerUnit, align, risk, firstChunkId, 0);
  }

  public JobDef {
    tenant = tenant == null ? Tenant.NONE : tenant;
    if (!(verify >= 0 && verify <= 1)) {
      throw new IllegalArgumentException("job " + id + ": verify must be a share within 0..1, got " + verify);
    }
    if (end <= start) {
      throw new IllegalArgumentException("job " + id + " has no units: [" + start + ", " + end + ")");
    }
    remaining = remaining.copy();
    if (!remaining.isEmpty() && (remaining.ranges().get(0)[0] < start
        || remaining.ranges().get(remaining.rangeCount() - 1)[1] > end)) {
      throw new IllegalArgumentException("job " + id + ": remaining units " + remaining + " outside [" + start + ", " + end + ")");
    }
  }

  /** A new job over {@code [start, end)} with the strategy's defaults, no deadline, no input. */
  public static JobDef of(String id, String workload, long start, long end, String strategy) {
    return new JobDef(id, workload, start, end, RangeSet.of(start, end), strategy, 0, 0, 1, Double.POSITIVE_INFINITY,
        false, 0, x -> x, RiskModel.LINEAR, 1);
  }

  public JobDef withChunking(long chunkUnits, int checkpoints) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline,
        replication, bytesPerUnit, align, risk, firstChunkId, verify, tenant);
  }

  public JobDef withMinWorkers(int n) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, n, deadline,
        replication, bytesPerUnit, align, risk, firstChunkId, verify, tenant);
  }

  public JobDef withDeadline(double at) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, at,
        replication, bytesPerUnit, align, risk, firstChunkId, verify, tenant);
  }

  public JobDef withReplication(boolean allowed) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline,
        allowed, bytesPerUnit, align, risk, firstChunkId, verify, tenant);
  }

  public JobDef withInput(double bytesPerUnit, LongUnaryOperator align) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline,
        replication, bytesPerUnit, align, risk, firstChunkId, verify, tenant);
  }

  public JobDef withRemaining(RangeSet remaining, long firstChunkId) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline,
        replication, bytesPerUnit, align, risk, firstChunkId, verify, tenant);
  }

  /** Verifies this share (0..1) of the committed units on a second worker. */
  public JobDef withVerify(double share) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline,
        replication, bytesPerUnit, align, risk, firstChunkId, share, tenant);
  }

  public JobDef withRisk(RiskModel model) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline,
        replication, bytesPerUnit, align, model, firstChunkId, verify, tenant);
  }

  /** The job of {@code tenant}. */
  public JobDef withTenant(Tenant tenant) {
    return new JobDef(id, workload, start, end, remaining, strategy, chunkUnits, checkpoints, minWorkers, deadline,
        replication, bytesPerUnit, align, risk, firstChunkId, verify, tenant);
  }

  public long units() {
    return end - start;
  }

  public boolean hasInput() {
    return bytesPerUnit > 0;
  }

  public boolean hasDeadline() {
    return Double.isFinite(deadline);
  }
}
