#!/usr/bin/env bash
# bench/sim-vs-lab.sh --short (issue 28 item 4's CI form): one lab cell measured on the running
# kernel and its prediction; checks that both numbers are produced and the table is well formed.
# The agreement itself is the bench's to report, not this test's to assert. Needs root (the lab).
set -uo pipefail
irqmod=$1
source_dir=$2
[[ $(id -u) -eq 0 ]] || { echo "needs root (the lab's namespaces)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
IRQMOD=$irqmod BENCH_OUT=$out "$source_dir/bench/sim-vs-lab.sh" --short >"$out/stdout" 2>&1
status=$?
cat "$out/stdout"
[[ $status -eq 0 ]] || { echo "sim-vs-lab.sh --short exited $status"; exit 1; }
header='^experiment +cell +p50_us +\[min, max\] +predicted +ratio +in +p99_us +predicted +ratio +cpu_% +pred +ok +cli_% +pred$'
grep -Eq "$header" "$out/table.txt" || { echo "no table header"; exit 1; }
# Every cell row: the experiment, the cell, a measured p50 > 0 with its range, a predicted p50 > 0,
# their ratio, inside yes/no, the p99s, the CPUs and the verdicts.
number='[0-9]+(\.[0-9]+)?'
row="^[a-z-]+ +[a-z0-9-]+ +$number +\[$number, $number\] +$number +$number +(yes|no) +$number +$number +$number +$number +$number +[-a-z0-9,]+ +$number +$number$"
rows=$(grep -Ec "$row" "$out/table.txt")
[[ $rows -eq 2 ]] || { echo "expected 2 cell rows (modes-udp base-5000, pingpong-loopback epoll), got $rows"; exit 1; }
awk -v r="$row" '$0 ~ r && ($3 + 0 <= 0 || $6 + 0 <= 0) { bad = 1 } END { exit bad }' "$out/table.txt" ||
  { echo "a measured or predicted p50 is not above 0"; exit 1; }
grep -Eq '^cells: 2; p50 within 25% or inside the measured min-max: [0-2] ' "$out/table.txt" ||
  { echo "no summary line"; exit 1; }
# The orders: the pairs of cells apart beyond their measured spread, counted per metric.
grep -Eq '^orders: p50 [0-9]+ of [0-9]+ separable pairs, cpu [0-9]+ of [0-9]+; rates with every such pair in order: [0-9]+ of 2$' \
  "$out/table.txt" || { echo "no orders line"; exit 1; }
# The server's sleeps a second (its voluntary context switches; in the simulator lab_server
# wakeups), measured and predicted for both cells: both serve in epoll, so both sleep.
sleeps="^[a-z-]+ +[a-z0-9-]+ +[0-9]+ +\\[[0-9]+, [0-9]+\\] +[0-9]+ +$number$"
awk -v r="$sleeps" '$0 ~ r && $3 + 0 > 0 && $(NF - 1) + 0 > 0 { n++ } END { exit n != 2 }' "$out/table.txt" ||
  { echo "expected 2 server-sleeps rows, each measured and predicted above 0"; exit 1; }
grep -Eq '^server sleeps: 2 cells, within 25% or inside the measured min-max: [0-2]$' "$out/table.txt" ||
  { echo "no server-sleeps line"; exit 1; }
echo "sim-vs-lab --short: 2 cells, each measured and predicted"
