#!/usr/bin/env python3
"""A stand-in for your own simulation: one run per index, each seeded by its index.

Gleaner's exec workload runs it once per piece of the job's range, as
    python3 simulate.py --first START --count COUNT
and concatenates what the pieces print, in index order. Each run here is a random walk of
1,000 steps; the piece prints one line: its first index, its count of runs, and how many of
them ended above where they started. Replace the body of run() with your own model.
"""
import argparse
import random


def run(index):
    rng = random.Random(index)
    position = 0
    for _ in range(1000):
        position += 1 if rng.random() < 0.5 else -1
    return position


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    args = parser.parse_args()
    above = sum(1 for i in range(args.first, args.first + args.count) if run(i) > 0)
    print(args.first, args.count, above)


if __name__ == "__main__":
    main()
