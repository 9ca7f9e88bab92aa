#!/usr/bin/env bash
# interrupt.sh IRQMOD SCENARIOS CASE: SIGINT / SIGTERM during a run leave no temporary result
# file (Output's "<file>.tmp-<pid>", gnuplot's scratch files) and exit 130 / 143 with a line
# naming what was not written (issue 30, item 5).
#  sim      sim --json --csv --trace --plot, SIGINT at several moments of the run
#  gnuplot  the same, SIGINT while gnuplot draws (a gnuplot that takes its time): it is stopped
#  sigterm  SIGTERM: 143, "terminated (SIGTERM)"
#  sweep    sweep --csv --json --plot and tune --csv --json, SIGINT during the points
set -euo pipefail
irqmod=$1; scenarios=$2; case=$3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir/tmp; mkdir "$TMPDIR"
stream=$scenarios/basics/stream-10g-dim.toml
pingpong=$scenarios/basics/pingpong-udp.toml

# interrupt SIGNAL WHEN COMMAND...: starts COMMAND in $dir/out, sends SIGNAL after WHEN seconds
# (or, for WHEN = file:F, once F exists: a moment the run reaches however fast the build is) and
# checks what is left. A command that ended before the signal must have written everything.
interrupt() {
  local signal=$1 delay=$2; shift 2
  rm -rf "$dir/out"; mkdir "$dir/out"
  (cd "$dir/out" && exec "$@" >/dev/null 2>"$dir/err") &
  local pid=$! status=0
  # The killer's output is not this script's: a sleep it leaves behind when it is stopped must not
  # hold ctest's pipe open (ctest waits for every writer of it, 30 s for nothing).
  if [[ $delay == file:* ]]; then
    (for _ in $(seq 1200); do [[ -e ${delay#file:} ]] && break; sleep 0.1; done
     kill -"$signal" "$pid" 2>/dev/null || true) >/dev/null 2>&1 &
  else
    (sleep "$delay"; kill -"$signal" "$pid" 2>/dev/null || true) >/dev/null 2>&1 &
  fi
  local killer=$!
  wait "$pid" || status=$?
  kill "$killer" 2>/dev/null || true
  wait "$killer" 2>/dev/null || true
  local left
  left=$(cd "$dir/out" && ls -A | grep -F '.tmp-' || true)
  [[ -z $left ]] || { echo "after $signal at ${delay}s: left $left"; cat "$dir/err"; exit 1; }
  left=$(ls -A "$TMPDIR")
  [[ -z $left ]] || { echo "after $signal at ${delay}s: scratch left in \$TMPDIR: $left"; exit 1; }
  case $status in
    0) ;;  # ended first: its results are there (checked by the caller)
    130 | 143)
      local want=130; [[ $signal == TERM ]] && want=143
      [[ $status -eq $want ]] || { echo "$signal: exit $status, expected $want"; exit 1; }
      # The handler's line (a signal before the command began is the default action: no line).
      if [[ -s $dir/err ]]; then
        grep -Eq "^irqmod [a-z]+: (interrupted \(SIGINT\)|terminated \(SIGTERM\)); (not written: |no result file)" \
          "$dir/err" || { echo "no line saying what was not written:"; cat "$dir/err"; exit 1; }
      fi
      ;;
    *) echo "after $signal at ${delay}s: exit $status"; cat "$dir/err"; exit 1 ;;
  esac
  echo "$signal at ${delay}s: exit $status"
  last_status=$status
}

sim=("$irqmod" sim "$stream" --json r.json --csv r.csv --trace t.json --plot p.png)
case $case in
  sim)
    for delay in 0 0.05 0.2 0.5 1; do
      interrupt INT "$delay" "${sim[@]}" --duration 20s
    done
    # The line names every result the run had open.
    grep -q 'not written: --plot p.png, --json r.json, --csv r.csv, --trace t.json$' "$dir/err"
    # A run that ends first writes them all (and this script's check of leftovers holds).
    interrupt INT 30 "${sim[@]}" --duration 20ms
    [[ $last_status -eq 0 && -s $dir/out/r.json && -s $dir/out/t.json && -s $dir/out/p.png ]]
    ;;
  gnuplot)
    # A gnuplot that sleeps before drawing, and says where it is.
    mkdir "$dir/bin"
    real=$(command -v gnuplot)
    printf '#!/bin/sh\necho $$ > %s/pid.part && mv %s/pid.part %s/gnuplot.pid\nsleep 31\nexec %s "$@"\n' \
      "$dir" "$dir" "$dir" "$real" \
      >"$dir/bin/gnuplot"
    chmod +x "$dir/bin/gnuplot"
    interrupt INT "file:$dir/gnuplot.pid" env PATH="$dir/bin:$PATH" "${sim[@]}" --duration 20ms
    [[ $last_status -eq 130 ]]
    [[ -s $dir/gnuplot.pid ]] || { echo "gnuplot never started"; exit 1; }
    ! kill -0 "$(cat "$dir/gnuplot.pid")" 2>/dev/null || { echo "gnuplot left running"; exit 1; }
    ! pgrep -f "sleep 31" >/dev/null || { echo "gnuplot's own child left running"; exit 1; }
    grep -q 'not written: --plot p.png$' "$dir/err" || { cat "$dir/err"; exit 1; }
    ;;
  sigterm)
    interrupt TERM 0.5 "${sim[@]}" --duration 20s
    [[ $last_status -eq 143 ]]
    grep -q '^irqmod sim: terminated (SIGTERM); not written: ' "$dir/err"
    ;;
  sweep)
    interrupt INT 0.5 "$irqmod" sweep "$pingpong" --duration 1s -j 1 \
      --vary nic.rx-usecs=2:64:2 --csv s.csv --json s.json --plot s.svg
    [[ $last_status -eq 130 ]]
    grep -q '^irqmod sweep: interrupted (SIGINT); not written: --csv s.csv, --json s.json, --plot s.svg$' \
      "$dir/err" || { cat "$dir/err"; exit 1; }
    interrupt INT 0.5 "$irqmod" tune "$pingpong" --duration 1s -j 1 --minimize cpu \
      --vary nic.rx-usecs=2:64:2 --csv t.csv --json t.json
    [[ $last_status -eq 130 ]]
    grep -q '^irqmod tune: interrupted (SIGINT); not written: --csv t.csv, --json t.json$' "$dir/err"
    ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
echo "$case: ok"
