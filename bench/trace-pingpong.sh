#!/usr/bin/env bash
# bench/trace-pingpong.sh [OUT] [MODE] — where a ping-pong request's time goes on the server's CPU,
# traced in the kernel: irqmod serve --mode MODE (default blocking) on the veth lab, pinned to
# CPU 1 at SCHED_FIFO, under sockperf pp from the client namespace on CPU 0 at 10 000 msg/s
# (as bench/sim-vs-lab.sh's ping-pong cells), tracefs on both CPUs for 0.3 s inside the run
# (sched_switch/wakeup/waking, raw_syscalls, the call-function, reschedule and local-timer
# vectors, softirqs, ipi_send_cpu). Writes the trace to OUT (default /tmp/trace-pingpong.txt)
# and prints bench/trace-pingpong-analyse.py's per-request medians. Root; the lab's namespaces
# are created and removed; the run is bounded (sockperf -t 4, 20 MB of trace buffer).
set -u
cd "$(dirname "$0")/.." || exit 2
irqmod=${IRQMOD:-build/bin/irqmod}
out=${1:-/tmp/trace-pingpong.txt}
mode=${2:-blocking}
[[ $(id -u) == 0 ]] || { echo "trace-pingpong: needs root (tracefs, namespaces)" >&2; exit 2; }
[[ -x $irqmod ]] || { echo "no $irqmod: build first" >&2; exit 2; }
command -v sockperf >/dev/null || { echo "sockperf is not installed" >&2; exit 2; }
source bench/lab-trace.sh
trace_lab_up
log=$(mktemp -d)
ip netns exec "$lab-srv" chrt -f 10 taskset -c 1 "$irqmod" serve --ip $ip --port $port --udp \
  --mode "$mode" >"$log/serve.txt" 2>&1 &
server=$!
sleep 1
ip netns exec "$lab-cli" chrt -f 10 taskset -c 0 timeout 20 sockperf pp -i $ip -p $port -m 64 \
  --mps 10000 -t 4 >"$log/sockperf.txt" 2>&1 &
client=$!
trace_events_on
sleep 3  # sockperf's warm-up (~2 s) and the start of its measured part
trace_capture "$out"
wait "$client"
echo "# $(grep -m1 'percentile 50.000' "$log/sockperf.txt" | sed 's/.*percentile/sockperf p50/'); trace: $out"
python3 bench/trace-pingpong-analyse.py "$out" 1 irqmod
