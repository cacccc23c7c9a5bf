package dev.gleaner.common.util;

/** Walking through permutations in lexicographic order, in place. */
public final class Permutations {
  private Permutations() {}

  /** The next permutation of {@code a} in lexicographic order; false after the last. */
  public static boolean next(int[] a) {
    return next(a, 0);
  }

  /** The next permutation of {@code a[from..]} in lexicographic order; false after the last. */
  public static boolean next(int[] a, int from) {
    int i = a.length - 2;
    while (i >= from && a[i] >= a[i + 1]) {
      i--;
    }
    if (i < from) {
      return false;
    }
    int j = a.length - 1;
    while (a[j] <= a[i]) {
      j--;
    }
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = a.length - 1; l < r; l++, r--) {
      t = a[l];
      a[l] = a[r];
      a[r] = t;
    }
    return true;
  }
}
