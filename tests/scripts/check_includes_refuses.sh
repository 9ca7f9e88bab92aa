#!/usr/bin/env bash
# scripts/check-includes.sh must fail on an include that points up the packet's path: a copy of
# src/sim where a NIC file includes the application, and one where it includes the scenario.
set -euo pipefail
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for case in upward scenario; do
  rm -rf "$work/src"
  mkdir -p "$work/src"
  cp -r "$source_dir/src/sim" "$work/src/sim"
  if [[ $case == upward ]]; then
    sed -i '0,/^#include "sim\//s//#include "sim\/app\/server.hpp"\n#include "sim\//' "$work/src/sim/nic/port.hpp"
    expected='nic/port.hpp:[0-9]+: includes sim/app/server.hpp: nic/ may include only cpu irq napi'
  else
    sed -i '0,/^#include "sim\//s//#include "irqmod\/sim\/scenario.hpp"\n#include "sim\//' "$work/src/sim/napi/instance.hpp"
    expected='napi/instance.hpp:[0-9]+: includes irqmod/sim/scenario.hpp: a component takes a config'
  fi
  status=0
  out=$("$source_dir/scripts/check-includes.sh" "$work" 2>&1) || status=$?
  if [[ $status -ne 1 ]] || ! grep -Eq "$expected" <<<"$out"; then
    echo "check-includes.sh did not refuse the $case include (exit $status):"
    echo "$out"
    exit 1
  fi
done
echo "check-includes.sh refuses an upward include and a component reading the scenario"
