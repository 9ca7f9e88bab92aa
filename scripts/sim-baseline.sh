#!/usr/bin/env bash
# Every shipped scenario and every [[variant]] of it through `irqmod sim --json --no-wall-time`,
# one JSON file each, so that a refactor of the simulator can be shown to change no number:
#
#   scripts/sim-baseline.sh write DIR     # before the change
#   scripts/sim-baseline.sh check DIR     # after it: lists every file whose output differs
#
# IRQMOD (default build/bin/irqmod) picks the binary. Runs two at a time (the CI machine's cores).
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

# One line per run: output name, scenario file, variant ("" for the file itself).
runs() {
  find scenarios -name '*.toml' | sort | while read -r file; do
    local base=${file#scenarios/}
    base=${base//\//_}
    echo "${base%.toml}.json $file"
    awk -F'"' '/^\[\[variant\]\]/ { v = 1; next } v && /^name = / { print $2; v = 0 }' "$file" |
      while read -r variant; do echo "${base%.toml}@$variant.json $file $variant"; done
  done
}

out=$dir
[[ $mode == check ]] && out=$(mktemp -d)
mkdir -p "$out"
runs | xargs -P 2 -L 1 bash -c '
  name=$0 file=$1 variant=${2:-}
  args=(sim "$file" --json "'"$out"'/$name" --no-wall-time)
  [[ -n $variant ]] && args+=(--variant "$variant")
  "'"$irqmod"'" "${args[@]}" >/dev/null 2>"'"$out"'/$name.stderr" || echo "exit $? $name" >>"'"$out"'/$name.stderr"'
count=$(runs | wc -l)
if [[ $mode == write ]]; then
  echo "$count runs written to $dir"
  exit 0
fi
differences=0
while read -r name _; do
  if ! cmp -s "$dir/$name" "$out/$name" || ! cmp -s "$dir/$name.stderr" "$out/$name.stderr"; then
    echo "differs: $name"
    differences=$((differences + 1))
  fi
done < <(runs)
echo "$count runs, differences: $differences (new outputs in $out)"
[[ $differences -eq 0 ]]
