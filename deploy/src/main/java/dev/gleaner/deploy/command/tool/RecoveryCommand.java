package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.recovery.LoadProfile;
import dev.gleaner.common.recovery.OptimalScheme;
import dev.gleaner.common.recovery.RecoveryScheme;
import dev.gleaner.common.recovery.SchemeGenerator;
import dev.gleaner.common.recovery.Schemes;
import dev.gleaner.common.recovery.WorstCaseLoad;
import dev.gleaner.deploy.client.StatusView;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gleaner recovery}: static recovery schemes, their worst-case load and the thesis's tables. */
@Command(name = "recovery", mixinStandardHelpOptions = true,
    header = "Show a static recovery scheme and its worst-case loads.", sortOptions = false,
    description = {"Show a static recovery scheme: where a failed computer's work goes, its worst-case load"
        + " after k crashes against the bound MV, and how many crashes keep it optimal.", "",
        "  gleaner recovery --n 12 --scheme best",
        "  gleaner recovery --n 6 --list 1,3,5,4,2 --json",
        "  gleaner recovery --table --from 4 --to 64 --svg schemes.svg"})
public final class RecoveryCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--n", paramLabel = "N", description = "Number of computers.")
  Integer n;

  @Option(names = "--scheme", paramLabel = "NAME", description = "intuitive, log, greedy, golomb, modulo, trapezium,"
      + " optimal or best (default: ${DEFAULT-VALUE}).", defaultValue = "best")
  String scheme;

  @Option(names = "--list", paramLabel = "R1,R2,...", split = ",",
      description = "Computer 0's list, as 1,3,5 or in the thesis' notation 0,1,3,5 (starting with the failed"
          + " computer itself); the others are its shifts (a regular scheme), missing computers appended.")
  int[] list;

  @Option(names = "--processes", paramLabel = "P", defaultValue = "1",
      description = "Processes per computer, each with its own list (default: ${DEFAULT-VALUE}).")
  int processes;

  @Option(names = "--crashes", paramLabel = "K", description = "Evaluate L(n,k) for k = 1..K (default: every k up"
      + " to n = 32; beyond, up to the first k above MV or 60).")
  Integer crashes;

  @Option(names = "--budget", paramLabel = "NODES", description = "Search nodes for --scheme optimal"
      + " (default: ${DEFAULT-VALUE}).", defaultValue = "2000000000")
  long budget;

  @Option(names = "--table", description = "For each n from --from to --to, how many crashes each scheme keeps optimal.")
  boolean table;

  @Option(names = "--from", paramLabel = "A", defaultValue = "4", description = "First n of --table.")
  int from;

  @Option(names = "--to", paramLabel = "B", defaultValue = "40", description = "Last n of --table.")
  int to;

  @Option(names = "--svg", paramLabel = "FILE", description = "With --table: draw the curves to this SVG file.")
  Path svg;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (table) {
      return table(out);
    }
    if (svg != null) {
      throw new IllegalArgumentException("--svg draws the --table; add --table --from A --to B");
    }
    if (n == null) {
      throw new IllegalArgumentException("say how many computers with --n N (or use --table)");
    }
    if (n < 2) {
      throw new IllegalArgumentException("--n must be at least 2, got " + n);
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("n", n);
    RecoveryScheme s;
    Map<String, Object> search = new LinkedHashMap<>();
    int guaranteed = -1;
    String summary = "computer 0's list as given, the others its shifts";
    if (list != null) {
      // the thesis writes list 0 with the failed computer first: 0,1,3,5,4,2
      int[] head = list.length > 0 && list[0] == 0 ? Arrays.copyOfRange(list, 1, list.length) : list;
      s = RecoveryScheme.regular("list", n, head);
    } else if (scheme.trim().equalsIgnoreCase("optimal")) {
      OptimalScheme.Result r = new OptimalScheme(budget).search(n);
      s = r.scheme();
      summary = Schemes.byName("optimal").summary();
      search.put("exhaustive", r.exhaustive());
      search.put("searchNodes", r.nodes());
    } else {
      s = Schemes.build(scheme, n);
      SchemeGenerator g = Schemes.byName(s.name());
      summary = g.summary();
      guaranteed = g instanceof OptimalScheme ? -1 : g.guaranteed(n);
    }
    s = s.withProcesses(processes);
    LoadProfile p = crashes == null ? WorstCaseLoad.of(s) : WorstCaseLoad.of(s, crashes);
    doc.put("scheme", s.name());
    doc.put("processes", processes);
    doc.putAll(search);
    List<int[]> lists = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < processes; j++) {
        lists.add(s.list(i, j));
      }
    }
    doc.put("lists", lists);
    doc.put("worstCaseLoad", loads(p.worst()));
    doc.put("bound", loads(p.bound()));
    doc.put("optimalUpTo", p.optimalUpTo());
    doc.put("complete", p.complete());
    if (guaranteed >= 0 && processes == 1) {
      doc.put("paperGuarantee", guaranteed);
    }
    if (json) {
      out.println(StatusView.json(doc));
    } else {
      human(out, s, p, doc, summary);
    }
    return 0;
  }

  private Object loads(int[] processCounts) {
    if (processes == 1) {
      return processCounts;
    }
    return Arrays.stream(processCounts).mapToDouble(c -> c / (double) processes).toArray();
  }

  private void human(PrintWriter out, RecoveryScheme s, LoadProfile p, Map<String, Object> doc, String summary) {
    out.printf("scheme %s for %d computers%s: %s%n", s.name(), n, processes > 1 ? ", " + processes + " processes each" : "",
        summary);
    if (doc.containsKey("exhaustive")) {
      out.println((Boolean) doc.get("exhaustive")
          ? "  exhaustive search finished: consecutively optimal"
          : "  search budget ran out: best found, not proven optimal (raise --budget)");
    }
    int shown = Math.min(n, 16);
    for (int i = 0; i < shown; i++) {
      for (int j = 0; j < processes; j++) {
        out.printf("  %s %s%n", processes > 1 ? i + "." + j + ":" : i + ":", brief(s.list(i, j)));
      }
    }
    if (shown < n) {
      out.printf("  ... (%d more; each list is computer 0's shifted)%n", n - shown);
    }
    out.println();
    out.printf("%8s %10s %10s%n", "crashes", "worst", "bound MV");
    for (int k = 1; k <= p.worst().length; k++) {
      out.printf("%8d %10s %10s%s%n", k, fmt(p.worst()[k - 1]), fmt(p.bound()[k - 1]),
          p.worst()[k - 1] > p.bound()[k - 1] ? "   above the bound" : "");
    }
    out.printf("%noptimal (L = MV) up to %d crash%s%s%n", p.optimalUpTo(), p.optimalUpTo() == 1 ? "" : "es",
        p.optimalBeyondHorizon() ? " or more (evaluation stopped there; raise --crashes)" : "");
    if (doc.containsKey("paperGuarantee")) {
      out.printf("the papers' theorem for this construction guarantees %d%n", (Integer) doc.get("paperGuarantee"));
    }
  }

  private String fmt(int processCount) {
    return processes == 1 ? Integer.toString(processCount)
        : String.format(Locale.ROOT, "%.2f", processCount / (double) processes);
  }

  private static String brief(int[] l) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < l.length; i++) {
      if (i == 24) {
        b.append(" ...");
        break;
      }
      b.append(i == 0 ? "" : " ").append(l[i]);
    }
    return b.toString();
  }

  private int table(PrintWriter out) throws IOException {
    if (from < 2 || to < from) {
      throw new IllegalArgumentException("--table needs 2 <= --from <= --to, got " + from + ".." + to);
    }
    List<String> names = new ArrayList<>();
    for (SchemeGenerator g : Schemes.generators()) {
      names.add(g.name());
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int m = from; m <= to; m++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("n", m);
      Map<String, Object> exact = new LinkedHashMap<>();
      Map<String, Object> paper = new LinkedHashMap<>();
      for (SchemeGenerator g : Schemes.generators()) {
        if (g instanceof OptimalScheme && m > Schemes.BEST_SEARCHES_UP_TO) {
          continue;
        }
        RecoveryScheme s = g.build(m);
        LoadProfile p = crashes == null ? WorstCaseLoad.of(s) : WorstCaseLoad.untilAboveBound(s, crashes);
        exact.put(g.name(), p.optimalUpTo());
        if (!(g instanceof OptimalScheme)) {
          paper.put(g.name(), g.guaranteed(m));
        }
      }
      row.put("optimalUpTo", exact);
      row.put("paperGuarantee", paper);
      rows.add(row);
    }
    if (svg != null) {
      Files.writeString(svg, SchemeChart.svg(rows, names));
    }
    if (json) {
      out.println(StatusView.json(Map.of("rows", rows)));
      return 0;
    }
    out.println("crashes each scheme keeps optimal (L = MV): exact, and in brackets what the papers' theorem guarantees");
    out.printf("%5s", "n");
    for (String name : names) {
      out.printf(" %15s", name);
    }
    out.println();
    for (Map<String, Object> row : rows) {
      out.printf("%5d", (Integer) row.get("n"));
      @SuppressWarnings("unchecked")
      Map<String, Object> exact = (Map<String, Object>) row.get("optimalUpTo");
      @SuppressWarnings("unchecked")
      Map<String, Object> paper = (Map<String, Object>) row.get("paperGuarantee");
      for (String name : names) {
        Object e = exact.get(name);
        Object g = paper.get(name);
        out.printf(" %15s", e == null ? "-" : g == null ? e.toString() : e + " (" + g + ")");
      }
      out.println();
    }
    if (svg != null) {
      out.println("chart written to " + svg);
    }
    return 0;
  }
}
