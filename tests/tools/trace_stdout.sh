#!/usr/bin/env bash
# trace_stdout.sh IRQMOD SCENARIO: `irqmod sim SCENARIO --trace -` must put the trace, and only
# the trace, on stdout: one JSON document from its first byte to its last.
set -euo pipefail
irqmod=$1 scenario=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$irqmod" sim "$scenario" --duration 1ms --trace - >"$out"
head -c 40 "$out" | grep -q '^{"displayTimeUnit":"ns","traceEvents":\[' ||
  { echo "stdout does not start with the trace:"; head -3 "$out"; exit 1; }
[[ $(tail -n 1 "$out") == "]}" ]] || { echo "stdout does not end with the trace:"; tail -3 "$out"; exit 1; }
if grep -q -e '^conservation:' -e '^sockperf:' "$out"; then
  echo "the text report is mixed into the trace:"; grep -n -e '^conservation:' -e '^sockperf:' "$out"
  exit 1
fi
echo "stdout: $(wc -c <"$out") bytes of trace, nothing else"
