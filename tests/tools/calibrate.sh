#!/usr/bin/env bash
# calibrate.sh IRQMOD SCENARIO: `irqmod calibrate --quick` writes a platform file and JSON; every
# key line and every "no key yet" line carries a method and a spread; the simulator loads the
# file as a platform (IRQMOD_PLATFORM_PATH) and runs SCENARIO on it to the end, with a latency
# that varies (the costs are distributions, not constants). Also checks the run's time.
set -euo pipefail
irqmod=$1; scenario=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
start=$(date +%s)
"$irqmod" calibrate --quick --out "$dir/measured.toml" --json >"$dir/measured.json" 2>"$dir/log"
took=$(($(date +%s) - start))
# --quick's promise is 10 s; a loaded CI machine gets twice that before this fails.
((took <= 20)) || { echo "calibrate --quick took $took s"; exit 1; }
file="$dir/measured.toml"
for header in '^# cpu: ' '^# kernel: ' '^# date: ' '^# command: irqmod calibrate --out .* --quick --json$' \
              '^# run: [0-9.]+ s, --quick, nice -?[0-9]+.*; load average '; do
  grep -Eq "$header" "$file" || { echo "no header line /$header/"; cat "$file"; exit 1; }
done
# A key line: name = "value"  # method; p10/p50/p90 A/B/C ns; n N; fit: why
key_line='^(# no key yet: [a-z]+\.)?[a-z][a-z0-9-]* = "[^"]+"  # [^;]+.*; p10/p50/p90 -?[0-9]+/-?[0-9]+/-?[0-9]+ ns; n [1-9][0-9]*; fit: .+$'
# A curve (cpu.wakeup-idle): points, then its method with every point's p10/p50/p90.
curve_line='^[a-z][a-z0-9-]* = "[0-9]+us:[0-9]+ns(, [0-9]+us:[0-9]+ns)+"  # .*; p10/p50/p90 per idle: [0-9]+ us [0-9]+/[0-9]+/[0-9]+.* ns$'
# A fact of the host (cpu.hypervisor, cpu.hz): a TOML literal and how it was found.
fact_line='^[a-z][a-z0-9-]* = (true|false|[1-9][0-9]*)  # .+$'
keys=0
while IFS= read -r line; do
  case $line in
    ''|'['*|'# skipped: '*|'# measured: '*) continue ;;
    '# no key yet: '*) ;;
    '#'*) continue ;;
  esac
  [[ $line =~ $key_line || $line =~ $curve_line || $line =~ $fact_line ]] ||
    { echo "a key line without a method and a spread: $line"; exit 1; }
  keys=$((keys + 1))
done <"$file"
((keys >= 10)) || { echo "only $keys key lines"; cat "$file"; exit 1; }
grep -q '^syscall = ' "$file" || { echo "no cpu.syscall"; exit 1; }
grep -q '^wakeup-idle = \|^# no key yet: cpu\.wakeup-idle = \|^# skipped: cpu\.wakeup-idle: ' "$file" \
  || { echo "cpu.wakeup-idle neither measured nor skipped"; exit 1; }
# The JSON is one object with an entry per key and raw measurement.
grep -q '^{"cpu_model": .*"quick": true.*"entries": \[{"key": "cpu.syscall", "kind": "key", "value": "' \
  "$dir/measured.json" || { echo "JSON:"; head -c 600 "$dir/measured.json"; exit 1; }
# The simulator loads it as a platform and runs a scenario on it.
out=$(IRQMOD_PLATFORM_PATH="$dir" "$irqmod" sim "$scenario" --set platform=measured --duration 20ms)
grep -q '^conservation: .*: ok$' <<<"$out" || { echo "$out"; exit 1; }
grep -Eq 'avg-latency=[0-9.]+ \(std-dev=[0-9.]*[1-9][0-9.]*\)' <<<"$out" \
  || { echo "the latency does not vary:"; echo "$out"; exit 1; }
echo "calibrate --quick: $keys key lines in $took s; $(grep -m1 avg-latency <<<"$out")"
