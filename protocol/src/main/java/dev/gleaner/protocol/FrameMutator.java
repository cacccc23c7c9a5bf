package dev.gleaner.protocol;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * How a hostile or broken peer bends a valid frame: kept as it is, bits flipped, cut short,
 * extended with random bytes, or replaced by random bytes. One mutator for the decoder's fuzz test
 * and for the hostile-peers bench, so both attack with the same corpus.
 */
public final class FrameMutator {
  private FrameMutator() {}

  /** A mutation of {@code seed}, drawn from {@code r}; {@code seed} is not changed. */
  public static byte[] mutate(SplittableRandom r, byte[] seed) {
    byte[] b;
    switch (r.nextInt(5)) {
      case 0 -> b = seed.clone();
      case 1 -> {
        b = seed.clone();
        for (int k = r.nextInt(1, 6); k > 0 && b.length > 0; k--) {
          b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
        }
      }
      case 2 -> b = Arrays.copyOf(seed, r.nextInt(seed.length + 1));
      case 3 -> {
        b = Arrays.copyOf(seed, seed.length + r.nextInt(1, 64));
        for (int k = seed.length; k < b.length; k++) {
          b[k] = (byte) r.nextInt(256);
        }
      }
      default -> {
        b = new byte[r.nextInt(0, 200)];
        r.nextBytes(b);
      }
    }
    return b;
  }
}
