package dev.gleaner.deploy.format;

import java.util.Locale;

/**
 * {@code --concurrent-sends share|fit|N}, as the master, the simulator and the links bench read it:
 * share is 0, fit is -1, a count at least 1 is itself (the values of {@code MasterConfig.SENDS_*} and
 * {@code SimNetwork}).
 */
public final class ConcurrentSends {
  public static final int SHARE = 0;
  public static final int FIT = -1;

  private ConcurrentSends() {}

  /** The mode {@code text} names; anything else is refused in one line naming {@code option}. */
  public static int parse(String option, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("share")) {
      return SHARE;
    }
    if (t.equals("fit")) {
      return FIT;
    }
    if (t.matches("[1-9][0-9]{0,8}")) {
      return Integer.parseInt(t);
    }
    throw new IllegalArgumentException(option + " must be share, fit or a count of at least 1, got '" + text + "'");
  }
}
