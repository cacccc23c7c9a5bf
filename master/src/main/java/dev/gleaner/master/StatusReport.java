package dev.gleaner.master;

import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerShare;
import dev.gleaner.protocol.WorkerStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Builds the status reply from the dispatcher's views. */
final class StatusReport {
  private StatusReport() {}

  static StatusReply build(ChunkDispatcher dispatcher, MeterRegistry registry, String jobId) {
    StatusReply.Builder reply = StatusReply.newBuilder();
    for (Meter m : registry.getMeters()) {
      String name = m.getId().getName();
      if (!name.startsWith("gleaner.")) {
        continue;
      }
      if (m instanceof Counter c) {
        reply.putMetrics(name, c.count());
      } else if (m instanceof Timer t) {
        reply.putMetrics(name + ".count", t.count());
        reply.putMetrics(name + ".mean_ms", t.mean(TimeUnit.MILLISECONDS));
      }
    }
    for (ChunkDispatcher.JobView j : dispatcher.jobs()) {
      if (!jobId.isEmpty() && !jobId.equals(j.id())) {
        continue;
      }
      JobStatus.Builder b = JobStatus.newBuilder().setJobId(j.id()).setName(j.name()).setWorkload(j.workload())
          .setState(j.state()).setStrategy(j.strategy()).setMessage(j.message()).setUnitsTotal(j.units())
          .setUnitsDone(j.committed()).setUnitsPerSecond(j.unitsPerSecond()).setResult(j.result())
          .setSubmittedAtMillis(j.submittedAt()).setFinishedAtMillis(j.finishedAt());
      j.shares().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .forEach(e -> b.addShares(WorkerShare.newBuilder().setWorkerId(e.getKey()).setUnits(e.getValue())));
      b.setRecoveryScheme(j.recoveryScheme());
      j.recovery().forEach((w, l) -> b.addRecovery(dev.gleaner.protocol.RecoveryList.newBuilder().setWorkerId(w)
          .addAllList(l)));
      for (JobRun.Reroute r : j.reroutes()) {
        b.addReroutes(dev.gleaner.protocol.Reroute.newBuilder().setFromWorker(r.from()).setOrigin(r.origin())
            .setToWorker(r.to()).setUnits(r.units()).setChunks(r.chunks()).setAtMillis(r.atMillis()));
      }
      reply.addJobs(b);
    }
    for (ChunkDispatcher.WorkerView w : dispatcher.workers()) {
      reply.addWorkers(WorkerStatus.newBuilder().setWorkerId(w.id()).setHost(w.host()).setCores(w.cores())
          .setState(w.state()).setUnitsPerSecond(w.speed()).setUnitsDone(w.unitsDone())
          .setInterruptions(w.interruptions()).setCurrentChunk(w.currentChunk())
          .setLastHeartbeatMillis(w.silentMillis()));
    }
    return reply.build();
  }
}
