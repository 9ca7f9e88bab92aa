#!/usr/bin/env bash
# Every shipped scenario and every [[variant]] of it through `irqmod sim --no-wall-time`, its
# JSON (--json), CSV (--csv) and text report (stdout) kept one file each, and the suite through
# `irqmod run --json` (the seed tables), so that a refactor of the simulator can be shown to
# change no number and no character of any output:
#
#   scripts/sim-baseline.sh write DIR     # before the change
#   scripts/sim-baseline.sh check DIR     # after it: lists every file whose output differs
#
# A baseline written before the CSV and text files were kept lacks them: check reports those as
# differing (write it again with the old binary). IRQMOD (default build/bin/irqmod) picks the
# binary. Runs two at a time (the CI machine's cores).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
dir=${2:-}
if [[ $mode != write && $mode != check ]] || [[ -z $dir ]]; then
  echo "usage: $0 write|check DIR" >&2
  exit 2
fi
irqmod=${IRQMOD:-build/bin/irqmod}
[[ -x $irqmod ]] || { echo "$0: $irqmod is not built" >&2; exit 2; }

# One line per run: output name (without extension), scenario file, variant ("" for the file).
runs() {
  find scenarios -name '*.toml' | sort | while read -r file; do
    local base=${file#scenarios/}
    base=${base//\//_}
    echo "${base%.toml} $file"
    awk -F'"' '/^\[\[variant\]\]/ { v = 1; next } v && /^name = / { print $2; v = 0 }' "$file" |
      while read -r variant; do echo "${base%.toml}@$variant $file $variant"; done
  done
}

out=$dir
[[ $mode == check ]] && out=$(mktemp -d)
mkdir -p "$out"
runs | xargs -P 2 -L 1 bash -c '
  name=$0 file=$1 variant=${2:-}
  out="'"$out"'"
  args=(sim "$file" --json "$out/$name.json" --csv "$out/$name.csv" --no-wall-time)
  [[ -n $variant ]] && args+=(--variant "$variant")
  "'"$irqmod"'" "${args[@]}" >"$out/$name.txt" 2>"$out/$name.stderr" || echo "exit $? $name" >>"$out/$name.stderr"'
# The suite's table on stdout carries wall times; its JSON (every report and the seed rows) does not.
"$irqmod" run --json "$out/run.json" >/dev/null 2>"$out/run.stderr" || echo "exit $?" >>"$out/run.stderr"
count=$(runs | wc -l)
if [[ $mode == write ]]; then
  echo "$count runs and the suite written to $dir"
  exit 0
fi
differences=0
files=0
while read -r name _; do
  for kind in json csv txt stderr; do
    files=$((files + 1))
    if ! cmp -s "$dir/$name.$kind" "$out/$name.$kind"; then
      echo "differs: $name.$kind"
      differences=$((differences + 1))
    fi
  done
done < <(runs)
for file in run.json run.stderr; do
  files=$((files + 1))
  if ! cmp -s "$dir/$file" "$out/$file"; then
    echo "differs: $file"
    differences=$((differences + 1))
  fi
done
echo "$count runs and the suite, $files files, differences: $differences (new outputs in $out)"
[[ $differences -eq 0 ]]
