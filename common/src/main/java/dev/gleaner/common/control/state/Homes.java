package dev.gleaner.common.control.state;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whose planned share each unit was at the first plan: its home in the recovery scheme. A lost
 * worker's unfinished units follow their home's recovery list (Klonowska's model: a process keeps
 * its list wherever it runs), so work that already moved once moves on along the same list.
 */
public final class Homes {
  private record Seg(long end, String home) {}

  private final TreeMap<Long, Seg> segs = new TreeMap<>();
  /** Assignments so far: tells a caller that the homes changed. */
  private long changes;

  /** Units {@code [from, to)} belong to {@code home}. */
  public void assign(long from, long to, String home) {
    changes++;
    cut(from);
    cut(to);
    segs.subMap(from, to).clear();
    segs.put(from, new Seg(to, home));
  }

  /** The parts of {@code [from, to)} by home, in order; a part with no home has {@code fallback}. */
  public List<Part> parts(long from, long to, String fallback) {
    List<Part> out = new ArrayList<>();
    long at = from;
    Map.Entry<Long, Seg> e = segs.floorEntry(from);
    if (e == null || e.getValue().end() <= from) {
      e = segs.higherEntry(from);
    }
    for (; e != null && e.getKey() < to && at < to; e = segs.higherEntry(e.getKey())) {
      long s = Math.max(at, e.getKey());
      if (s > at) {
        out.add(new Part(at, s, fallback));
      }
      long t = Math.min(to, e.getValue().end());
      out.add(new Part(s, t, e.getValue().home()));
      at = t;
    }
    if (at < to) {
      out.add(new Part(at, to, fallback));
    }
    return out;
  }

  public long changes() {
    return changes;
  }

  /** Every range with a home, in order. */
  public List<Part> all() {
    List<Part> out = new ArrayList<>();
    for (Map.Entry<Long, Seg> e : segs.entrySet()) {
      out.add(new Part(e.getKey(), e.getValue().end(), e.getValue().home()));
    }
    return out;
  }

  /** A range and its home. */
  public record Part(long from, long to, String home) {}

  private void cut(long at) {
    Map.Entry<Long, Seg> e = segs.lowerEntry(at);
    if (e != null && e.getValue().end() > at) {
      segs.put(e.getKey(), new Seg(at, e.getValue().home()));
      segs.put(at, new Seg(e.getValue().end(), e.getValue().home()));
    }
  }
}
