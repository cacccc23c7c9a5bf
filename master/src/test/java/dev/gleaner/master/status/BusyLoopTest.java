package dev.gleaner.master.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.loop.ControlLoop;
import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.store.Store;
import dev.gleaner.protocol.StatusReply;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control loop's thread held by a task that does not end (as a hand-out over a huge platform
 * may hold it for minutes): a status is still answered, from the last figures the loop took, and a
 * stop goes through without it.
 */
class BusyLoopTest {
  @TempDir
  Path dir;
  private Store store;
  private ControlLoop loop;
  private StatusService status;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final CountDownLatch release = new CountDownLatch(1);

  @BeforeEach
  void start() {
    store = new Store(dir.resolve("data"));
    loop = new ControlLoop(store, new MasterMetrics(registry), Ticker.SYSTEM, ControlConfig.defaults());
    status = new StatusService(loop, 0.25, ControlConfig.defaults());
  }

  @AfterEach
  void stop() {
    release.countDown();
    status.close();
    loop.close();
    store.close();
  }

  /** Holds the loop's thread until the test releases it; completes once the thread is held. */
  private CompletableFuture<Void> holdTheLoop() {
    CompletableFuture<Void> held = new CompletableFuture<>();
    loop.read(books -> {
      held.complete(null);
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    });
    return held;
  }

  @Test
  void aStatusAskedWhileTheLoopIsBusyIsAnsweredWithItsLastFiguresAndSaysHowOldTheyAre() throws Exception {
    StatusReply before = status.status("", registry, 0, false, false).get();
    assertTrue(before.getAsOfMillis() > 0);
    holdTheLoop().get();
    CompletableFuture<StatusReply> during = status.status("", registry, 0, false, false);
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(during::isDone);
    assertEquals(before, during.get(), "the last reply the loop built, as it was");
    // a job the last figures do not show cannot be answered from them: it waits for the loop
    CompletableFuture<StatusReply> unknown = status.status("job-9", registry, 0, false, false);
    assertFalse(unknown.isDone());
    release.countDown();
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(unknown::isDone);
    assertTrue(unknown.get().getAsOfMillis() >= before.getAsOfMillis());
    assertEquals(0, unknown.get().getJobsCount());
  }

  @Test
  void aStopDoesNotWaitForABusyLoop() throws Exception {
    holdTheLoop().get();
    CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
      loop.stopping();
      loop.close();
    });
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(stopped::isDone);
    stopped.get();
  }
}
