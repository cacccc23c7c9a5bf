package dev.gleaner.master.loop;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.util.RangeSet;
import dev.gleaner.common.workload.UnitRange;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.store.ChunkTable;
import dev.gleaner.master.store.JobTable;
import dev.gleaner.master.store.PieceTable;
import dev.gleaner.master.store.Store;
import dev.gleaner.protocol.JobSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts jobs from clients (validated, stored, then handed to the control loop) and resumes
 * stored jobs when the master starts.
 */
public final class JobService {
  private static final Logger log = LoggerFactory.getLogger(JobService.class);

  private final Store store;
  private final ControlLoop loop;
  private final Workloads workloads;
  /** Real paths of the directories whose regular files jobs may read. */
  private final List<Path> served;
  private final AtomicLong seq = new AtomicLong();

  /**
   * @param serve directories whose regular files jobs may name as input (none: no file input)
   * @throws IllegalArgumentException when one of them is not a directory
   */
  public JobService(Store store, ControlLoop loop, Workloads workloads, List<Path> serve) {
    this.store = store;
    this.loop = loop;
    this.workloads = workloads;
    List<Path> real = new ArrayList<>();
    for (Path d : serve) {
      try {
        real.add(d.toAbsolutePath().toRealPath());
      } catch (IOException e) {
        throw new IllegalArgumentException("--serve " + d + ": no such directory", e);
      }
      if (!Files.isDirectory(real.get(real.size() - 1))) {
        throw new IllegalArgumentException("--serve " + d + ": not a directory");
      }
    }
    this.served = List.copyOf(real);
  }

  /**
   * Validates and stores a job and starts it; the future gives its id once its row is durable.
   *
   * <p>How: everything happens in one task of the control loop, so the job's row, its plan and its
   * first chunk records are written in the same pass and made durable by one commit: the reply and
   * the first Assigns leave after one fsync. If the row cannot be stored, the job is failed in the
   * controller and the submit gets the store's error. A key is looked up in the store and among the
   * jobs of the pass not yet committed, so two submits with one key make one job.
   *
   * @return a future that fails with an {@link IllegalArgumentException} carrying a sentence for
   *     the person who wrote the job file, or with the store's error
   */
  public CompletableFuture<Submitted> submit(JobSpec spec) {
    return submit(spec, Caller.TRUSTED);
  }

  /**
   * {@link #submit(JobSpec)} for {@code caller}, who owns the job: its owner is set from the
   * session, whatever the spec says.
   */
  public CompletableFuture<Submitted> submit(JobSpec submitted, Caller caller) {
    JobSpec spec = submitted.toBuilder().setOwner(caller.owner()).build();
    CompletableFuture<Submitted> out = new CompletableFuture<>();
    loop.post(() -> {
      try {
        submitOnLoop(spec, caller, out);
      } catch (RuntimeException e) {
        out.completeExceptionally(e);
      }
    });
    return out;
  }

  /** Keys of the jobs submitted in the current pass, whose rows are not committed yet: key to job. */
  private final java.util.Map<String, Pending> uncommitted = new java.util.HashMap<>();

  /** A job submitted with a key whose row waits for the pass's commit. */
  private record Pending(JobSpec spec, CompletableFuture<Submitted> stored) {}

  private void submitOnLoop(JobSpec spec, Caller caller, CompletableFuture<Submitted> out) {
    String key = spec.getKey();
    if (key.length() > 200) {
      throw new IllegalArgumentException("a submit key may have at most 200 characters, got " + key.length());
    }
    if (!key.isEmpty()) {
      // a submit sent again finds its job first, whatever changed since (a deadline passed, a file moved)
      Pending pending = uncommitted.get(key);
      if (pending != null) {
        if (!pending.spec().equals(spec)) {
          throw new IllegalArgumentException("the key '" + key + "' already names a job submitted with a different"
              + " job; choose another key");
        }
        pending.stored().whenComplete((s, err) -> {
          if (err != null) {
            out.completeExceptionally(err);
          } else {
            out.complete(new Submitted(s.id(), true));
          }
        });
        return;
      }
      JobTable.KeyedJob existing = store.now(JobTable.jobByKey(key));
      if (existing != null) {
        JobSpec stored = parsed(existing.spec());
        String owner = stored == null ? "" : stored.getOwner();
        if (!owner.isEmpty() && !owner.equals(spec.getOwner())) {
          throw new IllegalArgumentException("the key '" + key + "' already names job " + existing.id() + " of "
              + Caller.ownerText(owner) + "; choose another key");
        }
        if (stored == null || !stored.toBuilder().setOwner(spec.getOwner()).build().equals(spec)) {
          throw new IllegalArgumentException("the key '" + key + "' already names job " + existing.id()
              + ", submitted with a different job; choose another key");
        }
        log.info("job {} submitted again with its key '{}': nothing new", existing.id(), key);
        out.complete(new Submitted(existing.id(), true));
        return;
      }
    }
    Workload workload = workloads.get(spec.getWorkload());
    Strategies.byName(spec.getStrategy());
    if (!(spec.getVerify() >= 0 && spec.getVerify() <= 1)) {
      throw new IllegalArgumentException("verify must be a share of the units within 0..1 (0.1 checks a tenth), got "
          + spec.getVerify());
    }
    if (spec.getMinWorkers() > 100_000) {
      throw new IllegalArgumentException("min-workers " + spec.getMinWorkers() + " is not a sensible number of workers");
    }
    if (spec.getDeadlineMillis() != 0 && spec.getDeadlineMillis() <= loop.clock().epochMillis()) {
      throw new IllegalArgumentException("the deadline " + java.time.Instant.ofEpochMilli(spec.getDeadlineMillis())
          + " has already passed");
    }
    if (!spec.getResume().isEmpty()) {
      resumeFrom(spec, workload, caller, out);
      return;
    }
    FileInputSource input = openInput(workload, spec);
    UnitRange range;
    try {
      range = workload.range(spec.getParamsMap(), input);
    } catch (RuntimeException e) {
      closeQuietly(input, e);
      throw e;
    }
    if (range.units() == 0) {
      closeQuietly(input, null);
      throw new IllegalArgumentException(workload.name() + ": the job has no units to compute (empty input?)");
    }
    start(spec, workload, input, range.start(), range.end(), RangeSet.of(range.start(), range.end()), null, out);
  }

  /** A job that computes only what an earlier job did not finish by its deadline, keeping its pieces. */
  private void resumeFrom(JobSpec spec, Workload workload, Caller caller, CompletableFuture<Submitted> out) {
    String from = spec.getResume();
    JobTable.JobRecord old = store.now(JobTable.job(from));
    if (old == null) {
      throw new IllegalArgumentException("--resume: the master knows no job '" + from + "'");
    }
    // a resumed job takes the old one's pieces, and its result includes them: it is the old one's reader's
    JobSpec oldSpec = parsed(old.spec());
    String refusal = caller.refusal("resume", from, oldSpec == null ? "" : oldSpec.getOwner());
    if (refusal != null) {
      throw new Caller.NotAllowed("--resume: " + refusal);
    }
    if (old.state() != JobPhase.DONE_PARTIAL && old.state() != JobPhase.CANCELLED) {
      throw new IllegalArgumentException("--resume: job " + from + " is " + old.state()
          + "; only a job that ended at its deadline (DONE_PARTIAL) or was cancelled can be resumed");
    }
    if (!old.workload().equals(workload.name())) {
      throw new IllegalArgumentException("--resume: job " + from + " ran workload '" + old.workload()
          + "', this job file names '" + workload.name() + "'");
    }
    RangeSet remaining = old.notDone() == null ? new RangeSet() : RangeSet.parse(old.notDone());
    start(spec, workload, openInput(workload, spec), old.start(), old.end(), remaining, from, out);
  }

  /**
   * Numbers the job, queues its row in the loop's pass and gives it to the controller at once, so
   * that its plan and first chunk records commit with its row.
   */
  private void start(JobSpec spec, Workload workload, FileInputSource input, long start, long end,
      RangeSet remaining, String resumes, CompletableFuture<Submitted> out) {
    long now = loop.clock().epochMillis();
    String key = spec.getKey();
    long n = seq.incrementAndGet();
    String id = "job-" + n;
    Store.Op<Void> insert = tx -> {
      JobTable.insertJob(new JobTable.JobRecord(id, n, spec.getName(), workload.name(), spec.toByteArray(),
          JobPhase.QUEUED, start, end, spec.getStrategy(), now, 0, null, null, null)).run(tx);
      if (!key.isEmpty()) {
        JobTable.jobKey(id, key).run(tx);
      }
      if (resumes != null) {
        PieceTable.copyPieces(resumes, id).run(tx);
      }
      return null;
    };
    CompletableFuture<Submitted> stored = new CompletableFuture<>();
    if (!key.isEmpty()) {
      uncommitted.put(key, new Pending(spec, stored));
    }
    MasterJob job = new MasterJob(id, spec, workload, input, start, end, now);
    job.unitsBefore = resumes == null ? 0 : (end - start) - remaining.size();
    if (resumes != null) {
      // it holds the earlier job's pieces, however many: its end is written the usual way
      job.piecesCommitted = JobEnds.END_WITH_LAST_PIECE;
    }
    store.submit(insert).whenComplete((ok, err) -> {
      if (!key.isEmpty()) {
        uncommitted.remove(key);
      }
      if (err != null) {
        Throwable cause = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
            ? err.getCause() : err;
        loop.notStored(job, cause);
        stored.completeExceptionally(cause);
        return;
      }
      log.info("job {} submitted: {} over [{}, {}){}", id, workload.name(), start, end,
          resumes == null ? "" : ", the " + remaining.size() + " units job " + resumes + " did not finish");
      stored.complete(new Submitted(id, false));
    });
    stored.whenComplete((s, err) -> {
      if (err != null) {
        out.completeExceptionally(err);
      } else {
        out.complete(s);
      }
    });
    loop.addJobNow(job, definition(job, remaining, 1));
  }

  /** A stored spec, or null (logged) if it cannot be read. */
  private static JobSpec parsed(byte[] stored) {
    try {
      return JobSpec.parseFrom(stored);
    } catch (InvalidProtocolBufferException e) {
      log.warn("a stored job spec is unreadable: {}", e.getMessage(), e);
      return null;
    }
  }

  /** A submitted job's id, and whether its key named a job stored before. */
  public record Submitted(String id, boolean existing) {}

  /** The job as the controller runs it. */
  private JobDef definition(MasterJob job, RangeSet remaining, long firstChunkId) {
    JobSpec spec = job.spec;
    LongUnaryOperator align = job.input == null ? LongUnaryOperator.identity() : pos -> job.workload.align(pos, job.input);
    double deadline = spec.getDeadlineMillis() > 0 ? loop.clock().fromMillis(spec.getDeadlineMillis()) : Double.POSITIVE_INFINITY;
    String strategy = spec.getStrategy().isBlank() ? Strategies.DEFAULT : spec.getStrategy();
    return new JobDef(job.id, job.workload.name(), job.start, job.end, remaining, strategy, spec.getChunkUnits(),
        spec.getCheckpoints(), Math.max(1, spec.getMinWorkers()), deadline, spec.getReplication(),
        job.input == null ? 0 : 1, align, RiskModel.LINEAR, firstChunkId, spec.getVerify(),
        new JobDef.Tenant(spec.getOwner(), spec.getPriority()));
  }

  private FileInputSource openInput(Workload workload, JobSpec spec) {
    String param = workload.inputParam();
    if (param == null) {
      return null;
    }
    String path = spec.getParamsMap().get(param);
    if (path == null || path.isBlank()) {
      if (workload.name().equals("exec")) {
        return null;
      }
      throw new IllegalArgumentException(workload.name() + ": missing parameter '" + param + "' (a file on the master)");
    }
    FileInputSource input = new FileInputSource(servedFile(workload.name(), path));
    if (loop.relays().anyHoldsSize(input.size())) {
      // a relay may hold this file: its digest is computed now, so that the relay can send it from the start
      input.sha256IfKnown();
    }
    return input;
  }

  /**
   * The real path of a regular file under a served directory: a job may not make the master read
   * its secret, a device or a FIFO (which would block it), wherever a link points. A relative path
   * is taken under the served directories, the first that holds it (not under the master's own
   * working directory, which a client cannot know).
   */
  private Path servedFile(String workload, String path) {
    if (served.isEmpty()) {
      throw new IllegalArgumentException(workload + ": this master serves no input files; start it with --serve DIR,"
          + " DIR holding " + path);
    }
    Path named;
    try {
      named = Path.of(path);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException(workload + ": cannot read the input file " + path + ": " + e.getMessage(), e);
    }
    Path given = named;
    if (!named.isAbsolute()) {
      given = served.stream().map(d -> d.resolve(named)).filter(Files::exists).findFirst().orElseThrow(() ->
          new IllegalArgumentException(workload + ": the input file " + path + " is in no directory this master"
              + " serves (" + served.stream().map(Path::toString).collect(Collectors.joining(", ")) + ")"));
    }
    Path real;
    try {
      real = given.toAbsolutePath().toRealPath();
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(workload + ": the input file " + path + " does not exist on the master", e);
    } catch (IOException | InvalidPathException e) {
      throw new IllegalArgumentException(workload + ": cannot read the input file " + path + ": " + e.getMessage(), e);
    }
    if (served.stream().noneMatch(real::startsWith)) {
      throw new IllegalArgumentException(workload + ": " + path + " is not under a directory this master serves ("
          + served.stream().map(Path::toString).collect(Collectors.joining(", ")) + ")");
    }
    if (!Files.isRegularFile(real)) {
      throw new IllegalArgumentException(workload + ": " + path + " is not a regular file");
    }
    return real;
  }

  private static void closeQuietly(FileInputSource input, Exception primary) {
    if (input != null) {
      try {
        input.close();
      } catch (IOException e) {
        if (primary != null) {
          primary.addSuppressed(e);
        } else {
          log.warn("closing input {} failed: {}", input.path(), e.getMessage(), e);
        }
      }
    }
  }

  /** Loads the stored jobs; unfinished ones resume from their committed pieces. */
  public void resume() {
    for (JobTable.JobRecord r : store.call(JobTable.jobs())) {
      seq.accumulateAndGet(r.seq(), Math::max);
      JobSpec spec;
      try {
        spec = JobSpec.parseFrom(r.spec());
      } catch (InvalidProtocolBufferException e) {
        log.error("job {} in the store is unreadable and is skipped: {}", r.id(), e.getMessage(), e);
        continue;
      }
      if (!workloads.has(r.workload())) {
        log.error("job {} needs workload '{}', which is not loaded; it stays as it is in the store", r.id(), r.workload());
        continue;
      }
      Workload workload = workloads.get(r.workload());
      if (r.state().ended()) {
        MasterJob job = new MasterJob(r.id(), spec, workload, null, r.start(), r.end(), r.submittedAt());
        job.ended = r.state();
        job.finishedAtMillis = r.finishedAt();
        job.message = r.message() == null ? "" : r.message();
        job.result(r.result() == null ? "" : workload.render(r.result()));
        job.notDone = r.notDone() == null ? new RangeSet() : RangeSet.parse(r.notDone());
        loop.addEnded(job);
        continue;
      }
      FileInputSource input;
      try {
        input = openInput(workload, spec);
      } catch (IllegalArgumentException e) {
        // its pieces stay in the store: a master restarted with the input served takes the job up again
        log.error("job {} cannot resume now and is left as it is: {}", r.id(), e.getMessage());
        continue;
      }
      RangeSet remaining = RangeSet.of(r.start(), r.end());
      List<PieceTable.PieceRecord> pieces = store.call(PieceTable.pieces(r.id()));
      for (PieceTable.PieceRecord p : pieces) {
        remaining.remove(p.start(), p.end());
      }
      MasterJob job = new MasterJob(r.id(), spec, workload, input, r.start(), r.end(), r.submittedAt());
      job.piecesCommitted = pieces.size();
      // a re-plan after the restart that picks another strategy says so
      job.strategy = r.strategy();
      List<dev.gleaner.common.control.Held> handedOut = store.call(ChunkTable.handedOut(r.id()));
      log.info("job {} resumes: {} of {} units already committed, {} chunk(s) out with workers", r.id(),
          job.units() - remaining.size(), job.units(), handedOut.size());
      JobDef def = definition(job, remaining, store.call(ChunkTable.maxChunkId(r.id())) + 1);
      if (r.state() != JobPhase.QUEUED) {
        // it had started: it does not wait for min-workers again
        def = def.withMinWorkers(1);
      }
      String[] memory = store.call(JobTable.jobMemory(r.id()));
      loop.addJob(job, def, handedOut, memory[0], memory[1]);
      String cancelled = store.call(JobTable.cancelReason(r.id()));
      if (cancelled != null) {
        // cancelled before the restart, and waiting for its last pieces then: it ends with what is saved
        log.info("job {} was cancelled before the master stopped ({}); it ends now", r.id(), cancelled);
        loop.cancel(r.id(), cancelled);
      }
    }
  }
}
