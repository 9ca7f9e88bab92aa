#!/usr/bin/env bash
# bench/veth-sendto.sh [COUNT] [GAP_NS] — what a reply's sendto over the veth lab costs the sender,
# by what the receiver's reader does: bench/veth-sendto-probe.cpp (built here with g++ into a
# temporary directory) sends COUNT (default 50000) 64 B UDP datagrams GAP_NS (default 25000) apart
# from the server namespace on CPU 1 to a reader on CPU 0 in the client namespace that drains every
# 5 ms (its socket unconnected, or connected to the sender), spins, or blocks in epoll_wait; twice
# each. docs/sim-vs-lab.md (the twenty-second run)
# sets the numbers beside the model's parts. Root; the lab's namespaces are created and removed;
# each run is bounded (COUNT x GAP_NS, the reader 2.3 s past its start at most).
set -u
cd "$(dirname "$0")/.." || exit 2
irqmod=${IRQMOD:-build/bin/irqmod}
count=${1:-50000}
gap=${2:-25000}
[[ $count =~ ^[0-9]+$ ]] && ((count >= 1 && count <= 80000)) ||
  { echo "veth-sendto: COUNT '$count': allowed 1 to 80000" >&2; exit 2; }
[[ $gap =~ ^[0-9]+$ ]] && ((gap >= 1000 && gap <= 25000)) ||
  { echo "veth-sendto: GAP_NS '$gap': allowed 1000 to 25000 (the reader stops 2.3 s after its start)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "veth-sendto: needs root (namespaces)" >&2; exit 2; }
[[ -x $irqmod ]] || { echo "no $irqmod: build first" >&2; exit 2; }
build=$(mktemp -d)
lab=irqmod-lab-vs$$
cleanup() { "$irqmod" lab down --name "$lab" >/dev/null 2>&1; rm -rf "$build"; }
trap cleanup EXIT
g++ -std=c++20 -O2 -Wall -Wextra -o "$build/probe" bench/veth-sendto-probe.cpp || exit 1
"$irqmod" lab up --name "$lab" >/dev/null || exit 1
echo "# veth-sendto: $count sends, $gap ns apart; $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in drain drain-connected spin epoll drain drain-connected spin epoll; do
  ip netns exec "$lab-cli" "$build/probe" reader 0 "$mode" 2.3 2>/dev/null &
  reader=$!
  sleep 0.3
  ip netns exec "$lab-srv" "$build/probe" sender 1 "$count" "$gap" 198.18.0.2 | sed "s/^/$mode /"
  wait "$reader"
done
