package dev.gleaner.master;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.workload.UnitRange;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.JobSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Accepts jobs from clients (validated, stored, then queued) and resumes stored jobs on start. */
final class JobService {
  private static final Logger log = LoggerFactory.getLogger(JobService.class);

  private final Store store;
  private final ChunkDispatcher dispatcher;
  private final Workloads workloads;
  private final Ticker ticker;
  private final AtomicLong seq = new AtomicLong();

  JobService(Store store, ChunkDispatcher dispatcher, Workloads workloads, Ticker ticker) {
    this.store = store;
    this.dispatcher = dispatcher;
    this.workloads = workloads;
    this.ticker = ticker;
  }

  /**
   * Validates and stores a job, then queues it; the future gives its id once it is durable.
   *
   * @throws IllegalArgumentException with a sentence for the person who wrote the job file
   */
  CompletableFuture<String> submit(JobSpec spec) {
    Workload workload = workloads.get(spec.getWorkload());
    Strategies.requireRunnable(spec.getStrategy());
    if (spec.getMinWorkers() > 100_000) {
      throw new IllegalArgumentException("min-workers " + spec.getMinWorkers() + " is not a sensible number of workers");
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
    long n = seq.incrementAndGet();
    String id = "job-" + n;
    long now = System.currentTimeMillis();
    JobRun job = new JobRun(id, spec, workload, input, range.start(), range.end(), now, ticker.nanos(),
        List.of(new long[] {range.start(), range.end()}), 0);
    return store.submit(Store.insertJob(new Store.JobRecord(id, n, spec.getName(), workload.name(), spec.toByteArray(),
        JobState.QUEUED.name(), range.start(), range.end(), spec.getStrategy(), now, 0, null, null))).thenApply(done -> {
          log.info("job {} submitted: {} over [{}, {})", id, workload.name(), range.start(), range.end());
          dispatcher.addJob(job);
          return id;
        });
  }

  private static FileInputSource openInput(Workload workload, JobSpec spec) {
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
    return new FileInputSource(Path.of(path).toAbsolutePath());
  }

  private static void closeQuietly(FileInputSource input, Exception primary) {
    if (input != null) {
      try {
        input.close();
      } catch (java.io.IOException e) {
        if (primary != null) {
          primary.addSuppressed(e);
        } else {
          log.warn("closing input {} failed: {}", input.path(), e.getMessage(), e);
        }
      }
    }
  }

  /** Loads the stored jobs; unfinished ones resume from their committed pieces. */
  void resume() {
    for (Store.JobRecord r : store.call(Store.jobs())) {
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
      boolean finished = r.state().equals(JobState.DONE.name()) || r.state().equals(JobState.FAILED.name());
      FileInputSource input = null;
      List<long[]> remaining = new ArrayList<>();
      long committed = 0;
      if (!finished) {
        try {
          input = openInput(workload, spec);
        } catch (IllegalArgumentException e) {
          log.error("job {} cannot resume: {}", r.id(), e.getMessage());
          store.call(Store.updateJob(r.id(), JobState.FAILED.name(), null, System.currentTimeMillis(), null,
              "cannot resume: " + e.getMessage()));
          continue;
        }
        long at = r.start();
        for (Store.PieceRecord p : store.call(Store.pieces(r.id()))) {
          if (p.start() > at) {
            remaining.add(new long[] {at, p.start()});
          }
          at = Math.max(at, p.end());
          committed += p.end() - p.start();
        }
        if (at < r.end()) {
          remaining.add(new long[] {at, r.end()});
        }
      }
      JobRun job = new JobRun(r.id(), spec, workload, input, r.start(), r.end(), r.submittedAt(), ticker.nanos(),
          remaining, store.call(Store.maxChunkId(r.id())));
      job.committed = committed;
      job.strategy = r.strategy();
      if (finished) {
        job.state = JobState.valueOf(r.state());
        job.finishedAtMillis = r.finishedAt();
        job.message = r.message() == null ? "" : r.message();
        job.committed = job.state == JobState.DONE ? job.units() : 0;
        job.resultText = r.result() == null ? "" : workload.render(r.result());
      } else {
        log.info("job {} resumes: {} of {} units already committed", r.id(), committed, job.units());
      }
      dispatcher.addJob(job);
    }
  }
}
