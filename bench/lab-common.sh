# bench/lab-common.sh — sourced by bench/lab-modes.sh and bench/adaptive-frontier.sh: a lab of
# their own (irqmod lab, namespaces removed on exit), `irqmod serve` pinned in its server
# namespace, sockperf pinned in its client namespace, and the counters read around a window
# inside sockperf's measured part. Needs root. Every run is bounded (sockperf -t, timeout).
set -uo pipefail
cd "$(dirname "$0")/.."

irqmod=${IRQMOD:-build/bin/irqmod}
server_cpu=${BENCH_SERVER_CPU:-1}
client_cpu=${BENCH_CLIENT_CPU:-0}
seconds=${BENCH_SECONDS:-4}
# Scheduling of the server and the client (BENCH_SCHED): the development machine is shared with
# other builds (load 4-8 on 2 CPUs). At nice 0, and still at nice -10, a pinned client and server
# waited milliseconds for their CPU (irqmod load at 20000 req/s: p50 1.1 ms, sends 0.75 ms behind
# schedule at the median; with SCHED_FIFO 23 µs and 16 µs; docs/runtime.md). So by default both
# run SCHED_FIFO priority 10 ("fifo"): they take their CPU whenever they are runnable, for the
# bounded length of each run (the kernel's RT throttling still leaves other tasks 5 % of it).
# "nice" = nice -10, "none" = as started.
sched=${BENCH_SCHED:-fifo}
case $sched in
  fifo) sched_prefix=(chrt -f 10) ;;
  nice) sched_prefix=(nice -n -10) ;;
  none) sched_prefix=() ;;
  *) echo "BENCH_SCHED: '$sched': allowed fifo, nice, none" >&2; exit 2 ;;
esac
lab=irqmod-lab-bench$$
srv=$lab-srv
cli=$lab-cli
ip=198.18.0.1
port=11111
hz=$(getconf CLK_TCK)
# The counters are read over a window inside the measured part of each run. sockperf 3.7 idles
# ~2 s before its test and leaves the first 400 ms out of its statistics (docs/runtime.md,
# Benchmark): its window starts at 2.6 s. irqmod load starts at once and is told to leave out
# the first 0.6 s (--warmup), where its window starts. Both windows end 0.2 s before the run.
sockperf_window_start=2.6
load_window_start=0.6

[[ $(id -u) -eq 0 ]] || { echo "needs root (network namespaces)" >&2; exit 2; }
[[ -x $irqmod ]] || { echo "no $irqmod: build first" >&2; exit 2; }
command -v sockperf >/dev/null || { echo "sockperf is not installed" >&2; exit 2; }

server_pid=
log_dir=$(mktemp -d)
cleanup() {
  [[ -n $server_pid ]] && kill -KILL "$server_pid" 2>/dev/null
  "$irqmod" lab down --name "$lab" >/dev/null 2>&1
}
trap cleanup EXIT

lab_up() { "$irqmod" lab up --name "$lab" "$@" >"$log_dir/lab-up.txt" || { cat "$log_dir/lab-up.txt"; exit 1; }; }

# start_server LOG SERVE_ARGS...: irqmod serve in the server namespace, pinned.
start_server() {
  local log=$1; shift
  ip netns exec "$srv" "${sched_prefix[@]}" taskset -c "$server_cpu" "$irqmod" serve --ip "$ip" --port "$port" "$@" \
    >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 50); do
    grep -q "listening on" "$log" 2>/dev/null && return 0
    kill -0 "$server_pid" 2>/dev/null || { echo "server failed: $(cat "$log")" >&2; return 1; }
    sleep 0.1
  done
  return 1
}
source bench/server-control.sh  # the working directory is the repository's (cd above)

# tree_ticks PID: the CPU ticks of PID and every process under it: each one's own, and the
# children it has reaped (cutime + cstime). Empty when PID is gone.
tree_ticks() {
  local total kid t
  total=$(cpu_ticks "$1" children)
  [[ -n $total ]] || return 0
  for kid in $(pgrep -P "$1" 2>/dev/null); do
    t=$(tree_ticks "$kid")
    total=$((total + ${t:-0}))
  done
  echo "$total"
}
# voluntary_switches PID: the voluntary context switches of every thread of PID (its sleeps);
# empty when PID is gone.
voluntary_switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null | awk '$1 == "voluntary_ctxt_switches:" { s += $2; n++ } END { if (n) print s }'
}
net_rx_total() { awk '$1 == "NET_RX:" { s = 0; for (i = 2; i <= NF; ++i) s += $i; print s }' /proc/softirqs; }
busy_poll_total() {
  ip netns exec "$srv" awk '$1 == "TcpExt:" && !h { for (i = 2; i <= NF; ++i) c[$i] = i; h = 1; next }
    $1 == "TcpExt:" && h { print $(c["BusyPollRxPackets"]); exit }' /proc/net/netstat
}

# measure OUT sockperf|load ARGS...: runs sockperf, or irqmod load, for $seconds in the client
# namespace (pinned, bounded) and sets `measured` to "avg p50 p99 p99.9 cpu% net_rx/s
# busy_poll/s lost" (latency in µs, half the round trip, as both report it; lost: sockperf's
# dropped messages, or requests irqmod load got no reply to), `measured_lag` to irqmod
# load's lag_p50_us (µs its sends left after their scheduled time; "-" for sockperf), and
# `measured_sleeps` to the server's sleeps a second over the window (its threads' voluntary
# context switches).
measure() {
  local out=$1 tool=$2; shift 2
  local command=(sockperf "$@" -t "$seconds")
  local window_start=$sockperf_window_start window_length
  window_length=$(awk -v s="$seconds" 'BEGIN { w = s - 0.8; print (w < 0.3 ? 0.3 : w) }')
  if [[ $tool == load ]]; then
    command=("$irqmod" load "$@" --duration "$seconds" --warmup "$load_window_start")
    window_start=$load_window_start
    window_length=$(awk -v s="$seconds" -v w0="$window_start" 'BEGIN { w = s - w0 - 0.2; print (w < 0.3 ? 0.3 : w) }')
  fi
  # The client runs under a shell that, once it is over, writes the time and its own
  # /proc/PID/stat, whose cutime + cstime then hold the whole client's CPU. The bench's own
  # readings can come late: at SCHED_FIFO the server and the client may leave this shell no CPU
  # until the client has exited (a client read as gone gave negative CPUs before 2026-12-02).
  rm -f "$out.end"
  ip netns exec "$cli" "${sched_prefix[@]}" taskset -c "$client_cpu" bash -c \
    'timeout "$1" "${@:3}"; rc=$?; { date +%s%N; cat /proc/$$/stat; } >"$2"; exit $rc' \
    client "$((seconds + 30))" "$out.end" "${command[@]}" >"$out" 2>&1 &
  local client=$!
  sleep "$window_start"
  local t0 c0 r0 b0 t1 c1 r1 b1 k0 v0 v1
  # The CPU readings first, then the slower ones (busy_poll_total forks ip netns exec).
  t0=$(date +%s%N); c0=$(cpu_ticks "$server_pid"); v0=$(voluntary_switches "$server_pid")
  k0=$(tree_ticks "$client")
  r0=$(net_rx_total); b0=$(busy_poll_total)
  # The window ends window_length after t0, the reads above included (ip netns exec can take a
  # tenth of a second on a loaded machine), so that the client is still running at its end.
  sleep "$(awk -v t0="$t0" -v now="$(date +%s%N)" -v w="$window_length" \
    'BEGIN { r = w - (now - t0) / 1e9; printf "%.3f", r < 0 ? 0 : r }')"
  t1=$(date +%s%N); c1=$(cpu_ticks "$server_pid"); v1=$(voluntary_switches "$server_pid")
  r1=$(net_rx_total); b1=$(busy_poll_total)
  wait "$client"
  local s avg p50 p99 p999 dropped
  measured_lag=-  # irqmod load's lag_p50_us: how late its sends left (sockperf has none)
  s=$(awk -v ns=$((t1 - t0)) 'BEGIN { print ns / 1e9 }')
  if [[ $tool == load ]]; then
    field() { grep -o " $1=[0-9.]*" "$out" | cut -d= -f2; }
    avg=$(field avg_us); p50=$(field p50_us); p99=$(field p99_us); p999=$(field p99.9_us)
    dropped=$(field lost)
    measured_lag=$(field lag_p50_us)
  else
    avg=$(grep -o 'avg-latency=[0-9.]*' "$out" | head -1 | cut -d= -f2)
    p50=$(awk '/percentile 50.000 =/ { print $NF }' "$out")
    p99=$(awk '/percentile 99.000 =/ { print $NF }' "$out")
    p999=$(awk '/percentile 99.900 =/ { print $NF }' "$out")
    dropped=$(grep -o '# dropped messages = [0-9]*' "$out" | grep -o '[0-9]*$')
  fi
  # The client's CPU (its process under `timeout`), in % of one CPU over the same window.
  # The client's CPU from t0 to its end (its wrapper's record), in % of one CPU; "-" when it
  # was not running at t0 or left no record.
  measured_sleeps=-
  if [[ -n $v0 && -n $v1 ]]; then
    measured_sleeps=$(awk -v v=$((v1 - v0)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", v / (ns / 1e9) }')
  fi
  measured_client_cpu=-
  if [[ -n $k0 && -s $out.end ]]; then
    local end_ns end_ticks
    end_ns=$(head -1 "$out.end")
    end_ticks=$(sed -n 2p "$out.end" | sed 's/.*) //' | awk '{ print $12 + $13 + $14 + $15 }')
    measured_client_cpu=$(awk -v c=$((end_ticks - k0)) -v hz="$hz" -v ns=$((end_ns - t0)) \
      'BEGIN { printf "%.0f", 100 * c / hz / (ns / 1e9) }')
  fi
  measured=$(awk -v c=$((c1 - c0)) -v hz="$hz" -v s="$s" -v r=$((r1 - r0)) -v b=$((b1 - b0)) \
    -v avg="${avg:--}" -v p50="${p50:--}" -v p99="${p99:--}" -v p999="${p999:--}" -v d="${dropped:--}" \
    'BEGIN { printf "%s %s %s %s %.0f %.0f %.0f %s", avg, p50, p99, p999, 100 * c / hz / s, r / s, b / s, d }')
}

machine_line() {
  echo "# $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), Linux $(uname -r), $(sockperf --version 2>&1 | grep -o 'version [^ ]*' | head -1); server on CPU $server_cpu, client on CPU $client_cpu, scheduling $sched; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}
