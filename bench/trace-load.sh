#!/usr/bin/env bash
# bench/trace-load.sh [OUT] [RATE] [udp|tcp] [MODE] — where a request's round trip goes, traced in
# the kernel on both CPUs: irqmod serve in one of the 6.13 modes (MODE, default base; the settings
# of bench/lab-mode-settings.sh) on the veth lab, pinned to CPU 1 at SCHED_FIFO, under irqmod load (4 connections, Poisson, 64 B) from
# the client namespace on CPU 0 at RATE requests/s (default 5000), as bench/sim-vs-lab.sh's
# modes cells run them; tracefs on both CPUs for 0.3 s inside the run (sched_switch/wakeup,
# raw_syscalls, the call-function, reschedule and local-timer vectors, softirqs, ipi_send_cpu).
# Writes the trace to OUT (default /tmp/trace-load.txt) and prints
# bench/trace-load-analyse.py's per-request medians, the round trip split at the events both
# the kernel and the model have. Root; the lab's namespaces are created and removed; the run is
# bounded (irqmod load --duration 3, 20 MB of trace buffer).
set -u
cd "$(dirname "$0")/.." || exit 2
irqmod=${IRQMOD:-build/bin/irqmod}
out=${1:-/tmp/trace-load.txt}
rate=${2:-5000}
proto=${3:-udp}
mode=${4:-base}
source bench/lab-mode-settings.sh
[[ -n $(napi_settings "$mode") ]] || { echo "trace-load: MODE '$mode': allowed base, defer, napibusy, suspend, fullbusy" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "trace-load: needs root (tracefs, namespaces)" >&2; exit 2; }
[[ -x $irqmod ]] || { echo "no $irqmod: build first" >&2; exit 2; }
case $proto in
  udp) serve_proto=--udp load_proto=--udp ;;
  tcp) serve_proto=--tcp load_proto= ;;
  *) echo "trace-load: '$proto': allowed udp, tcp" >&2; exit 2 ;;
esac
[[ $rate =~ ^[0-9]+$ ]] && ((rate > 0 && rate <= 100000)) ||
  { echo "trace-load: RATE '$rate': allowed 1 to 100000 requests/s" >&2; exit 2; }
source bench/lab-trace.sh
trace_lab_up
# shellcheck disable=SC2046
"$irqmod" napi set --netns "$lab-srv" --dev veth-srv $(napi_settings "$mode") >/dev/null || exit 1
log=$(mktemp -d)
ip netns exec "$lab-srv" chrt -f 10 taskset -c 1 "$irqmod" serve --ip $ip --port $port $serve_proto \
  $(serve_flags "$mode") >"$log/serve.txt" 2>&1 &
server=$!
sleep 1
ip netns exec "$lab-cli" chrt -f 10 taskset -c 0 timeout 20 "$irqmod" load -i $ip -p $port \
  $load_proto --connections 4 --rate "$rate" --duration 3 --warmup 0.6 >"$log/load.txt" 2>&1 &
client=$!
trace_events_on
sleep 1.5  # inside load's measured part (after its 0.6 s warm-up)
trace_capture "$out"
wait "$client"
echo "# irqmod load: $(grep -m1 -E 'p50' "$log/load.txt" | tr -s ' ')"
echo "# trace: $out"
python3 bench/trace-load-analyse.py "$out"
