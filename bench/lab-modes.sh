#!/usr/bin/env bash
# bench/lab-modes.sh — the five modes of the Linux 6.13 IRQ-suspension series (Karsten/Damato,
# "Suspend IRQs during application busy periods"; settings from the authors' scripts,
# docs/research/irq-suspend-modes.md 1.1) run for real on the veth lab (issue 14 item 4):
#
#   mode      per-NAPI (irqmod napi set)                 irqmod serve
#   base      defer 0, gro-flush 0, irq-suspend 0        --mode epoll
#   defer     defer 100, gro-flush 20 us                 --mode epoll
#   napibusy  defer 100, gro-flush 200 us                --mode kernel-busy-poll --busy-poll-usecs 64
#   suspend   defer 100, gro-flush 20 us, suspend 20 ms  --mode kernel-busy-poll --busy-poll-usecs 0
#   fullbusy  defer 100, gro-flush 5 ms                  --mode kernel-busy-poll --busy-poll-usecs 1000
#                                                        --epoll-timeout 1
#   (the busy-poll modes: --busy-poll-budget 64 --prefer-busy-poll on)
#
# Server (TCP) pinned on one CPU, `irqmod load` on the other: BENCH_CONNECTIONS TCP connections,
# open-loop Poisson requests at each rate, each answered (sockperf's `ul` client could not be
# used here: its spinning sender thread delays its receiver thread on one CPU by milliseconds,
# see src/rt/load.hpp). For each rate x mode: avg, p50, p99, p99.9 (µs, half the round trip,
# as sockperf reports), the server's CPU %,
# NET_RX softirqs/s (all CPUs) and BusyPollRxPackets/s (server namespace), over a window inside
# the measured part of the run. Repeated BENCH_REPEAT times.
#
# Environment: IRQMOD, BENCH_SECONDS (4), BENCH_RATES ("5000 20000 40000"), BENCH_MODES (all
# five), BENCH_CONNECTIONS (4), BENCH_REPEAT (2), BENCH_THREADED (0; 1 = threaded NAPI pinned to
# the server's CPU), BENCH_SERVER_CPU / BENCH_CLIENT_CPU (1 / 0), BENCH_SCHED (fifo; see
# lab-common.sh).
# About (6.5 s x rates x modes x repeats): 3.5 min with the defaults. Needs root.
source "$(dirname "$0")/lab-common.sh"

rates=${BENCH_RATES:-5000 20000 40000}
modes=${BENCH_MODES:-base defer napibusy suspend fullbusy}
connections=${BENCH_CONNECTIONS:-4}
repeat=${BENCH_REPEAT:-2}
threaded=${BENCH_THREADED:-0}

source bench/lab-mode-settings.sh  # napi_settings, serve_flags

if ((threaded)); then lab_up --threaded --napi-cpu "$server_cpu"; else lab_up; fi

echo "# lab-modes: irqmod load, TCP, $connections connections, Poisson, 64 B, ${seconds} s per run (statistics after $load_window_start s); NAPI $( ((threaded)) && echo "threaded on CPU $server_cpu" || echo "in softirq (on the sending CPU)")"
machine_line
printf '%-6s %-9s %-3s %9s %9s %9s %9s %6s %9s %9s %7s\n' rate mode run avg_us p50_us p99_us p99.9_us cpu_% net_rx/s busypoll/s lost
declare -A rows
for r in $(seq "$repeat"); do
  for mode in $modes; do
    # shellcheck disable=SC2046
    "$irqmod" napi set --netns "$srv" --dev veth-srv $(napi_settings "$mode") >/dev/null || exit 1
    # shellcheck disable=SC2046
    start_server "$log_dir/server-$mode-$r.log" --tcp $(serve_flags "$mode") || continue
    for rate in $rates; do
      measure "$log_dir/client-$mode-$rate-$r.txt" load -i "$ip" -p "$port" --connections "$connections" \
        --rate "$rate" --size 64 --seed "$r"
      rows[$rate|$mode|$r]=$measured
    done
    stop_server
  done
done
for rate in $rates; do
  for mode in $modes; do
    for r in $(seq "$repeat"); do
      # shellcheck disable=SC2086
      printf '%-6s %-9s %-3s %9s %9s %9s %9s %6s %9s %9s %7s\n' "$rate" "$mode" "$r" ${rows[$rate|$mode|$r]:-}
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg); logs: $log_dir"
