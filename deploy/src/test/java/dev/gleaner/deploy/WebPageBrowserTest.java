package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The master's web page in a real headless Chromium: it shows the running job and the workers,
 * draws the plan, and updates by itself. Debian's chromium and chromedriver are used where they
 * are installed; Selenium is given both paths, so it never downloads a browser or a driver.
 * {@code -Dgleaner.webScreenshot=FILE} also saves a PNG of the page.
 */
class WebPageBrowserTest {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  @TempDir
  Path dir;

  /** A started Chromium: the driver, its service and its profile folder (ours alone), ended by close. */
  static final class Browser implements AutoCloseable {
    final ChromeDriver driver;
    private final ChromeDriverService service;
    private final Path profile;

    Browser(Path profile) {
      assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER), "no headless browser here: "
          + CHROMIUM + " or " + CHROMEDRIVER + " is missing; install Debian's packages chromium and chromium-driver"
          + " (apt-get install chromium chromium-driver) to run this test");
      this.profile = profile;
      service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
          .withLogOutput(java.io.OutputStream.nullOutputStream()).build();
      ChromeOptions options = new ChromeOptions();
      options.setBinary(CHROMIUM.toFile());
      // root in a closed network: no sandbox, no GPU, nothing fetched in the background
      options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-dev-shm-usage", "--window-size=1280,900", "--user-data-dir=" + profile);
      LoggingPreferences logs = new LoggingPreferences();
      logs.enable(LogType.BROWSER, Level.ALL);
      options.setCapability("goog:loggingPrefs", logs);
      driver = new ChromeDriver(service, options);
    }

    /** The browser's console errors (a script error, a refused resource). */
    List<String> consoleErrors() {
      return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
          .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).map(LogEntry::getMessage).toList();
    }

    @Override
    public void close() {
      try {
        driver.quit();
      } finally {
        service.stop();
        assertFalse(service.isRunning(), "chromedriver still runs");
        // every process still naming our profile folder is one this test started (the browser, its
        // crash handler): they end with the browser; any still there after 10 s is ended by its pid
        try {
          await().atMost(Duration.ofSeconds(10)).until(() -> ours().isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          List<ProcessHandle> left = ours();
          left.forEach(ProcessHandle::destroyForcibly);
          throw new AssertionError("Chromium processes outlived driver.quit() by 10 s, ended now: "
              + left.stream().map(p -> Long.toString(p.pid())).toList(), e);
        }
      }
    }

    private List<ProcessHandle> ours() {
      String folder = profile.toString();
      return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
          .filter(p -> p.info().arguments().map(args -> java.util.Arrays.stream(args).anyMatch(a -> a.contains(folder)))
              .orElse(false)).toList();
    }
  }

  private static long unitsDone(WebElement row) {
    return Long.parseLong(row.getDomAttribute("data-units-done"));
  }

  @Test
  void thePageShowsTheRunningJobAndItsWorkersAndUpdatesItself() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      // two workers of different speeds, capped so that the job runs long past the test
      c.worker("fast", 1, Set.of(), w -> w.withMaxSpeed(3_000_000));
      c.worker("slow", 1, Set.of(), w -> w.withMaxSpeed(1_000_000));
      String job = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "0")
          .putParams("to", "600000000").setStrategy("proportional").setCheckpoints(200).build());
      await().atMost(Duration.ofSeconds(60)).until(() -> c.job(job).getState().equals("RUNNING"));
      try (Browser b = new Browser(Files.createDirectory(dir.resolve("chromium-profile")))) {
        b.driver.get("http://127.0.0.1:" + c.master.port() + "/");
        assertEquals("Gleaner master", b.driver.getTitle());
        By jobRow = By.cssSelector("#jobs tr[data-job='" + job + "']");
        // at load, before any poll: the page came with its status and drew it (no "loading...")
        assertEquals(1, b.driver.findElements(By.id("initial-status")).size(), "the page comes with its status");
        assertEquals(1, b.driver.findElements(jobRow).size(), "the job at first paint");
        for (String w : List.of("fast", "slow")) {
          assertEquals(1, b.driver.findElements(By.cssSelector("#workers tr[data-worker='" + w + "']")).size(),
              "worker " + w + " at first paint");
        }
        assertFalse(b.driver.findElement(By.id("updated")).getText().contains("loading"));
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
            b.driver.findElement(jobRow).getDomAttribute("data-state").equals("RUNNING")
                && unitsDone(b.driver.findElement(jobRow)) > 0);
        // the page redraws its rows every second: each is read again until one read holds (a row read
        // while it is replaced is stale, not wrong)
        for (String w : List.of("fast", "slow")) {
          By row = By.cssSelector("#workers tr[data-worker='" + w + "']");
          await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
              b.driver.findElement(row).getText().startsWith(w));
        }
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
            b.driver.findElement(jobRow).getText().contains("RUNNING"));
        // the page polls by itself: a later poll shows more units done
        long[] seenUnits = new long[1];
        String[] shownText = new String[1];
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
          WebElement row = b.driver.findElement(jobRow);
          seenUnits[0] = unitsDone(row);
          shownText[0] = row.findElement(By.cssSelector("td.done")).getText();
          return true;
        });
        long seen = seenUnits[0];
        String shown = shownText[0];
        // every count in one form, three significant digits and a prefix; the exact one on hover
        assertTrue(shown.matches("\\d+(\\.\\d+)?( [kMGT])? of 600 M units"), shown);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
            unitsDone(b.driver.findElement(jobRow)) > seen
                && !b.driver.findElement(jobRow).findElement(By.cssSelector("td.done")).getText().equals(shown));
        // the plan's timeline, a lane per worker once the probe chunks have measured them
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> b.driver.findElements(
            By.cssSelector("div[data-plan='" + job + "'] svg g[data-worker]")).size() == 2);
        // the units/s chart (uPlot, from the master's jar)
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
            !b.driver.findElements(By.cssSelector("#rate-chart canvas")).isEmpty());
        assertFalse(b.driver.findElement(By.id("error")).isDisplayed(), b.driver.findElement(By.id("error")).getText());
        assertEquals(List.of(), b.consoleErrors());
        String shot = System.getProperty("gleaner.webScreenshot");
        if (shot != null && !shot.isBlank()) {
          Files.write(Path.of(shot), ((TakesScreenshot) b.driver).getScreenshotAs(OutputType.BYTES));
        }
      }
    }
  }

  @Test
  void aWorkerThroughARelayIsShownThroughItAndTheRelaysAreListed() throws Exception {
    try (LocalCluster c = new LocalCluster(dir);
        dev.gleaner.worker.relay.RelayDaemon relay = dev.gleaner.worker.relay.RelayDaemon.start(
            dev.gleaner.worker.relay.RelayConfig.defaults("site-a", new java.net.InetSocketAddress("127.0.0.1", 0),
                List.of(java.net.InetSocketAddress.createUnresolved("127.0.0.1", c.master.port())),
                dev.gleaner.protocol.PeerCredential.sharedSecret(LocalCluster.SECRET)))) {
      await().atMost(Duration.ofSeconds(30)).until(relay::loggedIn);
      c.worker("near", 1, Set.of());
      c.worker("far", 1, Set.of(), w -> w.throughRelay("127.0.0.1", relay.address().getPort()));
      await().atMost(Duration.ofSeconds(30)).until(() -> c.master.status("").getWorkersCount() == 2
          && c.master.status("").getRelaysCount() == 1 && c.master.status("").getRelays(0).getWorkers() == 1);
      try (Browser b = new Browser(Files.createDirectory(dir.resolve("chromium-profile")))) {
        b.driver.get("http://127.0.0.1:" + c.master.port() + "/");
        By far = By.cssSelector("#workers tr[data-worker='far']");
        By near = By.cssSelector("#workers tr[data-worker='near']");
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
            b.driver.findElement(far).getText().contains("(through relay site-a)")
                && !b.driver.findElement(near).getText().contains("through relay"));
        WebElement relays = b.driver.findElement(By.id("relays"));
        assertTrue(relays.isDisplayed(), "the relays' line is shown");
        assertTrue(relays.getText().startsWith("Relays: site-a on ") && relays.getText().endsWith(", 1 worker"),
            relays.getText());
        assertEquals(List.of(), b.consoleErrors());
        // -Dgleaner.relayScreenshot=FILE: a PNG of the workers' section (docs/relays-web.png)
        String shot = System.getProperty("gleaner.relayScreenshot");
        if (shot != null && !shot.isBlank()) {
          WebElement section = b.driver.findElement(By.id("workers")).findElement(By.xpath(".."));
          Files.write(Path.of(shot), section.getScreenshotAs(OutputType.BYTES));
        }
      }
    }
  }
}
