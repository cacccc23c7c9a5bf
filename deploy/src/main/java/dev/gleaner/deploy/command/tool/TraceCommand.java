package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.DesktopTraceGenerator;
import dev.gleaner.common.trace.DesktopTraceGenerator.Weibull;
import dev.gleaner.common.trace.FtaTraceFormat;
import dev.gleaner.common.trace.OracleForecast;
import dev.gleaner.common.trace.TraceEvent;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.weekend.TraceFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gleaner trace}: make and inspect availability traces. */
@Command(name = "trace", mixinStandardHelpOptions = true,
    description = {"Availability traces in the Failure Trace Archive's tab format: when each computer was lent.", "",
        "  gleaner trace generate --nodes 6 --hours 60 --seed 1 -o desktops.tab",
        "  gleaner trace show desktops.tab",
        "  gleaner trace oracle desktops.tab --at 0.25"},
    subcommands = {TraceCommand.Generate.class, TraceCommand.Show.class, TraceCommand.Oracle.class})
public final class TraceCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a subcommand: generate, show or oracle");
  }

  /** {@code gleaner trace generate}. */
  @Command(name = "generate", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Draw a synthetic desktop trace: each node alternates up and down periods from Weibull fits,"
          + " by default those of the Notre Dame desktops in the Failure Trace Archive (Kondo et al., CCGrid 2010):"
          + " up Weibull(shape 0.45, scale 4.16 h), down Weibull(shape 0.51, scale 0.74 h). Nodes are named 1..N."})
  static final class Generate implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "N", required = true, description = "Nodes (1..100000).")
    int nodes;

    @Option(names = "--hours", paramLabel = "H", required = true, description = "Length of the trace, hours.")
    double hours;

    @Option(names = "--seed", paramLabel = "K", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--up", paramLabel = "SHAPE,SCALE_H", defaultValue = "0.45,4.16",
        description = "Weibull fit of up times, scale in hours (default: ${DEFAULT-VALUE}).")
    String up;

    @Option(names = "--down", paramLabel = "SHAPE,SCALE_H", defaultValue = "0.51,0.74",
        description = "Weibull fit of down times, scale in hours (default: ${DEFAULT-VALUE}).")
    String down;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the trace there (default: stdout).")
    Path output;

    @Override
    public Integer call() throws IOException {
      if (!(hours > 0) || !Double.isFinite(hours) || hours > 1e6) {
        throw new IllegalArgumentException("--hours must be a positive number up to 1000000, got " + hours);
      }
      Weibull upFit = weibull(up, "--up");
      Weibull downFit = weibull(down, "--down");
      List<TraceEvent> events = DesktopTraceGenerator.generate(nodes, hours * 3600, seed, upFit, downFit);
      String text = FtaTraceFormat.format(events, List.of(
          String.format(Locale.ROOT, "gleaner trace generate --nodes %d --hours %s --seed %d --up %s --down %s", nodes,
              TraceFile.number(hours), seed, up, down),
          "synthetic: up and down times drawn from Weibull fits of the Notre Dame desktop trace in the Failure Trace",
          "Archive (Kondo, Javadi, Iosup, Epema, CCGrid 2010) unless --up/--down say otherwise; times in seconds"));
      if (output == null) {
        spec.commandLine().getOut().print(text);
        spec.commandLine().getOut().flush();
      } else {
        Files.writeString(output, text);
        spec.commandLine().getOut().printf("wrote %d events of %d nodes over %s h to %s%n", events.size(), nodes,
            TraceFile.number(hours), output);
      }
      return 0;
    }

    static Weibull weibull(String spec, String option) {
      String[] f = spec.split(",");
      try {
        if (f.length == 2) {
          return new Weibull(Double.parseDouble(f[0].trim()), Double.parseDouble(f[1].trim()) * 3600);
        }
      } catch (NumberFormatException e) {
        // refused below
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(option + " '" + spec + "': " + e.getMessage(), e);
      }
      throw new IllegalArgumentException(option + " must be SHAPE,SCALE_HOURS (two positive numbers), got '" + spec + "'");
    }
  }

  /** {@code gleaner trace show}. */
  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Check a trace file and show each node's up periods: count, hours up, share of the trace.")
  static final class Show implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(paramLabel = "FILE", description = "The trace (FTA tab format).")
    Path file;

    @Option(names = "--json", description = "Print one JSON document on stdout.")
    boolean json;

    @Override
    public Integer call() {
      AvailabilityTrace trace = TraceFile.read(file);
      PrintWriter out = spec.commandLine().getOut();
      double length = trace.length();
      List<Map<String, Object>> rows = new ArrayList<>();
      for (String node : trace.nodes().keySet()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("node", node);
        row.put("upPeriods", trace.up(node).size());
        row.put("upHours", trace.upSeconds(node, length) / 3600);
        row.put("upShare", trace.upSeconds(node, length) / length);
        rows.add(row);
      }
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("origin", trace.origin());
        doc.put("hours", length / 3600);
        doc.put("nodes", rows);
        out.println(StatusView.json(doc));
        return 0;
      }
      out.printf(Locale.ROOT, "%d nodes over %.2f h (origin %s)%n%-12s %10s %10s %8s%n", rows.size(), length / 3600,
          TraceFile.number(trace.origin()), "node", "periods", "hours up", "share");
      for (Map<String, Object> r : rows) {
        out.printf(Locale.ROOT, "%-12s %10d %10.2f %7.1f%%%n", r.get("node"), (Integer) r.get("upPeriods"),
            (Double) r.get("upHours"), 100 * (Double) r.get("upShare"));
      }
      return 0;
    }
  }

  /** {@code gleaner trace oracle}. */
  @Command(name = "oracle", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"The best forecast of a trace's time up that can be made part way through it: an oracle that"
          + " knows the law the trace was drawn from (--up, --down, as for generate) and each node's state and the age"
          + " of its period at that moment expects the rest by drawing it. Its error against the trace is the luck of"
          + " the rest alone: the floor of what any forecast made then (the master's, gleaner simulate's) can be"
          + " expected to reach on that trace."})
  static final class Oracle implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(paramLabel = "FILE", description = "The trace (FTA tab format).")
    Path file;

    @Option(names = "--at", paramLabel = "SHARE", defaultValue = "0.25",
        description = "When the forecast is made, as a share of the trace (default: ${DEFAULT-VALUE}).")
    double at;

    @Option(names = "--hours", paramLabel = "H", description = "Only the first H hours (default: all of the trace).")
    Double hours;

    @Option(names = "--up", paramLabel = "SHAPE,SCALE_H", defaultValue = "0.45,4.16",
        description = "The Weibull law of up times the trace was drawn from, scale in hours"
            + " (default: ${DEFAULT-VALUE}).")
    String up;

    @Option(names = "--down", paramLabel = "SHAPE,SCALE_H", defaultValue = "0.51,0.74",
        description = "That of down times (default: ${DEFAULT-VALUE}).")
    String down;

    @Option(names = "--draws", paramLabel = "N", defaultValue = "20000",
        description = "Draws of the rest of the trace (default: ${DEFAULT-VALUE}).")
    int draws;

    @Option(names = "--seed", paramLabel = "K", defaultValue = "1",
        description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public Integer call() {
      if (!(at >= 0 && at <= 1)) {
        throw new IllegalArgumentException("--at must be a share of the trace between 0 and 1, got " + at);
      }
      Weibull upFit = Generate.weibull(up, "--up");
      Weibull downFit = Generate.weibull(down, "--down");
      AvailabilityTrace trace = TraceFile.read(file);
      double horizon = hours == null ? trace.length() : hours * 3600;
      if (!(horizon > 0) || horizon > trace.length()) {
        throw new IllegalArgumentException("--hours must be positive and at most the trace's "
            + TraceFile.number(trace.length() / 3600) + " h, got " + hours);
      }
      OracleForecast.Result r = OracleForecast.at(trace, horizon, at * horizon, upFit, downFit, draws, seed);
      if (!(r.actual() > 0)) {
        throw new IllegalArgumentException(file + " has no node up within its first " + TraceFile.number(horizon / 3600)
            + " h: there is nothing to forecast");
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf(Locale.ROOT, "%s: %d nodes over %.2f h, %.1f h up in all%n", file, trace.nodes().size(),
          horizon / 3600, r.actual() / 3600);
      out.printf(Locale.ROOT, "at %.2f h, %.1f h up so far; knowing the law (up Weibull(%s h), down Weibull(%s h)) and"
          + " each node's state then, the oracle expects %.1f h up in all (5-95 %%: %.1f to %.1f): error %+.2f%%"
          + " of the actual figure%n", at * horizon / 3600, r.seen() / 3600, up, down, r.mean() / 3600, r.low() / 3600,
          r.high() / 3600, 100 * r.error());
      return 0;
    }
  }
}
