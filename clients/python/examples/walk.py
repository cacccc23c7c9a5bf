"""A Python function over a range of indices, as a Gleaner exec job runs it: once per piece, with the
piece's first index and count; it prints one line per index, which Gleaner joins in index order."""

import random
import sys


def walk(i, steps=1000):
    """How far a random walk seeded by i ends from where it began."""
    rng = random.Random(i)
    x = 0
    for _ in range(steps):
        x += 1 if rng.random() < 0.5 else -1
    return abs(x)


if __name__ == "__main__":
    first, count = int(sys.argv[1]), int(sys.argv[2])
    for i in range(first, first + count):
        print(i, walk(i))
