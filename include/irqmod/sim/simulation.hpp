// One simulation run: a scenario's peer and link, a NIC with its queues, moderation and MSI-X
// vectors, cores with interrupts, NET_RX, ksoftirqd and application threads under a fair
// scheduler, the stack's sockets, and sockperf-like applications, all built from the scenario
// by src/sim/builder.cpp as components that own their events (docs/simulator.md lists them).
//
// The path of a frame
// -------------------
//  1. The peer: generators share the wire (constant, Poisson, on-off, pcap, open-loop requests),
//     ping-pong clients send one message at a time; each offer may be jittered. No event per
//     frame: arrivals are landed in a batch by whatever event is handled next.
//  2. The port steers a frame to an Rx queue (RSS over its 4-tuple, or a flow rule); it takes a
//     free descriptor when written back (arrival + nic.dma-delay) or is dropped (rx_ring_full,
//     rx_no_buffer while buffers wait for a refill: after nic.refill-delay, or by the poll).
//  3. Moderation decides when the write-back (or a Tx completion's) becomes a cause of the vector:
//     at once, after rx-usecs / rx-frames (and net_dim's choice), or bypassing the throttle (LLI).
//     The napi::Vector masks after an interrupt and drops causes in write-back-only mode.
//  4. The interrupt runs on its vector's core (cpu.irq-cores) as a hardirq, napi_schedule, and on
//     irq exit NET_RX polls the core's list: Tx completions, then Rx frames up to the weight,
//     with the shared netdev_budget / netdev_budget_usecs, restarting up to 10 times within 2 ms
//     unless a thread needs the CPU; then ksoftirqd, a thread scheduled like the others.
//  5. Frames go to their socket (the flow's thread, or the thread on the receiving core) and wake
//     its thread, which takes every queued message per syscall + app-message (+ syscall +
//     tx-packet for a reply), or busy-polls first, or follows the adaptive_poll controller.
//  6. Replies leave through the Tx queue XPS maps to the sending core (a qdisc while its ring is
//     full); the peer records RTT/2 and, in ping-pong, sends the next request.
//
// Lazy landing is checked, not assumed: RunOptions::event_per_arrival schedules an event at
// every write-back instead, and a test requires identical results for every configuration kind.
#pragma once

#include "irqmod/error.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/series.hpp"
#include "irqmod/sim/trace.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

struct RunOptions {
  TraceWriter* trace = nullptr;  // the timeline, or none
  // The time series (series.hpp), filled by the run, or none. Not for a storage or AF_XDP run
  // (an error). An RFC 2544 search fills it from the run at the rate found.
  RunSeries* series = nullptr;
  // Called about every 1 % of simulated time with the time reached; may be null.
  void (*progress)(void* context, Instant reached, Instant end) = nullptr;
  void* progress_context = nullptr;
  // Schedule an event at every frame's write-back instead of landing frames lazily. Slower;
  // the results must not change (a test compares both), which checks the batching argument.
  bool event_per_arrival = false;
};

// Frame bytes of a UDP/IPv4 message of `payload` bytes: Ethernet II header 14 + IPv4 20 +
// UDP 8 + FCS 4, padded to the 64-byte minimum frame.
constexpr std::uint32_t udp_frame_bytes(std::uint32_t payload) {
  const std::uint32_t frame = payload + 14 + 20 + 8 + 4;
  return frame < 64 ? 64 : frame;
}

// Runs `scenario` to its duration. Errors: what validate() refuses (a Scenario made or changed
// in code is checked as a loaded one is), a capture that cannot be loaded (key traffic.pcap), a
// broken conservation check (key "conservation").
Expected<RunReport> simulate(const Scenario& scenario, const RunOptions& options = {});

}  // namespace irqmod::sim
