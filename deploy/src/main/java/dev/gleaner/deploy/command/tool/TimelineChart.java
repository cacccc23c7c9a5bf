package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Timeline;
import java.util.Locale;
import java.util.Map;

/**
 * A plan's timeline as SVG, one line per worker as in the papers' figures: waiting (grey),
 * receiving (blue), computing (green, one shade per chunk), a tick at each checkpoint, and for
 * workers at linear risk the time by which they are surely down (red).
 */
final class TimelineChart {
  private static final int LEFT = 110;
  private static final int WIDTH = 900;
  private static final int ROW = 26;
  private static final int TOP = 46;

  private TimelineChart() {}

  static String svg(Plan plan, Platform platform, PlanRequest request) {
    Map<String, Worker> byId = platform.byId();
    double end = Math.max(plan.timeline().makespan(), request.hasDeadline() ? request.deadline() : 0);
    end = end > 0 ? end * 1.04 : 1;
    int rows = plan.timeline().lanes().size();
    int height = TOP + rows * ROW + 50;
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
        + " font-family=\"sans-serif\" font-size=\"12\">%n", LEFT + WIDTH + 20, height));
    b.append(String.format(Locale.ROOT, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n"));
    b.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"18\" font-size=\"14\">%s: expected work %.6g of %d units</text>%n",
        escape(plan.strategy()), plan.expectedWork(), request.units()));
    b.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"34\" fill=\"#555\">grey waiting, blue receiving, green"
        + " computing (ticks: checkpoints), red: surely interrupted by then</text>%n"));
    double scale = WIDTH / end;
    int y = TOP;
    for (Timeline.Lane lane : plan.timeline().lanes()) {
      b.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\">%s</text>%n", y + 15, escape(lane.worker())));
      double first = lane.receiving().isEmpty() ? 0 : lane.receiving().get(0).from();
      rect(b, 0, first, y, scale, "#dddddd");
      for (Timeline.Interval r : lane.receiving()) {
        rect(b, r.from(), r.to(), y, scale, "#4a7fd4");
      }
      int shade = 0;
      for (Timeline.Piece p : lane.pieces()) {
        rect(b, p.start(), p.saved(), y, scale, shade++ % 2 == 0 ? "#3f9d5a" : "#6cc484");
        double x = LEFT + p.saved() * scale;
        b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>%n",
            x, y + 1, x, y + ROW - 5));
      }
      Worker w = byId.get(lane.worker());
      if (w != null && w.risk() > 0 && request.risk() == RiskModel.LINEAR && 1 / w.risk() <= end) {
        double x = LEFT + scale / w.risk();
        b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d43a3a\""
            + " stroke-width=\"3\"/>%n", x, y - 2, x, y + ROW - 2));
      }
      y += ROW;
    }
    if (request.hasDeadline()) {
      double x = LEFT + request.deadline() * scale;
      b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d43a3a\""
          + " stroke-dasharray=\"5,4\"/><text x=\"%.1f\" y=\"%d\" fill=\"#d43a3a\">deadline</text>%n",
          x, TOP - 4, x, y, x + 3, TOP - 6));
    }
    // time axis
    b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
        LEFT, y + 4, LEFT + WIDTH, y + 4));
    double step = niceStep(end / 8);
    for (double t = 0; t <= end; t += step) {
      double x = LEFT + t * scale;
      b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>"
          + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x, y + 4, x, y + 9, x, y + 24, label(t)));
    }
    b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">seconds</text>%n", LEFT + WIDTH, y + 40));
    b.append("</svg>\n");
    return b.toString();
  }

  private static void rect(StringBuilder b, double from, double to, int y, double scale, String color) {
    if (to <= from) {
      return;
    }
    b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>%n",
        LEFT + from * scale, y, Math.max(0.5, (to - from) * scale), ROW - 6, color));
  }

  static double niceStep(double raw) {
    double p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= raw) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String label(double t) {
    return t == Math.rint(t) ? Long.toString((long) t) : String.format(Locale.ROOT, "%.3g", t);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
