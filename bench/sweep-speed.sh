#!/usr/bin/env bash
# sweep-speed.sh [IRQMOD] [-j N]: issue 15's speed target. A 1000-point sweep of
# scenarios/basics/pingpong-udp.toml, 1 s simulated per point (rx-usecs 1..100 us x 10 message
# sizes 64..1216 bytes), must take <= 30 s of wall time on the project's 2-core machine.
# Prints one point's cost first (the scenario as written, rx-usecs 50), then the sweep's wall
# time, CPU time, events and events per CPU-second. Exit 1 when the sweep took over 30 s.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
irqmod=${1:-$here/build/bin/irqmod}; shift || true
scenario=$here/scenarios/basics/pingpong-udp.toml
out=$(mktemp); trap 'rm -f "$out"' EXIT

now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
cpu() { awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat; }  # this shell's + its children's ticks

t0=$(now)
"$irqmod" sim "$scenario" --csv "$out" >/dev/null
t1=$(now)
events=$(sed -n 2p "$out" | cut -d, -f4)
printf 'one point (irqmod sim, rx-usecs 50, 1 s simulated): %.3f s wall, %s events\n' \
  "$(calc "$t1 - $t0")" "$events"

ticks0=$(cpu); t0=$(now)
"$irqmod" sweep "$scenario" --vary nic.rx-usecs=1:100:1 --vary traffic.msg-size=64:1216:128 \
  "$@" --csv "$out"
t1=$(now); ticks1=$(cpu)
hz=$(getconf CLK_TCK)
wall=$(calc "$t1 - $t0")
cpu_s=$(calc "($ticks1 - $ticks0) / $hz")
points=$(($(wc -l <"$out") - 1))
events=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "events") c = i; next }
                 { e += $c } END { printf "%d", e }' "$out")
printf 'sweep: %d points, %.1f s wall, %.1f s CPU (%.1f ms CPU per point), %d events, %.1f M events per CPU-second, %d cores\n' \
  "$points" "$wall" "$cpu_s" "$(calc "$cpu_s * 1000 / $points")" "$events" \
  "$(calc "$events / $cpu_s / 1000000")" "$(nproc)"
# In parentheses: awk reads a bare "print X > 30" as output to a file named 30.
if (($(calc "($wall > 30)"))); then
  echo "sweep-speed: over the 30 s target (the load average was $(cut -d' ' -f1 /proc/loadavg))"
  exit 1
fi
echo "sweep-speed: within the 30 s target"
