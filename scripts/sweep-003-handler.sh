#!/bin/sh
# Seed 003's handler-duration effect: the posted-MSI scenario with the NVMe handler's fixed run
# time (cpu.nvme-irq) swept, as a Markdown table of device MSIs/s against notifications/s.
#   scripts/sweep-003-handler.sh [irqmod binary] [duration]
# (docs/seeds.md, "Seed 003 in detail", holds its output; tests/sim/seeds/seed_003_test.cpp checks
# that the ratio falls.)
set -eu
bin=${1:-build/bin/irqmod}
duration=${2:-100ms}
scenario=scenarios/seeds/003-posted-msi.toml
echo "| cpu.nvme-irq (ns) | IOPS (M) | device MSIs/s (M) | notifications/s (M) | notifications / MSIs | handler calls / notification | CPU (%) |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for ns in 0 50 100 150 250 500 1000 2000 4000; do
  "$bin" sim "$scenario" --set cpu.nvme-irq="$ns" --set scenario.duration="$duration" --json - |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["storage"]
print("| %s | %.2f | %.2f | %.3f | %.3f | %.2f | %.1f |" % (sys.argv[1], s["iops"] / 1e6,
      s["device_msis_per_second"] / 1e6, s["notifications_per_second"] / 1e6,
      s["notifications"] / max(1, s["device_msis"]), s["handler_calls"] / max(1, s["notifications"]),
      100 * d["cpu"]["utilization"]))' "$ns"
done
