package dev.gleaner.master.store;

/** What a failed store write says to people: a full disk named as such, the store's own words beside it. */
public final class StoreErrors {
  private StoreErrors() {}

  /** The store's own failure inside the wrapper of the future that carried it. */
  public static Throwable cause(Throwable err) {
    return err.getCause() != null ? err.getCause() : err;
  }

  /**
   * The reason of a failed write for a job's message and the log: {@code the disk of the data folder
   * is full ([SQLITE_FULL] ...)} when SQLite found no room, else the store's message.
   */
  public static String reason(Throwable cause) {
    String message = cause.getMessage() == null ? cause.toString() : cause.getMessage();
    return full(cause) ? "the disk of the data folder is full (" + message + ")" : message;
  }

  /** Whether the write failed for want of room (SQLITE_FULL), anywhere in its causes. */
  public static boolean full(Throwable cause) {
    // bounded: a cycle of causes cannot keep it going
    Throwable t = cause;
    for (int i = 0; i < 20 && t != null; i++) {
      if (t.getMessage() != null && t.getMessage().contains("SQLITE_FULL")) {
        return true;
      }
      t = t.getCause();
    }
    return false;
  }
}
