package dev.gleaner.master.status;

import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.JobView;
import dev.gleaner.common.control.PlannedTimeline;
import dev.gleaner.common.control.WorkerState;
import dev.gleaner.common.control.WorkerView;
import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.master.loop.Books;
import dev.gleaner.master.loop.MasterClock;
import dev.gleaner.master.loop.MasterJob;
import dev.gleaner.master.loop.WorkerLink;
import dev.gleaner.protocol.Forecast;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.RecoveryList;
import dev.gleaner.protocol.Reroute;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.UnitRange;
import dev.gleaner.protocol.WorkerShare;
import dev.gleaner.protocol.WorkerStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Builds the status reply from the controller's views, the master's job records and its meters. */
final class StatusReport {
  private StatusReport() {}

  /** The reply, as of {@code asOfMillis}. */
  static StatusReply build(Books b, Map<String, Forecast> forecasts, MeterRegistry registry, String jobId,
      boolean allWorkers, long asOfMillis) {
    return build(b, forecasts, registry, jobId, false, allWorkers).setAsOfMillis(asOfMillis).build();
  }

  /** A reply with one job's line only (no workers, meters or recovery lists); no job if it is unknown. */
  static StatusReply jobOnly(Books b, Map<String, Forecast> forecasts, String jobId, long asOfMillis) {
    StatusReply.Builder reply = StatusReply.newBuilder().setAsOfMillis(asOfMillis);
    MasterJob j = b.jobs().get(jobId);
    if (j != null) {
      reply.addJobs(job(b, forecasts, j, true, false));
    }
    return reply.build();
  }

  /**
   * What the web page shows: every job of a status of all jobs, the running ones with their
   * recovery lists (as a status of one job has them), and each running job's planned timeline, its
   * times as wall-clock milliseconds.
   */
  static WebStatus web(Books b, Map<String, Forecast> forecasts, MeterRegistry registry,
      java.util.List<ComputedHistory.Point> history) {
    StatusReply reply = build(b, forecasts, registry, "", true, true).build();
    Controller controller = b.controller();
    MasterClock clock = b.clock();
    Map<String, WebStatus.Plan> plans = new java.util.LinkedHashMap<>();
    for (dev.gleaner.protocol.JobStatus j : reply.getJobsList()) {
      PlannedTimeline t = controller.views().plannedTimeline(j.getJobId());
      if (t != null && Double.isFinite(t.at()) && !t.timeline().lanes().isEmpty() && j.getFinishedAtMillis() == 0) {
        plans.put(j.getJobId(), new WebStatus.Plan(clock.toMillis(t.at()), t.timeline()));
      }
    }
    java.util.List<WebStatus.RatePoint> rates = history.stream()
        .map(p -> new WebStatus.RatePoint(p.atMillis(), p.unitsPerSecond())).toList();
    return new WebStatus(reply, plans, clock.epochMillis(), rates);
  }

  private static StatusReply.Builder build(Books books, Map<String, Forecast> forecasts, MeterRegistry registry,
      String jobId, boolean recoveryOfRunning, boolean allWorkers) {
    Controller controller = books.controller();
    Map<String, MasterJob> jobs = books.jobs();
    Map<String, WorkerLink> links = books.links();
    Map<String, Books.Away> away = books.away();
    MasterClock clock = books.clock();
    double now = clock.now();
    StatusReply.Builder reply = StatusReply.newBuilder();
    for (Meter m : registry.getMeters()) {
      String name = m.getId().getName();
      if (!name.startsWith("gleaner.")) {
        continue;
      }
      if (m instanceof Counter c) {
        reply.putMetrics(name, c.count());
      } else if (m instanceof io.micrometer.core.instrument.Gauge g) {
        reply.putMetrics(name, g.value());
      } else if (m instanceof Timer t) {
        reply.putMetrics(name + ".count", t.count());
        reply.putMetrics(name + ".mean_ms", t.mean(TimeUnit.MILLISECONDS));
        reply.putMetrics(name + ".max_ms", t.max(TimeUnit.MILLISECONDS));
      }
    }
    reply.setEps(estimate(controller.estimates().eps()));
    Map<String, Integer> through = new java.util.HashMap<>();
    for (WorkerLink l : books.links().values()) {
      through.merge(l.via(), 1, Integer::sum);
    }
    for (dev.gleaner.master.loop.Relays.Relay r : books.relays().all()) {
      int below = through.getOrDefault(r.id(), 0);
      reply.addRelays(dev.gleaner.protocol.RelayStatus.newBuilder().setRelayId(r.id()).setHost(r.host())
          .setWorkers(below)
          .setVia(r.parent()).setConnectedAtMillis(r.connectedAtMillis())
          .setLastHeartbeatMillis(r.silentMillis().getAsLong()));
    }
    new java.util.TreeMap<>(controller.shares()).forEach((owner, weight) ->
        reply.addShares(dev.gleaner.protocol.Share.newBuilder().setOwner(owner).setWeight(weight)));
    if (!jobId.isEmpty()) {
      MasterJob j = jobs.get(jobId);
      if (j != null) {
        reply.addJobs(job(books, forecasts, j, true, true));
      }
    } else {
      // the latest jobs: a master that ran thousands still answers in one bounded frame
      int skip = Math.max(0, jobs.size() - JOBS_SHOWN);
      int i = 0;
      for (MasterJob j : jobs.values()) {
        if (i++ >= skip) {
          JobStatus js = job(books, forecasts, j, false, false);
          if (recoveryOfRunning && js.getFinishedAtMillis() == 0) {
            js = withRecovery(js, controller);
          }
          reply.addJobs(js);
        }
      }
      reply.setJobsOmitted(skip);
    }
    Map<String, Integer> byState = new java.util.TreeMap<>();
    controller.views().forEachWorkerState((id, state) -> byState.merge(shownState(id, state, links, away), 1, Integer::sum));
    int known = byState.values().stream().mapToInt(Integer::intValue).sum();
    java.util.List<WorkerView> shown = controller.views().workers(now, allWorkers ? Integer.MAX_VALUE : WORKERS_SHOWN);
    for (WorkerView w : shown) {
      WorkerLink link = links.get(w.id());
      Books.Away a = link == null ? null : away.get(w.id());
      WorkerStatus.Builder b = WorkerStatus.newBuilder().setWorkerId(w.id())
          .setState(shownState(w.id(), w.state(), links, away))
          .setUnitsDone(w.unitsDone()).setInterruptions((int) books.seenInterruptions(w))
          .setCurrentChunk(w.chunks().isEmpty() ? "" : w.chunks().get(0)).setSessions(w.sessions())
          .setBandwidth(estimate(w.bandwidth())).setRiskRate(w.risk().rate())
          .setRiskInterruptions(w.risk().interruptions()).setRiskExposureSeconds(w.risk().exposureSeconds())
          .setUnitsComputed(link == null ? 0 : link.unitsComputed()).setIdleReason(w.idleBecause());
      // risk_interruptions and risk_exposure_seconds are what the rate rests on, a prior's included
      if (a == null && Double.isFinite(w.risk().declaredEnd())) {
        b.setAvailableUntilMillis(clock.toMillis(w.risk().declaredEnd()));
      }
      for (Map.Entry<String, Estimate> e : w.speeds().entrySet()) {
        b.putSpeeds(e.getKey(), estimate(e.getValue()));
      }
      b.setUnitsPerSecond(w.bestSpeed());
      if (link != null) {
        b.setHost(link.host()).setCores(link.cores()).setLastHeartbeatMillis(link.silentMillis()).setVia(link.via());
      }
      if (a != null) {
        b.setAwayReason(a.reason()).setBackAtMillis(a.backAtMillis());
      }
      reply.addWorkers(b);
    }
    reply.setWorkersOmitted(known - shown.size());
    // connected since before this master knew them, and away all along: no figures yet
    for (Map.Entry<String, Books.Away> e : away.entrySet()) {
      WorkerLink link = links.get(e.getKey());
      if (link != null && !controller.views().knowsWorker(e.getKey())) {
        byState.merge("AWAY", 1, Integer::sum);
        reply.addWorkers(WorkerStatus.newBuilder().setWorkerId(e.getKey()).setState("AWAY").setHost(link.host())
            .setCores(link.cores()).setLastHeartbeatMillis(link.silentMillis()).setAwayReason(e.getValue().reason())
            .setBackAtMillis(e.getValue().backAtMillis()));
      }
    }
    reply.putAllWorkersByState(byState);
    return reply;
  }

  /** A worker's state as a status shows it: GONE without a session, AWAY while its owner has it, READY when up. */
  private static String shownState(String id, WorkerState state, Map<String, WorkerLink> links,
      Map<String, Books.Away> away) {
    WorkerLink link = links.get(id);
    return (link == null ? WorkerState.GONE : away.containsKey(id) ? WorkerState.AWAY : state).name();
  }

  /** Workers in a status that does not ask for all: the first ones to have joined. */
  static final int WORKERS_SHOWN = 200;

  /** Jobs in a status of all jobs: the latest ones. */
  static final int JOBS_SHOWN = 200;
  /** Characters of a result shown in a status of all jobs, and of one job. */
  static final int RESULT_SHOWN_ALL = 4096;
  static final int RESULT_SHOWN_ONE = MasterJob.RESULT_KEPT;
  /** Entries of each recovery list shown in a status of one job (none in a status of all). */
  static final int RECOVERY_SHOWN = 16;
  /** Reroutes shown, the latest ones, in a status of all jobs and of one job. */
  static final int REROUTES_SHOWN_ALL = 20;
  static final int REROUTES_SHOWN_ONE = 200;

  /** A job the control loop has not taken up yet, from what its submit says. */
  static JobStatus queued(MasterJob j) {
    return JobStatus.newBuilder().setJobId(j.id).setName(j.spec.getName()).setOwner(j.spec.getOwner()).setWorkload(j.workload.name())
        .setPriority(j.spec.getPriority()).setUnitsTotal(j.units()).setSubmittedAtMillis(j.submittedAtMillis).setDeadlineMillis(j.spec.getDeadlineMillis())
        .setStrategy(j.spec.getStrategy()).setState("QUEUED").setExpectedWork(Double.NaN)
        .setMessage("submitted; the master's control loop has not taken it up yet").build();
  }

  private static JobStatus job(Books books, Map<String, Forecast> forecasts, MasterJob j, boolean one,
      boolean recovery) {
    Controller controller = books.controller();
    JobView v = controller.views().job(j.id);
    long endMillis = j.finishedAtMillis() > 0 ? j.finishedAtMillis() : books.clock().epochMillis();
    double seconds = Math.max(1e-3, (endMillis - j.submittedAtMillis) / 1000.0);
    int shown = one ? RESULT_SHOWN_ONE : RESULT_SHOWN_ALL;
    String head = j.resultHead();
    boolean cut = !j.resultWhole() || head.length() > shown;
    JobStatus.Builder b = JobStatus.newBuilder().setJobId(j.id).setName(j.spec.getName()).setOwner(j.spec.getOwner())
        .setPriority(j.spec.getPriority()).setWorkload(j.workload.name()).setUnitsTotal(j.units())
        .setResult(head.length() > shown ? head.substring(0, shown) : head)
        .setResultTruncated(cut)
        .setResultSize(j.resultSize())
        .setSubmittedAtMillis(j.submittedAtMillis).setFinishedAtMillis(j.finishedAtMillis())
        .setDeadlineMillis(j.spec.getDeadlineMillis());
    if (v == null) {
      // ended before this master started
      JobPhase ended = j.ended();
      b.setState(ended.name()).setMessage(j.message()).setStrategy(j.spec.getStrategy()).setExpectedWork(Double.NaN)
          .setUnitsDone(ended == JobPhase.DONE ? j.units()
              : ended == JobPhase.DONE_PARTIAL || ended == JobPhase.CANCELLED ? j.units() - j.notDone().size() : 0);
      for (long[] r : j.notDone().ranges()) {
        b.addNotDone(UnitRange.newBuilder().setStart(r[0]).setEnd(r[1]));
      }
      return b.build();
    }
    // the stored end, or the controller's phase (an end the controller decided shows once it is stored)
    JobPhase state = j.ended() != null ? j.ended() : switch (v.phase()) {
      case QUEUED, FAILED, ENDING -> v.phase();
      default -> JobPhase.RUNNING;
    };
    b.setState(state.name()).setMessage(j.message().isEmpty() ? v.message() : j.message()).setStrategy(v.strategy())
        .setPlanReason(v.reason()).setUnitsDone(v.committed())
        .setUnitsPerSecond(Math.max(0, v.committed() - j.unitsBefore()) / seconds)
        .setExpectedWork(v.expectedWork()).setReplans(v.replans()).setUnitsQueued(v.queued())
        .setUnitsHeld(v.held()).setRecoveryScheme(v.scheme()).setUnitsVerified(v.verified())
        .addAllMismatches(v.mismatches());
    Forecast forecast = forecasts.get(j.id);
    if (forecast != null && !v.phase().ended() && j.ended() == null) {
      b.setForecast(forecast);
    }
    v.shares().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> b.addShares(WorkerShare.newBuilder().setWorkerId(e.getKey()).setUnits(e.getValue())));
    if (one && recovery) {
      int length = controller.views().recoveryLength(j.id);
      controller.views().recovery(j.id, RECOVERY_SHOWN).forEach((w, l) -> b.addRecovery(RecoveryList.newBuilder().setWorkerId(w)
          .addAllList(l).setLength(length)));
    }
    var reroutes = v.reroutes();
    int keep = one ? REROUTES_SHOWN_ONE : REROUTES_SHOWN_ALL;
    for (var r : reroutes.subList(Math.max(0, reroutes.size() - keep), reroutes.size())) {
      b.addReroutes(Reroute.newBuilder().setFromWorker(r.from()).setOrigin(r.origin()).setToWorker(r.to())
          .setUnits(r.units()).setChunks(r.chunks()));
    }
    for (long[] r : v.notDone().ranges()) {
      b.addNotDone(UnitRange.newBuilder().setStart(r[0]).setEnd(r[1]));
    }
    return b.build();
  }

  private static JobStatus withRecovery(JobStatus js, Controller controller) {
    JobStatus.Builder b = js.toBuilder();
    int length = controller.views().recoveryLength(js.getJobId());
    controller.views().recovery(js.getJobId(), RECOVERY_SHOWN).forEach((w, l) -> b.addRecovery(RecoveryList.newBuilder()
        .setWorkerId(w).addAllList(l).setLength(length)));
    return b.build();
  }

  private static dev.gleaner.protocol.Estimate estimate(Estimate e) {
    return dev.gleaner.protocol.Estimate.newBuilder().setValue(e.value()).setObservations(e.observations()).build();
  }
}
