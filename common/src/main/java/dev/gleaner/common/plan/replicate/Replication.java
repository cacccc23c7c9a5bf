package dev.gleaner.common.plan.replicate;

/** Choosing the number of chunks of a group schedule (paper 000, Section 5.3). */
public final class Replication {
  private Replication() {}

  /**
   * Theorem 6: with a per-chunk cost eps, a slice of sl units in n chunks on g identical computers of
   * linear risk kappa expects sl / (sl + n eps) times the free-initiation expectation of a slice of
   * sl + n eps (each chunk then takes sl/n + eps). Needs (sl + n eps) kappa &lt;= 1.
   */
  public static double charged(int[][] chart, double sl, double kappa, double eps) {
    int n = chart.length * chart[0].length;
    return sl / (sl + n * eps) * GroupSchedule.expected(chart, sl + n * eps, kappa);
  }

  /**
   * The number of chunks n = g m maximising {@link #charged} for the schedule kind, by binary search
   * on m in [1, X / (g eps)] comparing m with m + 1 (the paper assumes the expectation unimodal in
   * n). With eps = 0 more chunks always help; then n = g * maxGroups.
   */
  public static int chunkCount(GroupSchedule.Kind kind, int g, double sl, double kappa, double eps, int maxGroups) {
    int hi = eps > 0 ? (int) Math.max(1, Math.min(maxGroups, Math.floor((1 / kappa - sl) / (g * eps)))) : maxGroups;
    int lo = 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (value(kind, g, sl, kappa, eps, mid + 1) > value(kind, g, sl, kappa, eps, mid)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return g * lo;
  }

  static double value(GroupSchedule.Kind kind, int g, double sl, double kappa, double eps, int groups) {
    return charged(GroupSchedule.chart(kind, g, g * groups), sl, kappa, eps);
  }
}
