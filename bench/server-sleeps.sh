#!/usr/bin/env bash
# bench/server-sleeps.sh [MODE] [RATE] [udp|tcp] [RUNS] — how often irqmod serve goes to sleep in
# one of the 6.13 modes (bench/lab-mode-settings.sh; default napibusy) under irqmod load (4
# connections, Poisson, 64 B) at RATE requests/s (default 20000), untraced: the server's voluntary
# context switches (every thread's, /proc/PID/task/*/status) and its CPU time (/proc/PID/stat)
# over 1 s inside each run, beside load's latency quartiles. In the busy-poll modes each sleep
# ends at gro_flush_timeout's watchdog, so the rate of sleeps sets how many requests wait for it
# (docs/sim-vs-lab.md, the nineteenth run). The model's count for the same cell is its server
# core's timer_polls in `irqmod sim --json` (about one watchdog poll a sleep). Root; the lab's
# namespaces are created and removed; each run is bounded (load --duration 3, timeout 20).
set -u
cd "$(dirname "$0")/.." || exit 2
irqmod=${IRQMOD:-build/bin/irqmod}
mode=${1:-napibusy}
rate=${2:-20000}
proto=${3:-udp}
runs=${4:-3}
source bench/lab-mode-settings.sh
[[ -n $(napi_settings "$mode") ]] ||
  { echo "server-sleeps: MODE '$mode': allowed base, defer, napibusy, suspend, fullbusy" >&2; exit 2; }
[[ $rate =~ ^[0-9]+$ ]] && ((rate > 0 && rate <= 100000)) ||
  { echo "server-sleeps: RATE '$rate': allowed 1 to 100000 requests/s" >&2; exit 2; }
[[ $proto == udp || $proto == tcp ]] || { echo "server-sleeps: '$proto': allowed udp, tcp" >&2; exit 2; }
[[ $runs =~ ^[0-9]+$ ]] && ((runs >= 1 && runs <= 20)) ||
  { echo "server-sleeps: RUNS '$runs': allowed 1 to 20" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "server-sleeps: needs root (namespaces)" >&2; exit 2; }
[[ -x $irqmod ]] || { echo "no $irqmod: build first" >&2; exit 2; }
lab=irqmod-lab-ss$$ ip=198.18.0.1 port=11111 hz=$(getconf CLK_TCK)
"$irqmod" lab up --name "$lab" >/dev/null || exit 1
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null
  "$irqmod" lab down --name "$lab" >/dev/null 2>&1
}
trap cleanup EXIT
# shellcheck disable=SC2046
"$irqmod" napi set --netns "$lab-srv" --dev veth-srv $(napi_settings "$mode") >/dev/null || exit 1
switches() { cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt_switches/ { s += $2 } END { print s }'; }
ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }
log=$(mktemp -d)
echo "# server-sleeps: $mode, $rate req/s, $proto, $runs runs; $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %8s %8s %8s %8s %9s %6s\n' run p25_us p50_us p75_us avg_us sleeps/s cpu_%
for r in $(seq "$runs"); do
  # ip netns exec, chrt and taskset each exec the next: $! is irqmod serve's PID.
  # shellcheck disable=SC2046
  ip netns exec "$lab-srv" chrt -f 10 taskset -c 1 "$irqmod" serve --ip $ip --port $port "--$proto" \
    $(serve_flags "$mode") >"$log/serve.txt" 2>&1 &
  server=$!
  sleep 0.5
  ip netns exec "$lab-cli" chrt -f 10 taskset -c 0 timeout 20 "$irqmod" load -i $ip -p $port \
    $([[ $proto == udp ]] && echo --udp) --connections 4 --rate "$rate" --duration 3 --warmup 0.6 \
    --seed "$r" >"$log/load.txt" 2>&1 &
  client=$!
  sleep 1
  s0=$(switches "$server") c0=$(ticks "$server") t0=$(date +%s%N)
  sleep 1
  s1=$(switches "$server") c1=$(ticks "$server") t1=$(date +%s%N)
  wait "$client"
  kill "$server"; wait "$server" 2>/dev/null; server=
  field() { grep -o " $1=[0-9.]*" "$log/load.txt" | cut -d= -f2; }
  awk -v r="$r" -v a="$(field p25_us)" -v b="$(field p50_us)" -v c="$(field p75_us)" \
    -v d="$(field avg_us)" -v s=$((s1 - s0)) -v c0="$c0" -v c1="$c1" -v dt=$((t1 - t0)) -v hz="$hz" \
    'BEGIN { printf "%-4s %8.1f %8.1f %8.1f %8.1f %9.0f %6.0f\n", r, a, b, c, d, s / (dt / 1e9),
             (c1 - c0) / hz / (dt / 1e9) * 100 }'
done
