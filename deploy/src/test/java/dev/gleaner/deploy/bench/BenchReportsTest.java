package dev.gleaner.deploy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code gleaner bench} prints from figures it was given (nothing is measured here): the
 * closed loop's table per strategy and the loopback figures beside their limits.
 */
class BenchReportsTest {
  private static String printed(java.util.function.Consumer<PrintWriter> print) {
    StringWriter out = new StringWriter();
    PrintWriter w = new PrintWriter(out);
    print.accept(w);
    w.flush();
    return out.toString();
  }

  @Test
  void theClosedLoopReportHasAMeanAndStandardErrorPerStrategyAndEveryRun() {
    List<ClosedLoopBench.Run> runs = List.of(
        new ClosedLoopBench.Run("auto", 1, 1000, 1100, 2, Map.of("a", 1000L), 1050),
        new ClosedLoopBench.Run("self", 1, 800, 900, 2, Map.of("a", 800L), Double.NaN),
        new ClosedLoopBench.Run("auto", 2, 1200, 1100, 0, Map.of("a", 1200L), 1140));
    Map<String, Object> doc = ClosedLoopReport.of(runs, List.of("auto", "self"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("strategies");
    assertEquals(2, rows.get(0).get("runs"));
    assertEquals(1100.0, (Double) rows.get(0).get("meanCommitted"), 1e-9);
    assertEquals(100.0, (Double) rows.get(0).get("stdErr"), 1e-9);
    assertEquals(0.0, (Double) rows.get(0).get("predictedStdErr"), 1e-9);
    assertEquals(0.05, (Double) rows.get(0).get("meanForecastError"), 1e-9);
    assertEquals(0, rows.get(1).get("forecasts"));
    assertNull(rows.get(1).get("meanForecastError"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> all = (List<Map<String, Object>>) doc.get("runs");
    assertEquals(3, all.size());
    assertNull(all.get(1).get("forecastAtQuarter"));

    assertEquals(String.format("%-10s %5s %24s %24s %8s %28s%n", "strategy", "runs", "committed (mean +- s.e.)",
        "simulator (same seeds)", "ratio", "forecast at 1/4: mean |error|")
        + "auto           2           1100 +-     100           1100 +-       0    1.000               5.00% (2 runs)\n"
        + "self           1            800 +-       0            900 +-       0    0.889                         none\n",
        printed(out -> ClosedLoopReport.print(out, doc)).replace(System.lineSeparator(), "\n"));
  }

  @Test
  void theLoopbackFiguresStandBesideTheirLimits() {
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("cores", 2);
    figures.put("roundTripsPerSecond_16workers", 9000.0);
    figures.put("limitSqliteCommitMillisMedian", 0.5);
    assertEquals("cores                                2            \n"
        + "roundTripsPerSecond_16workers        9000.000     limit: one SQLite commit 0.50 ms (2000 serial commits/s)\n"
        + "limitSqliteCommitMillisMedian        0.500        \n",
        printed(out -> LoopbackBench.print(out, figures)).replace(System.lineSeparator(), "\n"));
  }
}
