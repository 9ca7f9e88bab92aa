#!/usr/bin/env bash
# Installs the Debian packages irqmod needs, and only those that are missing.
# Called by scripts/run.sh and scripts/test.sh; safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang clang-format   # toolchain (clang for libFuzzer later)
  libgtest-dev libgmock-dev                  # unit tests
  libbenchmark-dev                           # bench/
  libcli11-dev                               # the irqmod command line
  libtomlplusplus-dev libpcap-dev            # sim: scenario files, pcap trace replay
  nlohmann-json3-dev                         # sim tests: parse the JSON the simulator writes
  sockperf                                   # the client irqmod serve answers (tests, bench/)
  iproute2 ethtool                           # bench/, irqmod lab: veth pairs in network namespaces
  libmnl-dev                                 # irqmod napi, irqmod lab: the netdev netlink family
  libnlopt-dev libnlopt-cxx-dev              # irqmod tune: derivative-free search (COBYLA)
  gnuplot-nox                                # irqmod plot, sweep --plot: SVG and PNG pictures
  libopenmpi-dev openmpi-bin                 # irqmod sweep under mpirun (the IRQMOD_MPI option)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
