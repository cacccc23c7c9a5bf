package dev.gleaner.common.port;

import java.util.Locale;

/**
 * How the master's port sends chunk input ({@code --concurrent-sends share|fit|N}), one code for the
 * master, the simulator and the tools that start either: {@link #SHARE} every stream at once, sharing
 * the egress as TCP shares it; {@link #FIT} the streams whose links fit in the egress ({@link PortRule});
 * a count at least 1, that many links at a time (1: the papers' one port).
 */
public final class Sends {
  public static final int SHARE = 0;
  public static final int FIT = -1;

  private Sends() {}

  /** Whether {@code sends} is one of the codes above. */
  public static boolean valid(int sends) {
    return sends >= FIT;
  }

  /**
   * The port as a plan should assume it, the egress being as {@code egress} (the estimator's rule)
   * says: streams that fit in it, whether they fit it here ({@code fit}) or share it ({@code share}: the
   * egress bounds them all the same), never counting on the port's one try past a floor; with a count,
   * that many links at once within the egress (1: the papers' one port).
   */
  public static PortRule planRule(int sends, PortRule egress) {
    if (sends == FIT || sends == SHARE) {
      return new PortRule(egress.maxStreams(), egress.budget(), false);
    }
    return sends == 1 ? PortRule.ONE_PORT : new PortRule(sends, egress.budget(), false);
  }

  /**
   * Whether the port keeps a worker's streams in the plan's order, each waiting for its worker's word
   * that the one before arrived: with a count, and in {@code fit} for a plan's chunks ({@code ranked});
   * else ({@code share}, and {@code fit} for chunks to whoever is free) a worker's next stream follows
   * the one before once that one is all written.
   */
  public static boolean keepsOrder(int sends, boolean ranked) {
    return sends == FIT ? ranked : sends != SHARE;
  }

  /** The code {@code text} names; anything else is refused in one line naming {@code option}. */
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
