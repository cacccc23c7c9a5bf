package dev.gleaner.deploy.command.tool;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The curves of the thesis's Figures 4, 6 and 7: crashes kept optimal as a function of n. */
final class SchemeChart {
  private static final String[] COLORS = {"#000000", "#d62728", "#2ca02c", "#1f77b4", "#ff7f0e", "#9467bd", "#8c564b"};

  private SchemeChart() {}

  @SuppressWarnings("unchecked")
  static String svg(List<Map<String, Object>> rows, List<String> names) {
    int w = 760;
    int h = 440;
    int left = 60;
    int right = 150;
    int top = 30;
    int bottom = 50;
    int minN = (Integer) rows.get(0).get("n");
    int maxN = (Integer) rows.get(rows.size() - 1).get("n");
    int maxY = 1;
    for (Map<String, Object> row : rows) {
      for (Object v : ((Map<String, Object>) row.get("optimalUpTo")).values()) {
        maxY = Math.max(maxY, (Integer) v);
      }
    }
    double sx = (w - left - right) / (double) Math.max(1, maxN - minN);
    double sy = (h - top - bottom) / (double) maxY;
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
        + " font-family=\"sans-serif\" font-size=\"12\">%n", w, h));
    b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\">Crashes kept optimal (L = MV), exact (solid) and"
        + " guaranteed by the papers' theorems (dashed)</text>%n", left));
    int x0 = left;
    int y0 = h - bottom;
    b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", x0, y0, w - right, y0));
    b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", x0, y0, x0, top));
    for (int i = 0; i <= 5; i++) {
      int nv = minN + (maxN - minN) * i / 5;
      int yv = maxY * i / 5;
      b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
          x0 + (nv - minN) * sx, y0 + 18, nv));
      b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>%n",
          x0 - 6, y0 - yv * sy + 4, yv));
    }
    b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">computers n</text>%n",
        (x0 + w - right) / 2, h - 12));
    for (int s = 0; s < names.size(); s++) {
      String name = names.get(s);
      String color = COLORS[s % COLORS.length];
      for (String key : List.of("optimalUpTo", "paperGuarantee")) {
        StringBuilder pts = new StringBuilder();
        for (Map<String, Object> row : rows) {
          Object v = ((Map<String, Object>) row.get(key)).get(name);
          if (v != null) {
            pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x0 + ((Integer) row.get("n") - minN) * sx,
                y0 - (Integer) v * sy));
          }
        }
        if (pts.length() > 0) {
          b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"%s\"/>%n",
              color, key.equals("paperGuarantee") ? " stroke-dasharray=\"4 3\"" : "", pts.toString().trim()));
        }
      }
      b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>%n", w - right + 10,
          top + 16 * s + 10, color, name));
    }
    b.append("</svg>\n");
    return b.toString();
  }
}
