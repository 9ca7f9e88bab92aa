#!/usr/bin/env bash
# bench/perf-cell.sh [MODE] [RATE] [udp|tcp] [OUT] — where irqmod serve's CPU goes in one lab cell,
# untraced: bench/server-sleeps.sh runs the cell once (the 6.13 mode MODE, default napibusy, at
# RATE requests/s, default 40000; its sleeps a second and CPU), and `perf record -a -e cpu-clock
# -F 4000 -g` samples both CPUs for 1 s inside the run; bench/perf-cell-analyse.py then splits the
# server CPU's samples by task, by system call and by the kernel function under it, in % of the
# CPU and in us a request. The samples' own interrupts (4000 a second, each a timer interrupt) add
# a few % to every part. Root (perf -a, the lab's namespaces, created and removed by
# server-sleeps.sh); the run is bounded (load --duration 3). Writes OUT.data and OUT.txt (default
# /tmp/perf-cell).
set -u
cd "$(dirname "$0")/.." || exit 2
mode=${1:-napibusy}
rate=${2:-40000}
proto=${3:-udp}
out=${4:-/tmp/perf-cell}
[[ $rate =~ ^[0-9]+$ ]] && ((rate > 0 && rate <= 100000)) ||
  { echo "perf-cell: RATE '$rate': allowed 1 to 100000 requests/s" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf-cell: no perf (Debian: apt-get install linux-perf)" >&2; exit 2; }
bench/server-sleeps.sh "$mode" "$rate" "$proto" 1 >"$out.sleeps" 2>&1 &
cell=$!
# The load's start, then 1 s into it (after its 0.6 s warm-up), 1 s of samples.
for _ in $(seq 200); do
  pgrep -f "irqmod load" >/dev/null && break
  kill -0 "$cell" 2>/dev/null || break
  sleep 0.05
done
sleep 1
perf record -a -e cpu-clock -F 4000 -g -o "$out.data" -- sleep 1 >/dev/null 2>&1
wait "$cell" || { cat "$out.sleeps" >&2; exit 1; }
cat "$out.sleeps"
perf script -i "$out.data" -F comm,cpu,ip,sym >"$out.txt" 2>/dev/null
python3 bench/perf-cell-analyse.py "$out.txt" 1 "$rate"
