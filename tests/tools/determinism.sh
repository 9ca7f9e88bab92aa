#!/usr/bin/env bash
# determinism.sh IRQMOD SCENARIO [SIM OPTIONS...]: two runs of one scenario and seed must write
# byte-identical JSON (wall_ns left out) and identical timelines.
set -euo pipefail
irqmod=$1; scenario=$2; shift 2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
for i in 1 2; do
  "$irqmod" sim "$scenario" "$@" --no-wall-time --json "$dir/run$i.json" --trace "$dir/run$i.trace" >/dev/null
done
cmp "$dir/run1.json" "$dir/run2.json"
cmp "$dir/run1.trace" "$dir/run2.trace"
grep -q '"conservation": *{[^}]*"ok": *true' "$dir/run1.json" || { echo "conservation not ok"; cat "$dir/run1.json"; exit 1; }
echo "identical: $(wc -c <"$dir/run1.json") bytes of JSON, $(wc -c <"$dir/run1.trace") bytes of trace"
