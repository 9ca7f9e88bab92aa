#!/usr/bin/env bash
# Installs the build into a throwaway prefix (cmake --install --prefix), then builds and runs
# tests/consumer against it with find_package(irqmod), as a project outside the repository
# would. Also checks the installed layout and that the installed tool finds its data there.
# Usage: consumer.sh BUILD_DIR CONSUMER_SOURCE CXX CXX_FLAGS EXE_LINKER_FLAGS BUILD_TYPE
set -euo pipefail
build=$1 consumer=$2 cxx=$3 cxx_flags=$4 link_flags=$5 build_type=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
for f in bin/irqmod include/irqmod/policy/itr.hpp include/irqmod/sim/simulation.hpp \
         lib/cmake/irqmod/irqmodConfig.cmake lib/cmake/irqmod/irqmodConfigVersion.cmake \
         share/irqmod/scenarios/basics/pingpong-udp.toml share/irqmod/platforms/x86-i40e.toml \
         share/irqmod/data/traces/dim-demo.csv share/doc/irqmod/README.md \
         share/doc/irqmod/simulator.md; do
  [[ -e $prefix/$f ]] || { echo "consumer.sh: $f is not installed" >&2; exit 1; }
done
# The runtime library is the tool's, not installed (cmake/install.cmake says why).
if [[ -e $prefix/include/irqmod/rt ]]; then
  echo "consumer.sh: include/irqmod/rt should not be installed" >&2
  exit 1
fi

cmake -S "$consumer" -B "$tmp/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxx_flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$link_flags" -DCMAKE_BUILD_TYPE="$build_type" >"$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
"$tmp/build/policy_consumer"
"$tmp/build/sim_consumer"

# The installed tool reads the installed data: the demo names the trace it replays.
"$prefix/bin/irqmod" demo | grep -F "over $prefix/share/irqmod/data/traces/dim-demo.csv" >/dev/null ||
  { echo "consumer.sh: the installed irqmod demo does not read $prefix/share/irqmod" >&2; exit 1; }
echo "consumer.sh: find_package(irqmod) from $prefix: both consumers built and ran"
