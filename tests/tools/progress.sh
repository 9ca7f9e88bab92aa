#!/usr/bin/env bash
# progress.sh IRQMOD SCENARIOS [RUN_DURATION SIM_DURATION]: a long `sim` or `run` shows its
# progress on stderr when stderr is a terminal (script(1) gives it one), and nothing when it is
# not (issue 30, item 5). The durations (simulated, default 3s and 4s) are chosen per build so
# that each run takes a few seconds of wall time: the bar appears once a run has taken one.
set -euo pipefail
irqmod=$1; scenarios=$2; run_duration=${3:-3s}; sim_duration=${4:-4s}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
command -v script >/dev/null || { echo "script (util-linux) is needed"; exit 1; }
run=("$irqmod" run --dir "$scenarios/basics" --duration "$run_duration")
sim=("$irqmod" sim "$scenarios/basics/stream-10g-dim.toml" --duration "$sim_duration")

script -qfec "${run[*]} >/dev/null" /dev/null >"$dir/run.tty"
grep -aEq '\[[0-9]+/4\] [a-z0-9-]+ \[#+ *\] +[0-9]+%  simulated' "$dir/run.tty" ||
  { echo "run on a terminal showed no progress:"; tr '\r' '\n' <"$dir/run.tty" | tail -5; exit 1; }
script -qfec "${sim[*]} >/dev/null" /dev/null >"$dir/sim.tty"
grep -aEq '\[#+ *\] +[0-9]+%  simulated [0-9.]+ s' "$dir/sim.tty" ||
  { echo "sim on a terminal showed no progress"; exit 1; }

"${run[@]}" >/dev/null 2>"$dir/run.err"
"${sim[@]}" >/dev/null 2>"$dir/sim.err"
[[ ! -s $dir/run.err && ! -s $dir/sim.err ]] ||
  { echo "progress written where stderr is not a terminal:"; cat "$dir/run.err" "$dir/sim.err"; exit 1; }
echo "progress: on a terminal only"
