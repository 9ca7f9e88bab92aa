#!/usr/bin/env python3
"""Compares two platform files irqmod calibrate wrote: is each median of B within a tolerance of A's?

  scripts/calibrate-compare.py A.toml B.toml [--tolerance 0.15] [--quiet]

What it compares, per number calibrate measured (docs/calibration.md, "Repeatability"):
- every key (written, or "# no key yet: cpu.KEY = ..."): the median its comment gives
  ("p10/p50/p90 a/b/c"); cpu.wakeup-idle once per idle ("... per idle: 2 us a/b/c, 5 us ...");
  the noise intervals (fit "at the spin's time over the count") by the mean written, since their
  comment's spread is the intervals' own and the key is the rate;
- every raw measurement ("# measured: NAME: p10/p50/p90 a/b/c"): its median.
Constants (hz, hypervisor) must be equal. A number in one file only is listed and not counted.
Prints the numbers outside the tolerance with their ratio B/A, then one summary line:
  "keys K of N, raw R of M within 15 %: T of N+M (P %)"
Exit 0 when both files could be read (it judges nothing), 2 on bad input.
"""
import argparse
import re
import sys

UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
KEY = re.compile(r'^(?:# no key yet: )?((?:cpu|nic)\.)?([a-z][a-z0-9-]*) = ("[^"]*"|\S+)\s*(?:#\s*(.*))?$')
RAW = re.compile(r'^# measured: ([^:]+): p10/p50/p90 (-?[\d.]+)/(-?[\d.]+)/(-?[\d.]+)')
SPREAD = re.compile(r'p10/p50/p90 (-?[\d.]+)/(-?[\d.]+)/(-?[\d.]+)')
PER_IDLE = re.compile(r'(\d+) us (-?[\d.]+)/(-?[\d.]+)/(-?[\d.]+)')
FIRST_NUMBER = re.compile(r'([\d.]+)\s*(ns|us|ms|s)\b')


def read(path):
    """{name: (kind, value)} with kind "key", "raw" or "constant"."""
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        sys.exit(f"calibrate-compare: {path}: {e.strerror}")
    numbers = {}
    section = ""
    for line in lines:
        if line.startswith("["):
            section = line.strip("[] ") + "."
            continue
        raw = RAW.match(line)
        if raw:
            numbers["raw " + raw.group(1)] = ("raw", float(raw.group(3)))
            continue
        key = KEY.match(line)
        if not key:
            continue
        name = (key.group(1) or section) + key.group(2)
        value, comment = key.group(3), key.group(4) or ""
        if not value.startswith('"'):
            numbers[name] = ("constant", value)
        elif "over the count" in comment:
            first = FIRST_NUMBER.search(value)
            if first:
                numbers[name] = ("key", float(first.group(1)) * UNITS[first.group(2)])
        elif "per idle:" in comment:
            for idle, _, p50, _ in PER_IDLE.findall(comment.split("per idle:", 1)[1]):
                numbers[f"{name}@{idle}us"] = ("key", float(p50))
        else:
            spread = SPREAD.search(comment)
            if spread:
                numbers[name] = ("key", float(spread.group(2)))
    if not numbers:
        print(f"calibrate-compare: {path}: no number of irqmod calibrate's in it "
              "(lines 'KEY = \"...\"  # ... p10/p50/p90 a/b/c' or '# measured: NAME: ...')",
              file=sys.stderr)
        sys.exit(2)
    return numbers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--tolerance", type=float, default=0.15,
                        help="the largest |B/A - 1| counted as within (default 0.15)")
    parser.add_argument("--quiet", action="store_true", help="the summary line only")
    args = parser.parse_args()
    if not 0 < args.tolerance < 10:
        print(f"calibrate-compare: --tolerance {args.tolerance}: allowed 0 < t < 10", file=sys.stderr)
        sys.exit(2)
    a, b = read(args.a), read(args.b)
    counts = {"key": [0, 0], "raw": [0, 0]}
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            if not args.quiet:
                print(f"only in {args.a if name in a else args.b}: {name}")
            continue
        (kind, x), (_, y) = a[name], b[name]
        if kind == "constant":
            if x != y and not args.quiet:
                print(f"differs: {name} {x} -> {y}")
            continue
        counts[kind][1] += 1
        # Two medians both within a few ns of 0 (a difference of two calls) agree.
        if abs(y - x) <= max(abs(x), abs(y)) * args.tolerance or abs(y - x) < 5:
            counts[kind][0] += 1
        elif not args.quiet:
            ratio = f"{y / x:.2f}" if x else "inf"
            print(f"outside: {name} {x:g} -> {y:g} ns ({ratio})")
    k, n = counts["key"]
    r, m = counts["raw"]
    pct = 100 * (k + r) / (n + m) if n + m else 0
    print(f"keys {k} of {n}, raw {r} of {m} within {args.tolerance * 100:g} %: "
          f"{k + r} of {n + m} ({pct:.0f} %)")


if __name__ == "__main__":
    main()
