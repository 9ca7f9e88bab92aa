#!/usr/bin/env bash
# outputs.sh IRQMOD DATA CASE: how irqmod's results reach their files and standard output
# (exit status 3 when they cannot; a result file never left cut off or half-written).
#   stdout-full       every command's standard output on a full disk (/dev/full) exits 3
#   no-partial-file   a run that fails after its outputs were opened leaves no file, and an
#                     existing file as it was; a run that succeeds leaves no temporary file and
#                     writes through a symbolic link, keeping it
#   help-has-no-nul   no --help contains a NUL byte
set -uo pipefail
irqmod=$1; data=$2; case=$3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case $case in
  stdout-full)
    while IFS= read -r command; do
      # shellcheck disable=SC2086
      "$irqmod" $command >/dev/full 2>"$dir/err"; status=$?
      [[ $status -eq 3 ]] || fail "'irqmod $command >/dev/full' exited $status, not 3: $(cat "$dir/err")"
      grep -q "cannot write standard output" "$dir/err" ||
        fail "'irqmod $command >/dev/full' did not say why: $(cat "$dir/err")"
    done <<LIST
sim $data/pingpong.toml --duration 1ms
sim $data/pingpong.toml --json -
sim $data/pingpong.toml --print-scenario
run --dir $data/seed-rows
dim-replay $data/../../../data/traces/dim-demo.csv
itr --device 82599 --rate 8000
kernel-diff 5.10 6.18
demo
help keys
--version
LIST
    ;;
  no-partial-file)
    out=$dir/report.json
    "$irqmod" sim "$data/missing-capture/capture.toml" --json "$out" >/dev/null 2>&1
    [[ ! -e $out ]] || fail "a run that failed left $out"
    echo old >"$out"
    "$irqmod" sim "$data/missing-capture/capture.toml" --json "$out" --csv "$dir/r.csv" \
      >/dev/null 2>&1
    [[ $(cat "$out") == old ]] || fail "a run that failed changed $out"
    [[ ! -e $dir/r.csv ]] || fail "a run that failed left $dir/r.csv"
    "$irqmod" sim "$data/pingpong.toml" --json "$out" --csv "$dir/r.csv" --trace "$dir/r.trace" \
      >/dev/null || fail "the run failed"
    grep -q '"conservation"' "$out" || fail "$out is not the new report"
    ln -s report.json "$dir/link.json"
    "$irqmod" sim "$data/pingpong.toml" --json "$dir/link.json" >/dev/null || fail "the run failed"
    [[ -L $dir/link.json ]] || fail "writing through a symbolic link replaced the link"
    leftovers=$(find "$dir" -name '*.tmp-*')
    [[ -z $leftovers ]] || fail "temporary files left: $leftovers"
    ;;
  help-has-no-nul)
    for command in demo dim-replay itr kernel-diff sim run serve lab napi top help; do
      nul=$("$irqmod" "$command" --help | tr -dc '\0' | wc -c)
      [[ $nul -eq 0 ]] || fail "irqmod $command --help has $nul NUL bytes"
    done
    ;;
  *) fail "unknown case $case" ;;
esac
echo "ok: $case"
