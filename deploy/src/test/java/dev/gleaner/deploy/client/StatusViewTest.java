package dev.gleaner.deploy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.protocol.Forecast;
import dev.gleaner.protocol.JobStatus;

import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The status table as people read it. */
class StatusViewTest {
  private static String table(StatusReply reply) {
    StringWriter out = new StringWriter();
    StatusView.table(reply, new PrintWriter(out, true));
    return out.toString();
  }

  private static String line(String table, String worker) {
    return table.lines().filter(l -> l.startsWith("  " + worker + " ")).findFirst().orElseThrow();
  }

  /** A worker with no time up (one that joined away, or a new one) has no risk of its own: '?', as for speeds. */
  @Test
  void aWorkerWithoutHistoryShowsAQuestionMarkForItsRisk() {
    String t = table(StatusReply.newBuilder()
        .addWorkers(WorkerStatus.newBuilder().setWorkerId("away").setState("AWAY").setHost("pc-1").setCores(4)
            .setAwayReason("the owner is at the keyboard"))
        .addWorkers(WorkerStatus.newBuilder().setWorkerId("seen").setState("READY").setHost("pc-2").setCores(4)
            .setRiskRate(2.0 / 7200).setRiskInterruptions(2).setRiskExposureSeconds(7200))
        .build());
    assertTrue(line(t, "away").contains("? (no history)"), t);
    assertTrue(line(t, "seen").contains("1.00 (2 in 2.0 h)"), t);
  }

  /** A worker with no chunk while work waits says why, on the line under it; a busy one says nothing. */
  @Test
  void anIdleWorkerSaysWhyItTakesNothing() {
    String why = "its link (1.25e+06 B/s) is thinner than w1's (1.00e+07 B/s), whose input holds the master's port:"
        + " w1 would end later, not sooner";
    String t = table(StatusReply.newBuilder()
        .addWorkers(WorkerStatus.newBuilder().setWorkerId("w4").setState("READY").setHost("pc-4").setIdleReason(why))
        .addWorkers(WorkerStatus.newBuilder().setWorkerId("w1").setState("READY").setHost("pc-1")
            .setCurrentChunk("job-1#3"))
        .build());
    List<String> lines = t.lines().toList();
    int w4 = lines.indexOf(line(t, "w4"));
    assertEquals("takes nothing now: " + why, lines.get(w4 + 1).strip(), t);
    assertEquals(1, t.split("takes nothing now", -1).length - 1, t);
  }

  /**
   * Work moved off a worker is "taken from" it: its owner's polite return and its program's failure
   * move work too, and no crash lost it.
   */
  @Test
  void reroutedWorkIsTakenFromItsWorkerNotLostWithIt() {
    String t = table(StatusReply.newBuilder().addJobs(JobStatus.newBuilder().setJobId("job-1").setState("RUNNING")
        .setWorkload("primes").setUnitsTotal(100).addReroutes(dev.gleaner.protocol.Reroute.newBuilder()
            .setFromWorker("lab-pc-2").setOrigin("lab-pc-2").setToWorker("lab-pc-1").setUnits(40).setChunks(2)))
        .build());
    assertTrue(t.contains("    rerouted: 40 units (2 chunks) of lab-pc-2's work, taken from lab-pc-2, to lab-pc-1\n"),
        t);
    assertFalse(t.contains("lost with"), t);
  }

  private static final long NOW = 1_780_000_000_000L;

  /**
   * With a deadline, the forecast is the share of the job saved by then, with its band, the deadline
   * in local time and the time left; the plan's own figure is not shown.
   */
  @Test
  void aJobWithADeadlineForecastsTheUnitsSavedByThenWithItsBand() {
    JobStatus j = JobStatus.newBuilder().setJobId("job-1").setState("RUNNING").setWorkload("primes")
        .setUnitsTotal(19_440_000).setUnitsDone(4_000_000).setStrategy("auto").setExpectedWork(2_904_000)
        .setDeadlineMillis(NOW + 3_600_000)
        .setForecast(Forecast.newBuilder().setAtMillis(NOW - 3000).setRuns(20).setUnits(15_900_000)
            .setUnitsLow(15_200_000).setUnitsHigh(16_300_000).setFinished(0))
        .build();
    // NOW is Thursday 2026-05-28 20:26:40 UTC; in Paris, 22:26:40
    java.time.ZoneId paris = java.time.ZoneId.of("Europe/Paris");
    assertEquals("81.8% of the job (78.2% to 83.8%) saved by the deadline, Thu 23:26, in 1h00m; 20 simulated runs"
        + " from 3s ago", StatusView.forecast(j, NOW, paris));
    JobStatus weekend = j.toBuilder().setDeadlineMillis(NOW + 4 * 86_400_000L + 9 * 3_600_000 + 33 * 60_000 + 20_000)
        .build();
    assertTrue(StatusView.forecast(weekend, NOW, paris).contains("saved by the deadline, Tue 08:00, in 4d09h"),
        StatusView.forecast(weekend, NOW, paris));
    String t = table(StatusReply.newBuilder().addJobs(j).build());
    assertTrue(t.contains("    forecast: 81.8% of the job (78.2% to 83.8%) saved by the deadline, "), t);
    assertFalse(t.contains("2.90M"), "the plan's one-round figure is no forecast: " + t);
  }

  /** Without a deadline, the forecast is when the job ends, from now, with its band. */
  @Test
  void aJobWithoutADeadlineForecastsWhenItEnds() {
    JobStatus j = JobStatus.newBuilder().setJobId("job-2").setState("RUNNING").setUnitsTotal(1_000_000)
        .setForecast(Forecast.newBuilder().setAtMillis(NOW).setRuns(12).setUnits(1_000_000).setUnitsLow(1_000_000)
            .setUnitsHigh(1_000_000).setFinished(0.75).setEndMillis(NOW + 725_000).setEndLowMillis(NOW + 600_000)
            .setEndHighMillis(0))
        .build();
    assertEquals("done in 12m05s, Thu 20:38 (10m00s to later); 75% of the runs save every unit;"
        + " 12 simulated runs from 0s ago", StatusView.forecast(j, NOW, java.time.ZoneOffset.UTC));
    JobStatus sure = j.toBuilder().setForecast(j.getForecast().toBuilder().setFinished(1).setEndLowMillis(NOW + 725_000)
        .setEndHighMillis(NOW + 725_000)).build();
    assertEquals("done in 12m05s, Thu 20:38 (every run agrees); 12 simulated runs from 0s ago",
        StatusView.forecast(sure, NOW, java.time.ZoneOffset.UTC));
  }
}
