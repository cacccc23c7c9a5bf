package dev.gleaner.master.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.common.plan.Timeline;
import dev.gleaner.master.status.WebStatus;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/status}: one JSON document with the jobs (progress against what the plan
 * expects, its strategy and reason, re-plans, recovery lists and reroutes, the planned timeline of
 * each worker), the workers (state, the planner's figures, the current chunk) and the checkpoint
 * round trip. The names are those of {@code gleaner status --json} where both have a figure. Times
 * are wall-clock milliseconds; an unknown number is null.
 */
public final class StatusJson {
  /** Pieces of one worker's planned timeline sent at most (a long self-scheduled plan has thousands). */
  static final int PIECES_SHOWN = 400;
  /** Characters of a result's first line sent (the page shows a line). */
  static final int RESULT_SHOWN = 200;

  private static final ObjectMapper JSON = new ObjectMapper();

  private StatusJson() {}

  public static byte[] write(WebStatus status) {
    try {
      return JSON.writeValueAsBytes(toMap(status));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the status as JSON: " + e.getMessage(), e);
    }
  }

  static Map<String, Object> toMap(WebStatus status) {
    StatusReply reply = status.reply();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("atMillis", status.atMillis());
    // [time in ms, units/s] a point per 10 s over the last hour: the chart's start
    m.put("computed", status.computed().stream().map(p -> List.of(p.atMillis(), p.unitsPerSecond())).toList());
    List<Object> jobs = new ArrayList<>();
    for (JobStatus j : reply.getJobsList()) {
      jobs.add(job(j, status.plans().get(j.getJobId())));
    }
    m.put("jobs", jobs);
    m.put("jobsOmitted", reply.getJobsOmitted());
    List<Object> workers = new ArrayList<>();
    for (WorkerStatus w : reply.getWorkersList()) {
      workers.add(StatusMaps.worker(w));
    }
    m.put("workers", workers);
    m.put("eps", StatusMaps.estimate(reply.getEps()));
    m.put("shares", StatusMaps.shares(reply.getSharesList()));
    m.put("relays", StatusMaps.relays(reply.getRelaysList()));
    return m;
  }

  /** The job as `gleaner status --json` writes it, its result's first line in place of its result, and its plan. */
  private static Map<String, Object> job(JobStatus j, WebStatus.Plan plan) {
    Map<String, Object> m = StatusMaps.job(j);
    m.remove("result");
    String first = j.getResult().lines().findFirst().orElse("");
    m.put("resultLine", first.length() > RESULT_SHOWN ? first.substring(0, RESULT_SHOWN) : first);
    m.put("plan", plan == null ? null : plan(plan));
    return m;
  }

  /** The plan's timeline, lane by lane, in wall-clock milliseconds. */
  private static Map<String, Object> plan(WebStatus.Plan plan) {
    long t0 = plan.plannedAtMillis();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("plannedAtMillis", t0);
    m.put("endMillis", at(t0, plan.timeline().makespan()));
    List<Object> lanes = new ArrayList<>();
    for (Timeline.Lane lane : plan.timeline().lanes()) {
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("worker", lane.worker());
      l.put("units", lane.units());
      List<Object> receiving = new ArrayList<>();
      for (Timeline.Interval r : lane.receiving()) {
        receiving.add(List.of(at(t0, r.from()), at(t0, r.to())));
      }
      l.put("receiving", receiving);
      List<Object> pieces = new ArrayList<>();
      for (Timeline.Piece p : lane.pieces().subList(0, Math.min(PIECES_SHOWN, lane.pieces().size()))) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("units", p.units());
        x.put("startMillis", at(t0, p.start()));
        x.put("savedMillis", at(t0, p.saved()));
        pieces.add(x);
      }
      l.put("pieces", pieces);
      l.put("piecesOmitted", Math.max(0, lane.pieces().size() - PIECES_SHOWN));
      lanes.add(l);
    }
    m.put("lanes", lanes);
    return m;
  }

  private static Long at(long t0, double seconds) {
    return Double.isFinite(seconds) ? t0 + Math.round(seconds * 1000) : null;
  }
}
