package dev.gleaner.common.recovery;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The scheme generators by name, and {@link #best(int)}. */
public final class Schemes {
  /** The name that picks the best available scheme for n. */
  public static final String BEST = "best";

  /** Up to this n, {@link #best(int)} also runs the branch and bound, within {@link #BEST_SEARCH_BUDGET}. */
  public static final int BEST_SEARCHES_UP_TO = 24;

  /**
   * Search nodes {@link #best(int)} gives the branch and bound: about a second at n = 24, enough to
   * finish every n <= 19 and n = 21; otherwise its best find, which is never worse than the others.
   */
  public static final long BEST_SEARCH_BUDGET = 200_000;

  private static final Map<String, SchemeGenerator> BY_NAME = new LinkedHashMap<>();

  static {
    // Order of preference when two schemes have the same worst-case vector.
    for (SchemeGenerator g : List.of(new OptimalScheme(), new ModuloScheme(), new TrapeziumScheme(),
        new GolombScheme(), new GreedyScheme(), new LogScheme(), new IntuitiveScheme())) {
      BY_NAME.put(g.name(), g);
    }
  }

  private Schemes() {}

  /** Every scheme name the command line accepts, {@code best} last. */
  public static List<String> names() {
    List<String> names = new ArrayList<>(BY_NAME.keySet());
    names.add(BEST);
    return names;
  }

  /** The generators, in order of preference. */
  public static List<SchemeGenerator> generators() {
    return List.copyOf(BY_NAME.values());
  }

  /**
   * The generator of that name.
   *
   * @throws IllegalArgumentException naming the known schemes
   */
  public static SchemeGenerator byName(String name) {
    SchemeGenerator g = name == null ? null : BY_NAME.get(name.trim().toLowerCase(Locale.ROOT));
    if (g == null) {
      throw new IllegalArgumentException("unknown recovery scheme '" + name + "'; known: " + String.join(", ", names()));
    }
    return g;
  }

  /** The scheme of that name for n computers; {@code best} picks with {@link #best(int)}. */
  public static RecoveryScheme build(String name, int n) {
    if (n < 2) {
      throw new IllegalArgumentException("a recovery scheme needs at least 2 computers, got " + n);
    }
    if (BEST.equalsIgnoreCase(name == null ? "" : name.trim())) {
      return best(n);
    }
    return byName(name).build(n);
  }

  /**
   * The scheme whose worst-case vector is consecutively smallest among those available for n (the
   * branch and bound only up to {@value #BEST_SEARCHES_UP_TO} computers, within a budget); ties go to the earlier
   * generator. The scheme keeps its generator's name.
   */
  public static RecoveryScheme best(int n) {
    return bestProfile(n).scheme();
  }

  /** The profile of {@link #best(int)}. */
  public static LoadProfile bestProfile(int n) {
    LoadProfile best = null;
    for (SchemeGenerator g : BY_NAME.values()) {
      RecoveryScheme s;
      if (g instanceof OptimalScheme) {
        if (n > BEST_SEARCHES_UP_TO) {
          continue;
        }
        s = new OptimalScheme(BEST_SEARCH_BUDGET).build(n);
      } else {
        s = g.build(n);
      }
      LoadProfile p = WorstCaseLoad.of(s);
      if (best == null || p.consecutivelySmallerThan(best)) {
        best = p;
      }
    }
    return best;
  }
}
