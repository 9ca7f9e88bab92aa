#!/usr/bin/env python3
"""Scores the IRQ-suspension table by load (scenarios/seeds/000-loads.toml) as issue 29 does.

  irqmod run --dir DIR --json OUT.json && scripts/score-000-loads.py OUT.json [--plot DIR]

Prints, over the predicted cells: average latency within +-50 % of the authors', CPU within
+-10 points; at each load, the order of the configurations by average latency, the authors'
and irqmod's, where the authors' values differ by more than 20 %; and per configuration, the
first load whose average exceeds 1 ms, the authors' and irqmod's. It judges nothing: exit 0
whenever the file could be read. --plot DIR writes DIR/000-loads-latency.png and
DIR/000-loads-cpu.png (gnuplot): the metric against the load, one panel per family of
configurations, the model's lines beside the authors' points in the same colour.
"""
import json
import pathlib
import subprocess
import sys

LOADS = ["200K", "400K", "600K", "800K", "1000K", "MAX"]
TABLE = "IRQ suspension modes (Linux 6.13), by load"


FAMILIES = [("base and suspend0", ["base", "suspend0"]),
            ("deferral (gro_flush_timeout us)", ["defer10", "defer20", "defer50", "defer200"]),
            ("busy polling", ["napibusy", "fullbusy"]),
            ("IRQ suspension (gro_flush_timeout us)",
             ["suspend10", "suspend20", "suspend50", "suspend200"])]


def plot(cell, out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = out / "000-loads.dat"  # the plotted numbers, beside the pictures
    with data.open("w") as f:
        for _, members in FAMILIES:
            for case in members:
                f.write(f"# {case}: load-index authors irqmod (avg us, cpu %)\n")
                for i, load in enumerate(LOADS):
                    m = cell.get((case, load))
                    if m:
                        f.write(f"{i} {m['latency.avg'][0]} {m['latency.avg'][1]} "
                                f"{m['cpu'][0]} {m['cpu'][1]}\n")
                f.write("\n\n")
    for col_a, col_p, ylabel, logscale, key, name in [
            (2, 3, "average latency (us)", True, "top left", "000-loads-latency.png"),
            (4, 5, "CPU (% of the cores)", False, "bottom right", "000-loads-cpu.png")]:
        script = [
            "set terminal pngcairo size 1100,800 noenhanced",
            f"set output '{out / name}'",
            "set multiplot layout 2,2 title \"IRQ suspension series (v7) by load: authors (points) "
            "and irqmod (lines)\"",
            "set xtics (" + ", ".join(f"'{l}' {i}" for i, l in enumerate(LOADS)) + ")",
            "set xrange [-0.3:5.3]", "set grid", f"set ylabel '{ylabel}'", f"set key {key}",
        ]
        script.append("set logscale y" if logscale else "set yrange [0:105]")
        index = 0
        for title, members in FAMILIES:
            script.append(f"set title '{title}'")
            parts = []
            for k, case in enumerate(members):
                lc = k + 1
                parts.append(f"'{data}' index {index} using 1:{col_p} with lines lw 2 lc {lc} "
                             f"title '{case}'")
                parts.append(f"'{data}' index {index} using 1:{col_a} with points pt 7 ps 1.2 "
                             f"lc {lc} notitle")
                index += 1
            script.append("plot " + ", ".join(parts))
        script.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True)
        print(f"picture: {out / name}")


def main():
    args = sys.argv[1:]
    plot_dir = None
    if "--plot" in args:
        i = args.index("--plot")
        if i + 1 >= len(args):
            print("--plot needs a directory", file=sys.stderr)
            return 2
        plot_dir = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    rows = [r for r in json.load(open(args[0]))["seed_rows"] if r["table"] == TABLE]
    if not rows:
        print(f"{args[0]}: no seed row of '{TABLE}'", file=sys.stderr)
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
    if plot_dir:
        plot(cell, plot_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
