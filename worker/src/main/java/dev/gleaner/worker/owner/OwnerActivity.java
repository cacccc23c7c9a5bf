package dev.gleaner.worker.owner;

import java.io.IOException;
import java.time.Instant;

/**
 * One way of seeing whether the computer's owner is using it: input devices, logins, other
 * processes' load, a file. The {@link OwnerPolicy} combines what its sources see.
 */
public interface OwnerActivity {
  /** What this source looks at, for the worker's log. */
  String name();

  /**
   * What this source sees at {@code now}; called every poll, from one thread.
   *
   * @throws IOException when what it reads cannot be read (the policy logs it and counts the owner as present)
   */
  Observation observe(Instant now) throws IOException;

  /**
   * One look at the owner.
   *
   * @param lastInput the last time this source saw the owner use the computer (now, while it does);
   *     null when it has not seen it
   * @param load CPU cores kept busy by processes other than this worker's; NaN when not measured
   * @param detail what it saw, for the log and the master ("keyboard or mouse input", "alice on pts/0")
   */
  record Observation(Instant lastInput, double load, String detail) {
    public static Observation nothing() {
      return new Observation(null, Double.NaN, "");
    }

    public static Observation input(Instant at, String detail) {
      return new Observation(at, Double.NaN, detail);
    }

    public static Observation load(double cores, String detail) {
      return new Observation(null, cores, detail);
    }
  }
}
