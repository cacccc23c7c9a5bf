package dev.gleaner.deploy.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code gleaner bench --closed-loop} reports from the runs of {@link ClosedLoopBench}: per
 * strategy, the mean units committed and the simulator's mean over the same seeds, each with its
 * standard error, and the mean error of the master's forecast from a quarter of the run; then every
 * run.
 */
public final class ClosedLoopReport {
  private ClosedLoopReport() {}

  /** The report as one JSON-able document: {@code strategies} (a row each, in order) and {@code runs}. */
  public static Map<String, Object> of(List<ClosedLoopBench.Run> results, List<String> strategies) {
    Map<String, Object> doc = new LinkedHashMap<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (String s : strategies) {
      double[] real = results.stream().filter(r -> r.strategy().equals(s)).mapToDouble(ClosedLoopBench.Run::committed)
          .toArray();
      double[] sim = results.stream().filter(r -> r.strategy().equals(s)).mapToDouble(ClosedLoopBench.Run::predicted)
          .toArray();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("strategy", s);
      row.put("runs", real.length);
      row.put("meanCommitted", mean(real));
      row.put("stdErr", stdErr(real));
      row.put("meanPredicted", mean(sim));
      row.put("predictedStdErr", stdErr(sim));
      double[] errors = results.stream().filter(r -> r.strategy().equals(s) && !Double.isNaN(r.forecast()))
          .mapToDouble(r -> Math.abs(r.forecastError())).toArray();
      row.put("forecasts", errors.length);
      row.put("meanForecastError", errors.length == 0 ? null : mean(errors));
      rows.add(row);
    }
    doc.put("strategies", rows);
    List<Map<String, Object>> all = new ArrayList<>();
    for (ClosedLoopBench.Run r : results) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("strategy", r.strategy());
      x.put("seed", r.seed());
      x.put("committed", r.committed());
      x.put("predicted", r.predicted());
      x.put("interruptions", r.interruptions());
      x.put("shares", r.shares());
      x.put("forecastAtQuarter", Double.isNaN(r.forecast()) ? null : r.forecast());
      all.add(x);
    }
    doc.put("runs", all);
    return doc;
  }

  /** The table of the strategies, one line each, from a document {@link #of} made. */
  @SuppressWarnings("unchecked")
  public static void print(PrintWriter out, Map<String, Object> doc) {
    out.printf("%-10s %5s %24s %24s %8s %28s%n", "strategy", "runs", "committed (mean +- s.e.)",
        "simulator (same seeds)", "ratio", "forecast at 1/4: mean |error|");
    for (Map<String, Object> row : (List<Map<String, Object>>) doc.get("strategies")) {
      double m = (Double) row.get("meanCommitted");
      double sm = (Double) row.get("meanPredicted");
      Object fe = row.get("meanForecastError");
      out.printf(Locale.ROOT, "%-10s %5d %14.0f +- %7.0f %14.0f +- %7.0f %8.3f %28s%n",
          row.get("strategy"), row.get("runs"), m, (Double) row.get("stdErr"), sm, (Double) row.get("predictedStdErr"),
          m / sm, fe == null ? "none" : String.format(Locale.ROOT, "%.2f%% (%d runs)", 100 * (Double) fe,
              (Integer) row.get("forecasts")));
    }
  }

  private static double mean(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return v.length == 0 ? Double.NaN : s / v.length;
  }

  private static double stdErr(double[] v) {
    if (v.length < 2) {
      return 0;
    }
    double m = mean(v);
    double ss = 0;
    for (double x : v) {
      ss += (x - m) * (x - m);
    }
    return Math.sqrt(ss / (v.length - 1) / v.length);
  }
}
