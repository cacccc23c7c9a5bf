package dev.gleaner.common.control.state;

import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * The workers that want work, in lines: those with nothing in hand, those below their window, and
 * those the lead lets hold more; each line in the order its workers came to it. Beside them, the
 * workers woken since the last pump (they joined, a slot of theirs freed, work was queued for
 * them) and, per line, whether work appeared that its workers may take. What a pump does with
 * them is the serving's business ({@code decide.Serving}); this is only where they wait.
 */
public final class WaitLines {
  /** A line of waiting workers. */
  public enum Line {
    /** Nothing in hand. */
    IDLE,
    /** Fewer chunks than the window. */
    BELOW,
    /** At the window, and the lead lets it hold more. */
    EXTRA
  }

  private final LinkedHashSet<Member> idle = new LinkedHashSet<>();
  private final LinkedHashSet<Member> below = new LinkedHashSet<>();
  private final LinkedHashSet<Member> extra = new LinkedHashSet<>();
  private final LinkedHashSet<Member> fresh = new LinkedHashSet<>();
  private final boolean[] look = new boolean[Line.values().length];

  /** The worker has a reason of its own to look at the next pump. */
  public void wake(Member m) {
    if (m != null && m.up()) {
      fresh.add(m);
    }
  }

  /** The worker takes nothing any more (down, draining). */
  public void forget(Member m) {
    leave(m);
    fresh.remove(m);
  }

  /** Work appeared that any waiting worker might take: every line is served at the next pump. */
  public void workAppeared() {
    java.util.Arrays.fill(look, true);
  }

  /** Whether the line is to be served at the next pump. */
  public boolean look(Line line) {
    return look[line.ordinal()];
  }

  public void look(Line line, boolean serve) {
    look[line.ordinal()] = serve;
  }

  /** The first woken worker, taken off the woken; null if none. */
  public Member pollWoken() {
    Iterator<Member> it = fresh.iterator();
    if (!it.hasNext()) {
      return null;
    }
    Member m = it.next();
    it.remove();
    return m;
  }

  public boolean anyWoken() {
    return !fresh.isEmpty();
  }

  /** The first worker of the line, taken out of it; null if the line is empty. */
  public Member poll(Line line) {
    Iterator<Member> it = set(line).iterator();
    if (!it.hasNext()) {
      return null;
    }
    Member m = it.next();
    it.remove();
    m.line = null;
    return m;
  }

  public int size(Line line) {
    return set(line).size();
  }

  /**
   * Puts the worker at the back of the line it belongs to with {@code held} chunks in hand (out of
   * every line when it wants nothing); a worker that was just given a chunk makes its line looked at
   * again at the next pump.
   */
  public void place(Member m, boolean wants, int held, int window, boolean gotOne) {
    leave(m);
    if (!wants) {
      return;
    }
    Line line = held == 0 ? Line.IDLE : held < window ? Line.BELOW : Line.EXTRA;
    look[line.ordinal()] |= gotOne;
    set(line).add(m);
    m.line = line;
  }

  /** Whether some worker waiting with fewer chunks than the window satisfies {@code takes}. */
  public boolean anyBelowWindow(java.util.function.Predicate<Member> takes) {
    return idle.stream().anyMatch(takes) || below.stream().anyMatch(takes);
  }

  private void leave(Member m) {
    if (m.line != null) {
      set(m.line).remove(m);
      m.line = null;
    }
  }

  private LinkedHashSet<Member> set(Line line) {
    return switch (line) {
      case IDLE -> idle;
      case BELOW -> below;
      case EXTRA -> extra;
    };
  }
}
