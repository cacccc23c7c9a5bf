package dev.gleaner.master.net.port;

import dev.gleaner.common.estimate.Estimator;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * What the workers' paces ({@code InputPace}) tell the port of their links: which links were on the
 * wire when, so whether the others could explain a slow pace as a share of the egress; and the runs
 * of paces far below a link that show it was cut. Links are the port's connections. Guarded by the
 * port's lock.
 */
final class Paces {
  /** Paces in a row far below a link that show it was cut (the estimator's run for a drop). */
  static final int SLOW_RUN = 3;
  /**
   * How far back the links on the wire are kept: longer than any pace's span. A crowded transfer that
   * began before that is taken for a share ({@link #fairShare} is NaN), never for a measure of its link.
   */
  static final double LOG_SECONDS = 10;

  /** The links on the wire from {@code since} (seconds of the port's clock) on, at their rates then. */
  private record OnWire(double since, Map<Object, Double> links) { }

  /** Oldest first; the oldest began at or before {@link #LOG_SECONDS} ago. */
  private final ArrayDeque<OnWire> log = new ArrayDeque<>();
  /** Each link's last paces far below it, in a row. */
  private final Map<Object, Run> runs = new HashMap<>();

  /** From {@code now} on these links are on the wire, at these rates (bytes/s; NaN: not known). */
  void onWire(double now, Map<?, Double> links) {
    OnWire last = log.peekLast();
    if (last != null && last.links().keySet().equals(links.keySet())) {
      return;
    }
    log.add(new OnWire(now, Map.copyOf(links)));
    while (log.size() > 1) {
      OnWire oldest = log.removeFirst();
      if (log.peekFirst().since() > now - LOG_SECONDS) {
        log.addFirst(oldest);
        break;
      }
    }
  }

  /**
   * The least share of {@code egress} that {@code link} would have had beside the links on the wire at
   * any time since {@code from}, all at once, each taking at most its rate, bytes/s: the level that
   * fills the egress, where streams that share it settle (TCP's fair share of the master's queue; a
   * link below the level takes its rate, the others the level). A stream that came well below it was
   * held by its own link, not by the egress. At least what the others' rates leave of the egress (more
   * when one of them is above the level: it takes no more than the rest). Infinite when there were
   * none; NaN when the egress or one of their rates is not known, or the log does not reach back to
   * {@code from}.
   */
  double fairShare(Object link, double from, double egress) {
    Map<Object, Double> others = new HashMap<>();
    boolean reached = false;
    for (Iterator<OnWire> it = log.descendingIterator(); it.hasNext() && !reached; ) {
      OnWire w = it.next();
      w.links().forEach((other, rate) -> {
        if (other != link) {
          others.merge(other, rate, (x, y) -> Double.isNaN(x) || Double.isNaN(y) ? Double.NaN : Math.max(x, y));
        }
      });
      reached = w.since() <= from;
    }
    if (!reached) {
      return Double.NaN;
    }
    if (others.isEmpty()) {
      return Double.POSITIVE_INFINITY;
    }
    double[] rates = others.values().stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (!(egress > 0) || Double.isNaN(rates[rates.length - 1])) {
      return Double.NaN;
    }
    // the thinnest links take their rates while they are below an even share of what is left
    double left = egress;
    int sharing = rates.length + 1;
    for (double rate : rates) {
      if (rate >= left / sharing) {
        break;
      }
      left -= rate;
      sharing--;
    }
    return left / sharing;
  }

  /**
   * A pace of {@code link} at {@code rate} over {@code seconds}, while {@code stream} crossed it, the
   * link known to go at {@code known}; {@code measure}: the pace is the link's (nothing else on the
   * wire explains it). Once {@link #SLOW_RUN} measures in a row of one stream were each {@link
   * Estimator#PACE_SHIFT} times below what was known, the cut they show (their median rate, over their
   * seconds); else null. A pace that is not that far below ends a run, measure or not (the link did
   * at least that much); one far below that is not a measure (maybe a share of the egress) neither
   * counts nor ends it.
   */
  LinkCut paced(Object link, Object stream, double rate, double seconds, double known, boolean measure) {
    Run run = runs.computeIfAbsent(link, l -> new Run());
    if (run.stream != stream) {
      run.count = 0;
      run.stream = stream;
    }
    if (!(rate * Estimator.PACE_SHIFT < known)) {
      run.count = 0;
      return null;
    }
    if (!measure) {
      return null;
    }
    if (run.count == 0) {
      run.seconds = 0;
    }
    run.rates[run.count++] = rate;
    run.seconds += seconds;
    if (run.count < SLOW_RUN) {
      return null;
    }
    run.count = 0;
    double[] rates = run.rates.clone();
    Arrays.sort(rates);
    return new LinkCut(rates[SLOW_RUN / 2], run.seconds);
  }

  /** A link's paces far below it in a row, of one stream. */
  private static final class Run {
    Object stream;
    final double[] rates = new double[SLOW_RUN];
    int count;
    double seconds;
  }

  /** The link was measured otherwise, or is gone: a run of its paces starts again. */
  void forget(Object link) {
    runs.remove(link);
  }
}
