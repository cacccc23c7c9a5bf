package dev.gleaner.common.control.decide;

import dev.gleaner.common.recovery.RecoveryScheme;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The order of a job's workers in its recovery scheme when some sit behind relays: the workers behind
 * one relay are lost together when it is, so each worker's successors on its recovery list (the
 * scheme's entries for its place) are put outside its relay's subtree where they can be. Otherwise a
 * whole site's lists would lead to the same few workers outside it, and its work would pile up there,
 * which is what the thesis's schemes are built to avoid.
 *
 * <p>The order first deals the sites out in turn (a worker straight on the master is a site of its
 * own), then swaps pairs of places while that lowers the clashes (a worker and its first successor at
 * one site weigh most, then its second, then its third), from that order and, while some first
 * successor is still at home, from a few seeded shuffles of it, keeping the best. A job of more than
 * {@link #SEARCH_UP_TO} workers keeps the dealt order.
 */
public final class SiteSpread {
  /** Past this many workers no swap is tried (n^3 work per start, on the control thread): the dealt order stays. */
  static final int SEARCH_UP_TO = 40;
  /** The successors a clash is counted for, nearest first. */
  static final int DEPTH = 3;
  /** Passes over every pair of places, at most. */
  private static final int PASSES = 20;
  /** Starts from seeded shuffles of the dealt order, beside the dealt order itself. */
  static final int RESTARTS = 8;

  private SiteSpread() {}

  /**
   * The workers {@code ids} (in the plan's order) reordered for {@code scheme}, given each one's relay
   * ({@code relayOf}: "" or absent for one on the master directly). With no relay named, the order
   * is kept as it is.
   */
  public static List<String> order(List<String> ids, Map<String, String> relayOf, RecoveryScheme scheme) {
    if (ids.size() < 3 || ids.stream().allMatch(id -> relayOf.getOrDefault(id, "").isEmpty())) {
      return ids;
    }
    List<String> order = dealt(ids, relayOf);
    if (ids.size() > SEARCH_UP_TO || scheme == null || scheme.n() != ids.size()) {
      return order;
    }
    // swaps from the dealt order, and from a few seeded shuffles of it: a swap alone can stall short of
    // the best order (a chain of three must move at once), another start seldom does
    String[] best = null;
    long bestClashes = Long.MAX_VALUE;
    java.util.Random random = new java.util.Random(ids.size());
    long firstOutside = weight(ids.size(), 0);
    // once every first successor is outside its site, another start is not worth its time
    for (int start = 0; start <= RESTARTS && bestClashes >= firstOutside; start++) {
      List<String> from = new ArrayList<>(order);
      if (start > 0) {
        java.util.Collections.shuffle(from, random);
      }
      String[] at = from.toArray(String[]::new);
      long c = improve(at, relayOf, scheme);
      if (c < bestClashes) {
        bestClashes = c;
        best = at;
      }
    }
    return List.of(best);
  }

  /** Swaps pairs of places in {@code at} while that lowers the clashes; the clashes left. */
  private static long improve(String[] at, Map<String, String> relayOf, RecoveryScheme scheme) {
    String[] site = new String[at.length];
    for (int i = 0; i < at.length; i++) {
      site[i] = site(at[i], relayOf);
    }
    long best = clashes(site, scheme);
    for (int pass = 0; pass < PASSES && best > 0; pass++) {
      boolean better = false;
      for (int a = 0; a < at.length; a++) {
        for (int b = a + 1; b < at.length; b++) {
          if (site[a].equals(site[b])) {
            continue;
          }
          swap(at, site, a, b);
          long c = clashes(site, scheme);
          if (c < best) {
            best = c;
            better = true;
          } else {
            swap(at, site, a, b);
          }
        }
      }
      if (!better) {
        break;
      }
    }
    return best;
  }

  /** The sites dealt out in turn, each site's workers in their order; sites in the order they first come. */
  static List<String> dealt(List<String> ids, Map<String, String> relayOf) {
    Map<String, List<String>> bySite = new LinkedHashMap<>();
    for (String id : ids) {
      bySite.computeIfAbsent(site(id, relayOf), k -> new ArrayList<>()).add(id);
    }
    List<String> out = new ArrayList<>(ids.size());
    for (int round = 0; out.size() < ids.size(); round++) {
      for (List<String> members : bySite.values()) {
        if (round < members.size()) {
          out.add(members.get(round));
        }
      }
    }
    return out;
  }

  /**
   * The clashes of an order, weighted: a worker whose k-th successor sits at its site counts
   * (n+1)^(DEPTH-1-k), more than all n workers clashing on every successor further down, so fewer
   * clashes on first successors always win.
   */
  static long clashes(String[] site, RecoveryScheme scheme) {
    int n = site.length;
    int depth = Math.min(DEPTH, n - 1);
    long total = 0;
    for (int k = 0; k < depth; k++) {
      long weight = weight(n, k);
      for (int i = 0; i < n; i++) {
        if (site[i].equals(site[scheme.at(i, k)])) {
          total += weight;
        }
      }
    }
    return total;
  }

  /** What a clash on the k-th successor weighs among n workers: more than all the clashes further down. */
  static long weight(int n, int k) {
    int depth = Math.min(DEPTH, n - 1);
    long weight = 1;
    for (int e = k + 1; e < depth; e++) {
      weight *= n + 1;
    }
    return weight;
  }

  /** A worker's site: its relay, or itself when it is on the master directly. */
  private static String site(String id, Map<String, String> relayOf) {
    String r = relayOf.getOrDefault(id, "");
    return r.isEmpty() ? "\0" + id : r;
  }

  private static void swap(String[] at, String[] site, int a, int b) {
    String t = at[a];
    at[a] = at[b];
    at[b] = t;
    t = site[a];
    site[a] = site[b];
    site[b] = t;
  }
}
