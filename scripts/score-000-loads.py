#!/usr/bin/env python3
"""Scores the IRQ-suspension table by load (scenarios/seeds/000-loads.toml) as issue 29 does.

  irqmod run --dir DIR --json OUT.json && scripts/score-000-loads.py OUT.json

Prints, over the predicted cells: average latency within +-50 % of the authors', CPU within
+-10 points; at each load, the order of the configurations by average latency, the authors'
and irqmod's, where the authors' values differ by more than 20 %; and per configuration, the
first load whose average exceeds 1 ms, the authors' and irqmod's. It judges nothing: exit 0
whenever the file could be read.
"""
import json
import sys

LOADS = ["200K", "400K", "600K", "800K", "1000K", "MAX"]
TABLE = "IRQ suspension modes (Linux 6.13), by load"


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    rows = [r for r in json.load(open(sys.argv[1]))["seed_rows"] if r["table"] == TABLE]
    if not rows:
        print(f"{sys.argv[1]}: no seed row of '{TABLE}'", file=sys.stderr)
        return 2
    cell = {}  # (case, load) -> metric -> (seed, irqmod, role)
    for r in rows:
        case, load = r["row"].split()
        cell.setdefault((case, load), {})[r["metric"]] = (r["seed_value"], r["irqmod_value"],
                                                          r["role"])
    cases = sorted({c for c, _ in cell}, key=lambda c: (c.rstrip("0123456789"),
                                                         int(c[len(c.rstrip("0123456789")):] or 0)))
    avg_ok = avg_n = cpu_ok = cpu_n = 0
    for m in cell.values():
        s, p, role = m["latency.avg"]
        if role == "predicted":
            avg_n += 1
            avg_ok += abs(p / s - 1) <= 0.5
        s, p, role = m["cpu"]
        if role == "predicted":
            cpu_n += 1
            cpu_ok += abs(p - s) <= 10
    print(f"avg latency within 50 %: {avg_ok} of {avg_n} ({100 * avg_ok / avg_n:.0f} %)")
    print(f"cpu within 10 points:    {cpu_ok} of {cpu_n} ({100 * cpu_ok / cpu_n:.0f} %)")
    pairs_ok = pairs_n = 0
    for load in LOADS:
        here = [c for c in cases if (c, load) in cell]
        bad = []
        for i, a in enumerate(here):
            for b in here[i + 1:]:
                sa, pa, _ = cell[(a, load)]["latency.avg"]
                sb, pb, _ = cell[(b, load)]["latency.avg"]
                if max(sa, sb) <= 1.2 * min(sa, sb):
                    continue  # the authors' values within 20 %: no order to keep
                pairs_n += 1
                if (sa < sb) == (pa < pb):
                    pairs_ok += 1
                else:
                    bad.append(f"{a}/{b}")
        print(f"order at {load:>5}: {len(bad)} pairs reversed" + (": " + " ".join(bad) if bad else ""))
    print(f"ordered pairs kept: {pairs_ok} of {pairs_n}")
    off = 0
    for c in cases:
        def first(i):
            for load in LOADS:
                if (c, load) in cell and cell[(c, load)]["latency.avg"][i] > 1000:
                    return load
            return "never"
        s, p = first(0), first(1)
        step = abs(LOADS.index(s) - LOADS.index(p)) if "never" not in (s, p) else (0 if s == p else 9)
        off += step > 1
        print(f"over 1 ms from: {c:<11} authors {s:>5}  irqmod {p:>5}" + ("" if step <= 1 else "  MISS"))
    print(f"configurations more than one load step off: {off} of {len(cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
