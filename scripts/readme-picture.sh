#!/usr/bin/env bash
# readme-picture.sh [IRQMOD]: makes docs/img/sweep-pingpong.png, the README's picture, with the
# command the README shows: sockperf-like UDP ping-pong on the i40e preset, rx-usecs x busy_read
# x napi_defer_hard_irqs (gro_flush_timeout 20 us), 1 s simulated per point; and
# docs/img/sim-stream-dim.png, the time series of one run (irqmod sim --plot).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
irqmod=${1:-$here/build/bin/irqmod}
cd "$here"
set -x
"$irqmod" sweep scenarios/basics/pingpong-udp.toml \
  --vary nic.rx-usecs=2,8,16,32,64 --vary napi.busy_read=0,50us \
  --vary napi.napi_defer_hard_irqs=0,2 --set napi.gro_flush_timeout=20us \
  --csv docs/img/sweep-pingpong.csv --plot docs/img/sweep-pingpong.png
# The time series of one run (irqmod sim --plot): a 10 GbE stream under net_dim in 50 ms bursts
# of 300 kpps with 50 ms gaps, 300 ms simulated: a load one core keeps up with, so that net_dim
# has something to act on and its rx-usecs moves (at 2 Mpps it sat at its first profile).
"$irqmod" sim scenarios/basics/stream-10g-dim.toml --duration 300ms \
  --set traffic.kind=on-off --set traffic.rate=300000 \
  --set traffic.on-time=50ms --set traffic.off-time=50ms \
  --plot docs/img/sim-stream-dim.png --plot-csv docs/img/sim-stream-dim.csv > /dev/null
