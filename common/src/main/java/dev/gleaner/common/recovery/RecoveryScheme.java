package dev.gleaner.common.recovery;

import java.util.Arrays;
import java.util.BitSet;

/**
 * n computers, p processes on each, and one recovery list per process: when the computer a process
 * runs on is down, the process runs on the first computer of its list that is up.
 *
 * <p>Process {@code q = i * p + j} is process j of computer i. Its list names every other computer
 * exactly once, never computer i itself. A scheme is <em>regular</em> when the lists of computer i+1
 * are those of computer i shifted by one (mod n); regular schemes are described by the list of
 * computer 0 alone, {@code R_0}, with {@code R_i = R_0 + i (mod n)}.
 */
public final class RecoveryScheme {
  private final String name;
  private final int n;
  private final int processes;
  /**
   * Every list, one per process; for a regular one-process scheme only made when asked for
   * ({@link #rawLists}): n lists of n - 1 computers are 400 MB for 10,000 computers, and each is
   * computer 0's list shifted.
   */
  private int[][] lists;
  /** Computer 0's list. */
  private final int[] r0;
  private final boolean regular;

  private RecoveryScheme(String name, int n, int processes, int[][] lists) {
    this.name = name;
    this.n = n;
    this.processes = processes;
    this.lists = lists;
    this.r0 = lists[0];
    this.regular = shiftInvariant(n, processes, lists);
  }

  /** A regular one-process scheme from computer 0's complete list; the others are shifts of it. */
  private RecoveryScheme(String name, int n, int[] r0) {
    this.name = name;
    this.n = n;
    this.processes = 1;
    this.lists = null;
    this.r0 = r0;
    this.regular = true;
  }

  /**
   * The regular scheme of n computers whose computer 0 has the list {@code head} followed by the
   * computers it does not name, in increasing order ("filled with the remaining computers").
   *
   * @throws IllegalArgumentException if head names computer 0, a computer twice, or one out of range
   */
  public static RecoveryScheme regular(String name, int n, int[] head) {
    requireN(n);
    return new RecoveryScheme(name, n, fill(n, head, 0, "the list of computer 0"));
  }

  /**
   * A general scheme, one complete list per computer ({@code lists[i]} for computer i).
   *
   * @throws IllegalArgumentException naming the first list that is not a permutation of the others
   */
  public static RecoveryScheme general(String name, int[][] lists) {
    int n = lists.length;
    requireN(n);
    int[][] copy = new int[n][];
    for (int i = 0; i < n; i++) {
      copy[i] = checkComplete(n, lists[i], i, "the list of computer " + i);
    }
    return new RecoveryScheme(name, n, 1, copy);
  }

  /**
   * The p-processes-per-computer variant of a regular scheme (Appendix A of Papers IV and VI):
   * process j of computer i follows {@code R_0 + i + j*floor(n/p) (mod n)}, so the p processes of a
   * computer start their lists in p different regions of the ring.
   *
   * <p>The appendix's formula can name the process's own computer (for example list {@code 6,0,8,4}
   * of process 1 on computer 0 for n = 11, p = 2) and then omits computer {@code j*floor(n/p)}. The
   * own computer is always down when the list is read, so dropping it and appending the omitted
   * computer at the end keeps every placement the appendix gives and completes the list.
   *
   * @throws IllegalArgumentException if the scheme is not regular or p is not in 1..n
   */
  public RecoveryScheme withProcesses(int p) {
    if (p < 1 || p > n) {
      throw new IllegalArgumentException("processes per computer must be between 1 and n = " + n + ", got " + p);
    }
    if (p == processes) {
      return this;
    }
    if (!regular || processes != 1) {
      throw new IllegalArgumentException("only a regular one-process scheme has a p-process variant");
    }
    int shift = n / p;
    int[][] out = new int[n * p][];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < p; j++) {
        int[] l = new int[n - 1];
        int len = 0;
        for (int k = 0; k < n - 1; k++) {
          int c = (r0[k] + i + j * shift) % n;
          if (c != i) {
            l[len++] = c;
          }
        }
        if (len < n - 1) {
          l[len] = (i + j * shift) % n;
        }
        out[i * p + j] = l;
      }
    }
    return new RecoveryScheme(name, n, p, out);
  }

  public String name() {
    return name;
  }

  /** Number of computers. */
  public int n() {
    return n;
  }

  /** Processes per computer. */
  public int processes() {
    return processes;
  }

  public boolean isRegular() {
    return regular;
  }

  /** The recovery list of process j of computer i (a copy). */
  public int[] list(int computer, int process) {
    if (lists == null) {
      int[] l = new int[n - 1];
      for (int k = 0; k < n - 1; k++) {
        l[k] = (r0[k] + computer) % n;
      }
      return l;
    }
    return lists[computer * processes + process].clone();
  }

  /** The k-th computer (from 0) on the list of computer i's (only or first) process, in O(1). */
  public int at(int computer, int k) {
    return lists == null ? (r0[k] + computer) % n : lists[computer * processes][k];
  }

  /** The recovery list of computer i's (only or first) process (a copy). */
  public int[] list(int computer) {
    return list(computer, 0);
  }

  /** Where process j of computer i runs when the computers in {@code down} are down, or -1. */
  public int placement(int computer, int process, BitSet down) {
    if (!down.get(computer)) {
      return computer;
    }
    if (lists == null) {
      for (int k = 0; k < n - 1; k++) {
        int c = (r0[k] + computer) % n;
        if (!down.get(c)) {
          return c;
        }
      }
      return -1;
    }
    for (int c : lists[computer * processes + process]) {
      if (!down.get(c)) {
        return c;
      }
    }
    return -1;
  }

  /** Computer 0's list as the sequence R = (0, R_1, ..., R_{n-1}) of Paper VI. */
  public int[] sequence() {
    int[] r = new int[n];
    System.arraycopy(r0, 0, r, 1, n - 1);
    return r;
  }

  int[][] rawLists() {
    if (lists == null) {
      int[][] all = new int[n][];
      for (int i = 0; i < n; i++) {
        all[i] = list(i, 0);
      }
      lists = all;
    }
    return lists;
  }

  private static void requireN(int n) {
    if (n < 2) {
      throw new IllegalArgumentException("a recovery scheme needs at least 2 computers, got " + n);
    }
  }

  private static int[] fill(int n, int[] head, int self, String what) {
    boolean[] seen = new boolean[n];
    seen[self] = true;
    int[] out = new int[n - 1];
    int len = 0;
    for (int c : head) {
      check(n, c, self, seen, what);
      seen[c] = true;
      out[len++] = c;
    }
    for (int c = 0; c < n; c++) {
      if (!seen[c]) {
        out[len++] = c;
      }
    }
    return out;
  }

  private static int[] checkComplete(int n, int[] list, int self, String what) {
    if (list.length != n - 1) {
      throw new IllegalArgumentException(what + " has " + list.length + " entries; with n = " + n
          + " it must name each of the other " + (n - 1) + " computers once");
    }
    boolean[] seen = new boolean[n];
    for (int c : list) {
      check(n, c, self, seen, what);
      seen[c] = true;
    }
    return list.clone();
  }

  private static void check(int n, int c, int self, boolean[] seen, String what) {
    if (c < 0 || c >= n) {
      throw new IllegalArgumentException(what + " names computer " + c + ", outside 0.." + (n - 1));
    }
    if (c == self) {
      throw new IllegalArgumentException(what + " names its own computer " + self);
    }
    if (seen[c]) {
      throw new IllegalArgumentException(what + " names computer " + c + " twice");
    }
  }

  private static boolean shiftInvariant(int n, int p, int[][] lists) {
    for (int i = 0; i + 1 < n; i++) {
      for (int j = 0; j < p; j++) {
        int[] a = lists[i * p + j];
        int[] b = lists[(i + 1) * p + j];
        for (int k = 0; k < a.length; k++) {
          if ((a[k] + 1) % n != b[k]) {
            return false;
          }
        }
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return name + "(n=" + n + (processes > 1 ? ", p=" + processes : "") + ", R0=" + Arrays.toString(r0) + ")";
  }
}
