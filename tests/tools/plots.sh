#!/usr/bin/env bash
# plots.sh IRQMOD SCENARIOS CASE: pictures that draw, with gnuplot itself (issue 30, item 6).
#  one-point-front  a sweep whose Pareto front has one point (the grid, whose
#                   interrupts/s front is one point, and a grid of one), SVG and PNG
#  no-latency       a sweep whose latency is empty in every row (a storage run): the frontier
#                   and a metric against a key draw, SVG and PNG, and say what they leave out
#  gnuplot-fails    gnuplot's own message and fate are reported: not found, an error, a crash
# Every case: exit 0, non-empty pictures of the right kind, and no scratch file left in $TMPDIR.
set -euo pipefail
irqmod=$1; scenarios=$2; case=$3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir/tmp; mkdir "$TMPDIR"
pingpong=$scenarios/basics/pingpong-udp.toml
storage=$scenarios/seeds/003-interrupts.toml  # NVMe completions: no message latency

picture() {  # picture FILE: a non-empty SVG or PNG
  [[ -s $1 ]] || { echo "$1: not drawn"; exit 1; }
  case $1 in
    *.svg) grep -q '<svg' "$1" || { echo "$1: not an SVG"; exit 1; } ;;
    *.png) [[ $(head -c 4 "$1" | tail -c 3) == PNG ]] || { echo "$1: not a PNG"; exit 1; } ;;
  esac
}
fails() {  # fails PATTERN COMMAND...: exit 3 with PATTERN in stderr
  local pattern=$1; shift
  local status=0; "$@" 2>"$dir/err" >/dev/null || status=$?
  [[ $status -eq 3 ]] || { echo "expected exit 3, got $status: $*"; cat "$dir/err"; exit 1; }
  grep -Eq -- "$pattern" "$dir/err" || { echo "no /$pattern/ in:"; cat "$dir/err"; exit 1; }
}

case $case in
  one-point-front)
    for ext in svg png; do
      "$irqmod" sweep "$pingpong" --duration 20ms --vary nic.rx-usecs=2,8,32 \
        --vary napi.busy_read=0,50us --csv "$dir/grid.csv" --plot "$dir/grid.$ext"
      picture "$dir/grid.$ext"
      "$irqmod" sweep "$pingpong" --duration 5ms --vary nic.rx-usecs=8 --csv /dev/null \
        --plot "$dir/one.$ext"
      picture "$dir/one.$ext"
      "$irqmod" plot "$dir/grid.csv" -o "$dir/again.$ext"
      picture "$dir/again.$ext"
    done
    grep -q 'Pareto front (p99)' "$dir/one.svg"
    ;;
  no-latency)
    for ext in svg png; do
      "$irqmod" sweep "$storage" --duration 2ms --vary scenario.seed=1,2 --csv "$dir/s.csv" \
        --plot "$dir/s.$ext" 2>"$dir/err"
      picture "$dir/s.$ext"
      grep -q 'note: no point measured a latency' "$dir/err" || { cat "$dir/err"; exit 1; }
      "$irqmod" plot "$dir/s.csv" --against scenario.seed --metric p99 -o "$dir/p99.$ext" \
        2>"$dir/err"
      picture "$dir/p99.$ext"
      grep -q 'note: no value in any row: latency_p99_ns' "$dir/err" || { cat "$dir/err"; exit 1; }
      "$irqmod" plot "$dir/s.csv" --against scenario.seed --metric p99 --metric cpu \
        -o "$dir/two.$ext" 2>/dev/null
      picture "$dir/two.$ext"
    done
    grep -q 'no point measured a latency' "$dir/s.svg"
    grep -q 'no value in any row: latency_p99_ns' "$dir/two.svg"
    ;;
  gnuplot-fails)
    # PATH without gnuplot; a gnuplot that complains; one that crashes.
    mkdir "$dir/bin"
    ln -s "$(command -v mktemp)" "$dir/bin/mktemp"
    sweep=("$irqmod" sweep "$pingpong" --duration 2ms --vary nic.rx-usecs=8 --csv /dev/null)
    fails "--plot: gnuplot could not be started \(No such file or directory\): is Debian's gnuplot-nox installed" \
      env PATH="$dir/bin" "${sweep[@]}" --plot "$dir/x.svg"
    printf '#!/bin/sh\necho "line 7: undefined variable: foo" >&2\nexit 1\n' >"$dir/bin/gnuplot"
    chmod +x "$dir/bin/gnuplot"
    fails "gnuplot could not draw '.*x.svg' \(exit 1\)$" env PATH="$dir/bin" "${sweep[@]}" --plot "$dir/x.svg"
    fails "^  gnuplot: line 7: undefined variable: foo$" env PATH="$dir/bin" "${sweep[@]}" --plot "$dir/x.svg"
    printf '#!/bin/sh\necho "about to fall over" >&2\nkill -SEGV $$\n' >"$dir/bin/gnuplot"
    fails "gnuplot died of signal 11 \(Segmentation fault\) drawing '.*x.png'" \
      env PATH="$dir/bin" "${sweep[@]}" --plot "$dir/x.png"
    grep -q '  gnuplot: about to fall over' "$dir/err"
    ! grep -q 'install' "$dir/err" || { echo "a crash blamed on the package:"; cat "$dir/err"; exit 1; }
    [[ ! -e $dir/x.svg && ! -e $dir/x.png ]] || { echo "a picture was left"; exit 1; }
    ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
left=$(ls -A "$TMPDIR")
[[ -z $left ]] || { echo "scratch files left in \$TMPDIR: $left"; exit 1; }
echo "$case: ok"
