package dev.gleaner.common.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Availability traces in the Failure Trace Archive's tab format: the rows of its
 * {@code event_trace} table, one event a line, nine tab-separated columns.
 *
 * <pre>
 * event_id  component_id  node_id  platform_id  node_name  event_type  event_start_time  event_stop_time  event_end_reason
 * </pre>
 *
 * <p>Read: {@code node_id} (the node, kept as text), {@code event_type} (1 available, 0 not: any
 * other value is refused), {@code event_start_time} and {@code event_stop_time} (seconds, epoch in
 * the archive's files; decimal numbers, stop after start). Checked to be present and otherwise not
 * used: {@code event_id}, {@code component_id}, {@code platform_id}, {@code node_name},
 * {@code event_end_reason} (five columns). A row with other than nine fields is refused, as is a
 * header row whose names differ from the ones above. Blank lines and lines starting with {@code #}
 * (not part of the archive's format; the generator writes its provenance there) are skipped. Every
 * refusal is one line naming the source and the line number.
 *
 * <p>The archive documents these columns in its format page (fta.scem.westernsydney.edu.au,
 * "FTAFormat"); traces of several components of one node must be cut to one component first: two
 * events of one node that overlap are refused.
 */
public final class FtaTraceFormat {
  /** The nine columns of an event_trace row, in order. */
  public static final List<String> COLUMNS = List.of("event_id", "component_id", "node_id", "platform_id",
      "node_name", "event_type", "event_start_time", "event_stop_time", "event_end_reason");

  private static final int NODE_ID = 2;
  private static final int EVENT_TYPE = 5;
  private static final int START = 6;
  private static final int STOP = 7;

  private FtaTraceFormat() {}

  /**
   * The events of a trace's text.
   *
   * @param where what the text was read from (a file name), for the messages
   * @throws IllegalArgumentException one line: where, the line number and what is wrong
   */
  public static List<TraceEvent> events(String text, String where) {
    List<TraceEvent> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    boolean seenRow = false;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int n = i + 1;
      String[] f = line.split("\t", -1);
      if (!seenRow && f[0].trim().equals(COLUMNS.get(0))) {
        seenRow = true;
        for (int c = 0; c < Math.max(f.length, COLUMNS.size()); c++) {
          String got = c < f.length ? f[c].trim() : "(missing)";
          String want = c < COLUMNS.size() ? COLUMNS.get(c) : "(nothing)";
          if (!got.equals(want)) {
            throw new IllegalArgumentException(where + " line " + n + ": header column " + (c + 1) + " is '" + got
                + "', expected '" + want + "' (columns: " + String.join(" ", COLUMNS) + ")");
          }
        }
        continue;
      }
      seenRow = true;
      if (f.length != COLUMNS.size()) {
        throw new IllegalArgumentException(where + " line " + n + ": expected " + COLUMNS.size()
            + " tab-separated fields (" + String.join(" ", COLUMNS) + "), got " + f.length);
      }
      String node = f[NODE_ID].trim();
      if (node.isEmpty()) {
        throw new IllegalArgumentException(where + " line " + n + ": node_id is empty");
      }
      String type = f[EVENT_TYPE].trim();
      if (!type.equals("0") && !type.equals("1")) {
        throw new IllegalArgumentException(where + " line " + n + ": event_type must be 1 (available) or 0 (not),"
            + " got '" + type + "'");
      }
      double start = seconds(f[START], "event_start_time", where, n);
      double stop = seconds(f[STOP], "event_stop_time", where, n);
      if (!(stop > start)) {
        throw new IllegalArgumentException(where + " line " + n + ": event_stop_time " + f[STOP].trim()
            + " is not after event_start_time " + f[START].trim());
      }
      out.add(new TraceEvent(node, type.equals("1"), start, stop, n));
    }
    return out;
  }

  /** The trace of a text: {@link #events} then {@link AvailabilityTrace#of}. */
  public static AvailabilityTrace parse(String text, String where) {
    return AvailabilityTrace.of(events(text, where), where);
  }

  private static double seconds(String field, String column, String where, int line) {
    String s = field.trim();
    try {
      double v = Double.parseDouble(s);
      if (Double.isFinite(v) && !s.isEmpty() && Character.isDigit(s.charAt(s.length() - 1))) {
        return v;
      }
    } catch (NumberFormatException e) {
      // refused below with the line
    }
    throw new IllegalArgumentException(where + " line " + line + ": " + column + " must be a number of seconds, got '"
        + s + "'");
  }

  /**
   * The events as rows of the format, with the header; {@code comments} go first, each behind
   * {@code # }. Event ids count from 1, component_id and platform_id are 0, node_name is the node
   * id, event_end_reason is 0.
   */
  public static String format(List<TraceEvent> events, List<String> comments) {
    StringBuilder sb = new StringBuilder();
    for (String c : comments) {
      sb.append("# ").append(c).append('\n');
    }
    sb.append(String.join("\t", COLUMNS)).append('\n');
    long id = 1;
    for (TraceEvent e : events) {
      sb.append(id++).append("\t0\t").append(e.node()).append("\t0\t").append(e.node()).append('\t')
          .append(e.available() ? 1 : 0).append('\t').append(number(e.start())).append('\t')
          .append(number(e.stop())).append("\t0\n");
    }
    return sb.toString();
  }

  /** Seconds to the millisecond, without a trailing ".000". */
  private static String number(double v) {
    String s = String.format(Locale.ROOT, "%.3f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
