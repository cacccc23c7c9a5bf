package dev.gleaner.master;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.store.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fault injection for chaos runs ({@code gleaner chaos}), through a file the master reads four times a
 * second ({@code gleaner master --fault-file FILE}, a hidden option). Each line is one fault in force:
 *
 * <ul>
 *   <li>{@code store-full}: the store takes no more pages, so every write that needs one fails as on a
 *       full disk (SQLite's {@code SQLITE_FULL}); gone from the file, the store grows again;
 *   <li>{@code clock-offset SECONDS}: the master's wall clock reads that much later (or earlier, if
 *       negative) than the machine's, a jump of the clock as NTP or an admin makes one. Only what is
 *       stored and shown moves; leases, heartbeats and rates run on the monotonic clock.
 * </ul>
 *
 * Blank lines and {@code #} comments are skipped; any other line is logged as an error, not ignored.
 *
 * <p>Each clock jump it applies, at start and after, is appended to the file beside it,
 * {@link #shiftsFile FILE.shifts}, one JSON object a line: {@code {"machineMillis":M,"offsetMillis":O}}, from
 * machine time M on the wall clock reads O ms off the machine's. The chaos harness maps the store's
 * times back to the machine's clock with it; the log line beside it is for people.
 */
public final class FaultFile implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FaultFile.class);

  /** The machine's clocks, the wall clock moved by an offset. */
  public static final class ShiftedTicker implements Ticker {
    private final Ticker base;
    private final AtomicLong offsetMillis = new AtomicLong();

    public ShiftedTicker(Ticker base) {
      this.base = base;
    }

    @Override
    public long nanos() {
      return base.nanos();
    }

    /**
     * Under the lock that a jump takes: a time is read wholly before a jump (a machine time up to the
     * one the jump logs, with the old offset) or wholly after it (from that machine time on, with the
     * new one), never the machine time after the jump's with the offset before it, which `gleaner
     * chaos` could not map back (it failed a run now and then on a busy machine).
     */
    @Override
    public synchronized long epochMillis() {
      return base.epochMillis() + offsetMillis.get();
    }

    /** Moves the clock to {@code millis} off the machine's; returns the machine time from which it is. */
    synchronized long offset(long millis) {
      long machine = base.epochMillis();
      offsetMillis.set(millis);
      return machine;
    }

    long offsetMillis() {
      return offsetMillis.get();
    }
  }

  /** What the file asks for. */
  record Faults(boolean storeFull, long clockOffsetMillis) {
    static final Faults NONE = new Faults(false, 0);

    /** Reads the file's lines; a line it does not know is an IllegalArgumentException naming it. */
    static Faults parse(List<String> lines) {
      boolean full = false;
      long offset = 0;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String[] words = line.split("\\s+");
        if (words[0].equals("store-full") && words.length == 1) {
          full = true;
        } else if (words[0].equals("clock-offset") && words.length == 2) {
          try {
            offset = Math.round(Double.parseDouble(words[1]) * 1000);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("line " + (i + 1) + ": '" + words[1] + "' is not a number of seconds", e);
          }
        } else {
          throw new IllegalArgumentException("line " + (i + 1) + ": '" + line
              + "' is not a fault (known: store-full, clock-offset SECONDS)");
        }
      }
      return new Faults(full, offset);
    }
  }

  private final Path file;
  private final Path shifts;
  private final Store store;
  private final ShiftedTicker clock;
  private final ScheduledExecutorService timer;
  private Faults now = Faults.NONE;
  private String lastError;

  private FaultFile(Path file, Store store, ShiftedTicker clock) {
    this.file = file;
    this.shifts = shiftsFile(file);
    this.store = store;
    this.clock = clock;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gleaner-fault-file");
      t.setDaemon(true);
      return t;
    });
  }

  /** Where the clock jumps applied from {@code faultFile} are written: FILE.shifts, beside it. */
  public static Path shiftsFile(Path faultFile) {
    return faultFile.resolveSibling(faultFile.getFileName() + ".shifts");
  }

  /** Sets the clock's offset from {@code file} as it is now (before the master starts); faults it cannot read: none. */
  public static void applyClock(Path file, ShiftedTicker clock) {
    try {
      long offset = Faults.parse(Files.readAllLines(file)).clockOffsetMillis();
      if (offset != 0) {
        jump(clock, 0, offset, shiftsFile(file));
      }
    } catch (NoSuchFileException e) {
      clock.offset(0);
    } catch (IOException | IllegalArgumentException e) {
      log.error("fault injection: cannot use {}: {}", file, e.getMessage(), e);
    }
  }

  /** Reads {@code file} now and then four times a second, applying what it asks for to the master. */
  public static FaultFile watch(Path file, MasterServer server, ShiftedTicker clock) {
    FaultFile f = new FaultFile(file, server.store(), clock);
    f.now = new Faults(false, clock.offsetMillis());
    log.warn("fault injection: reading {} (store-full, clock-offset SECONDS)", file);
    f.check();
    f.timer.scheduleWithFixedDelay(f::check, 250, 250, TimeUnit.MILLISECONDS);
    return f;
  }

  private void check() {
    Faults want;
    try {
      want = Faults.parse(Files.readAllLines(file));
      lastError = null;
    } catch (NoSuchFileException e) {
      want = Faults.NONE;
    } catch (IOException | IllegalArgumentException e) {
      String why = file + ": " + e.getMessage();
      if (!why.equals(lastError)) {
        log.error("fault injection: cannot use {}; the faults in force stay as they were", why, e);
        lastError = why;
      }
      return;
    }
    if (want.storeFull() != now.storeFull()) {
      try {
        long pages = store.submit(capPages(want.storeFull() ? 1 : 0)).get(10, TimeUnit.SECONDS);
        log.warn(want.storeFull() ? "fault injection: the store is full (capped at its {} pages)"
            : "fault injection: the store may grow again (it had {} pages)", pages);
      } catch (Exception e) {
        log.error("fault injection: cannot {} the store: {}", want.storeFull() ? "cap" : "uncap", e.toString(), e);
        return;
      }
    }
    if (want.clockOffsetMillis() != now.clockOffsetMillis()) {
      jump(clock, now.clockOffsetMillis(), want.clockOffsetMillis(), shifts);
    }
    now = want;
  }

  /**
   * Caps the store's database at {@code pages} pages (0: SQLite's default, no cap), so that writes
   * needing more fail as on a full disk; returns the pages it had.
   */
  static Store.Op<Long> capPages(long pages) {
    return tx -> {
      long now = tx.one("PRAGMA page_count", r -> r.getLong(1));
      // a PRAGMA's value cannot be bound: it is written into the statement (a number made here)
      tx.one("PRAGMA max_page_count = " + (pages <= 0 ? 1_073_741_823L : Math.max(now, pages)), r -> r.getLong(1));
      return now;
    };
  }

  /**
   * Moves the clock from one offset to another, appends the machine time and the offset to
   * {@code shifts} (what `gleaner chaos` maps the store's times back with) and logs them.
   */
  private static void jump(ShiftedTicker clock, long fromMillis, long toMillis, Path shifts) {
    long machine = clock.offset(toMillis);
    log.warn("fault injection: the wall clock jumps by {} s; from machine time {} ms it is {} ms off",
        (toMillis - fromMillis) / 1000.0, machine, toMillis);
    try {
      Files.writeString(shifts, String.format(Locale.ROOT, "{\"machineMillis\":%d,\"offsetMillis\":%d}\n", machine,
          toMillis), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      log.error("fault injection: cannot record the clock jump in {}: {}", shifts, e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
