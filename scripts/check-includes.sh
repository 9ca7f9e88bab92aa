#!/usr/bin/env bash
# The simulator's include directions: calls point one way, down the path a packet takes, and
# what must go up goes through an endpoint (docs/architecture.md, "Who calls whom"). Each folder
# of src/sim/ may include its own headers, sim/world.hpp, and the folders below it here; nothing
# else. Components take a config built by policy_config, so none of them includes the whole
# scenario (irqmod/sim/scenario.hpp), except where the table says so.
#
#   scripts/check-includes.sh [ROOT]    # ROOT: the source tree (default: this checkout)
#
# Exit 0 when every include follows the table, 1 with one line per include that does not.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
sim=$root/src/sim
[[ -d $sim ]] || { echo "check-includes: no $sim" >&2; exit 2; }

# folder: the folders it may include (below it on the packet's path).
declare -A allowed=(
  [cpu]=""
  [irq]="cpu"
  [napi]="cpu"
  [nic]="cpu irq napi"
  [dev]="cpu napi"
  [net]=""
  [host]="cpu napi nic net"
  [app]="cpu napi nic host net"
  [far]="cpu nic net"
  [xdp]="cpu irq napi nic"
  [storage]="cpu irq"
)
# Folders whose components still read the scenario itself (issue 27's run set-up work).
declare -A reads_scenario=([xdp]=1 [storage]=1)
# Files that wire one kind of run (like builder.cpp at the top): they may include anything.
wiring_re='^(xdp/xdp_run|storage/storage_run|lab/lab_run)\.(hpp|cpp)$'

status=0
while IFS= read -r file; do
  rel=${file#"$sim"/}
  folder=${rel%%/*}
  [[ $rel =~ $wiring_re ]] && continue
  if [[ ! -v allowed[$folder] ]]; then
    echo "$rel: folder '$folder' is not in scripts/check-includes.sh's table (add it, with what it may include)"
    status=1
    continue
  fi
  while IFS= read -r line; do
    number=${line%%:*}
    target=${line#*:}
    target=${target#*\"}
    target=${target%\"*}
    case $target in
      sim/world.hpp) continue ;;
      irqmod/sim/scenario.hpp)
        [[ -v reads_scenario[$folder] ]] && continue
        echo "$rel:$number: includes $target: a component takes a config built by policy_config, not the scenario"
        status=1
        continue
        ;;
      sim/*/*) ;;
      sim/*)
        echo "$rel:$number: includes $target: a top-level file (wiring) from a component"
        status=1
        continue
        ;;
      *) continue ;;
    esac
    to=${target#sim/}
    to=${to%%/*}
    [[ $to == "$folder" ]] && continue
    if [[ " ${allowed[$folder]} " != *" $to "* ]]; then
      echo "$rel:$number: includes $target: $folder/ may include only ${allowed[$folder]:-nothing} (go through an endpoint)"
      status=1
    fi
  done < <(grep -nE '^#include "' "$file" || true)
done < <(find "$sim" -mindepth 2 -name '*.hpp' -o -mindepth 2 -name '*.cpp' | sort)
[[ $status -eq 0 ]] && echo "check-includes: every include in src/sim follows the table"
exit $status
