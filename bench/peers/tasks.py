"""The work the peers' tasks do in bench/peers/peers.py, importable by Dask workers and runnable
by Work Queue workers as a program:

    python3 tasks.py primes FROM TO     prints the number of primes in [FROM, TO)

Counting primes uses a segmented sieve of Eratosthenes over numpy arrays (Gleaner's `primes`
workload is a segmented sieve in Java); wc counts newlines and bytes as `wc` does.
"""
import math
import sys

SEGMENT = 1 << 22


def noop(x):
    """A trivial task: the one-unit chunk of the small-chunks and latency workloads."""
    return x


def wc_bytes(data):
    """(lines, bytes) of a byte string, as `wc -lc` counts them."""
    return data.count(b"\n"), len(data)


def _base_primes(n):
    import numpy as np
    sieve = np.ones(n + 1, dtype=bool)
    sieve[:2] = False
    for p in range(2, math.isqrt(n) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    return [int(p) for p in np.nonzero(sieve)[0]]


def primes(lo, hi):
    """The number of primes in [lo, hi)."""
    import numpy as np
    if hi <= lo:
        return 0
    base = _base_primes(math.isqrt(hi) + 1)
    total = 0
    for a in range(lo, hi, SEGMENT):
        b = min(hi, a + SEGMENT)
        seg = np.ones(b - a, dtype=bool)
        for p in base:
            if p * p >= b:
                break
            start = max(p * p, (a + p - 1) // p * p)
            seg[start - a::p] = False
        if a < 2:
            seg[:min(2, b) - a] = False
        total += int(np.count_nonzero(seg))
    return total


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "primes":
        sys.exit("usage: tasks.py primes FROM TO")
    print(primes(int(sys.argv[2]), int(sys.argv[3])))
