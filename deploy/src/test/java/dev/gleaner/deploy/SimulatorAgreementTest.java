package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.WorkerStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator predicts the runtime: three worker JVMs, slowed down differently, die and come back
 * on a seeded schedule while a job runs to its deadline; {@code ClosedLoop} drives the same
 * controller through the same schedule with the speeds the master measured, and both commit the
 * same work within a few percent. Every process started here is ended here.
 *
 * <p>The workers' speeds are set by their clocks ({@code --max-speed}, far below what one core
 * computes), not by how much of the machine they get: the agreement is the controller's and the
 * simulator's, and holds on a machine kept busy by something else.
 */
class SimulatorAgreementTest {
  private static final String RISK = "linear:0.012";
  private static final long SEED = 11;
  private static final double DOWNTIME = 6;
  private static final double DEADLINE = 30;
  private static final Pattern CLOCK = Pattern.compile("clock started at (\\d+) ms");

  @TempDir
  Path dir;

  @Test
  void theSimulatorAndTheRuntimeCommitTheSameWork() throws Exception {
    List<String> ids = List.of("w1", "w2", "w3");
    double[] speeds = {6e7, 4e7, 2e7};
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      for (int i = 0; i < ids.size(); i++) {
        workers.start(ids.get(i), c.master.port(), c.secretFile(), 1, 1, "128m",
            List.of("--max-speed", Double.toString(speeds[i]), "--interrupt", RISK, "--interrupt-seed", Long.toString(SEED), "--downtime", Double.toString(DOWNTIME)));
      }
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> c.master.liveWorkers().size() == 3);
        // a first job measures the workers' speeds on the same numbers
        String warmUp = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "200000000000")
            .putParams("to", "200300000000").setStrategy("self").build());
        assertTrue(StatusView.ended(c.awaitEnd(warmUp, Duration.ofSeconds(120)).getState()));

        // what the master knows of each worker's interruptions when the job starts
        java.util.Map<String, WorkerStatus> before = new java.util.HashMap<>();
        for (String id : ids) {
          before.put(id, c.workerStatus(id));
        }
        long t0 = System.currentTimeMillis();
        String job = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "200000000000")
            .putParams("to", "300000000000").setDeadlineMillis(t0 + (long) (DEADLINE * 1000)).build());
        JobStatus real = c.awaitEnd(job, Duration.ofSeconds(120));
        assertEquals("DONE_PARTIAL", real.getState(), real.getMessage());

        List<ClosedLoop.Host> hosts = new ArrayList<>();
        for (String id : ids) {
          WorkerStatus w = c.workerStatus(id);
          double speed = w.getSpeedsOrThrow("primes").getValue();
          Matcher m = CLOCK.matcher(Files.readString(workers.log(id)));
          assertTrue(m.find(), "worker " + id + " logs when its failure clock started");
          double offset = (t0 - Long.parseLong(m.group(1))) / 1000.0;
          double joinAt = 0;
          List<double[]> outages = new ArrayList<>();
          for (double[] o : FailureSchedule.parse(RISK, DOWNTIME).outages(SEED, id, 10_000)) {
            double down = o[0] - offset;
            double up = o[1] - offset;
            if (up <= 0) {
              continue;
            }
            if (down <= 0) {
              joinAt = up;
            } else {
              outages.add(new double[] {down, up});
            }
          }
          hosts.add(new ClosedLoop.Host(id, speed, Double.POSITIVE_INFINITY, speed, joinAt, outages,
              Double.POSITIVE_INFINITY).withHistory(before.get(id).getRiskInterruptions(),
              before.get(id).getRiskExposureSeconds()));
        }
        JobDef def = JobDef.of(job, "primes", 200_000_000_000L, 300_000_000_000L, "auto").withDeadline(DEADLINE);
        ClosedLoop.Result sim = ClosedLoop.run(def, hosts, new ClosedLoop.Setup(ControlConfig.defaults(), 0.25,
            c.master.status(null).getEps().getValue(), DEADLINE + 5));
        double gap = Math.abs(sim.committed() - real.getUnitsDone()) / (double) real.getUnitsDone();
        System.out.printf("runtime committed %d units by the deadline (%s), the simulator %d (%s, %.1f%% apart);"
            + " hosts %s%n", real.getUnitsDone(), real.getSharesList().stream().map(x -> x.getWorkerId() + "=" + x.getUnits())
            .toList(), sim.committed(), sim.controller().views().job(job).shares(), 100 * gap, hosts.stream().map(h -> h.id()
            + "@" + Math.round(h.speed()) + " join " + h.joinAt() + " first outages " + h.outages().stream().limit(2)
            .map(java.util.Arrays::toString).toList()).toList());
        for (String id : ids) {
          System.out.println(id + " t0=" + t0 + ": " + Files.readAllLines(workers.log(id)).stream()
              .filter(l -> l.contains("failure injection")).toList());
        }
        assertTrue(gap < 0.08, "runtime " + real.getUnitsDone() + ", simulator " + sim.committed());
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }
}
