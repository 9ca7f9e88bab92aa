// One simulation run: a scenario's traffic over a link into one NIC queue, its interrupt
// moderation, MSI-X delivery to a core, NAPI (the library's napi::Context, Vector and Driver),
// the NET_RX softirq and ksoftirqd, and one application thread that receives (and for
// ping-pong or request-response, answers) the messages, busy-polling when the scenario asks.
//
// The model, in the order a frame meets it
// ----------------------------------------
//  1. Link: frames of the ArrivalStream (or, for ping-pong, the one request in flight) reach the
//     NIC; no event per frame: arrivals are landed in a batch by whatever event is handled next.
//  2. Rx ring: a frame takes a free descriptor when it is written back (arrival + nic.dma-delay)
//     or is dropped: rx_ring_full, or rx_no_buffer when descriptors wait for nic.refill-delay.
//  3. Moderation decides when the write-back becomes an interrupt cause of the vector: at once
//     (none, itr, adaptive-itr: the vector's own throttle), after rx-usecs / rx-frames (coalesce,
//     and dim, whose net_dim reprograms the pair after every completed poll), or bypassing the
//     throttle (lli: ring below the threshold). The napi::Vector masks after an interrupt and
//     drops causes in write-back-only mode (seed 000's hazard).
//  4. The interrupt runs on cpu.irq-core as a hardirq (irq-entry + irq-handler), napi_schedule,
//     and on irq exit the NET_RX softirq polls: napi-poll + rx-packet per frame, up to the
//     weight, repolling up to netdev_budget frames / netdev_budget_usecs, restarting at most 10
//     times within 2 ms (kernel/softirq.c) unless the application waits to run; then ksoftirqd.
//  5. Frames go to the socket queue (net.core.rmem_default bytes, counted as frame bytes) and
//     wake the application (wakeup + context-switch), which takes every queued message per
//     syscall + app-message (+ syscall + tx-packet for a reply).
//  6. Busy polling: with napi.busy_read the application's recv spins in sk_busy_loop (budget
//     napi.busy_poll_budget, busy-poll-iteration each, timeout in 1024 ns units); with only
//     napi.busy_poll it spins in epoll's loop, where prefer_busy_poll also suspends the
//     interrupt after events (irq_suspend_timeout) and resumes it when none came.
//  7. Replies take a Tx descriptor (nic.tx-ring) and leave on the Tx side of the link; the
//     sockperf-like client records RTT/2 and, in ping-pong, sends the next request (paced by
//     traffic.mps). A request or reply dropped anywhere counts as a dropped message and the
//     client sends the next one at once (a real client would wait for its timeout first).
//
// Lazy landing is checked, not assumed: RunOptions::event_per_arrival schedules an event at
// every write-back instead, and a test requires identical results for every moderation kind
// with and without busy polling.
//
// Time on a core is a stack of jobs by priority (hardirq > softirq > ksoftirqd > application):
// a higher one preempts, the preempted one resumes with its remaining time. Each segment of a
// job is one engine event; packets never are. Not modelled (errors or documented limits): more
// than one queue, Tx completion interrupts, GRO, the scheduler's fairness between ksoftirqd and
// the application (ksoftirqd runs first), the client's own costs.
#pragma once

#include "irqmod/error.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/trace.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

struct RunOptions {
  TraceWriter* trace = nullptr;  // the timeline, or none
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

// Runs `scenario` (already validated) to its duration. Errors: a capture that cannot be loaded
// (key traffic.pcap), a setting the model does not cover (named by its key), a broken
// conservation check (key "conservation").
Expected<RunReport> simulate(const Scenario& scenario, const RunOptions& options = {});

}  // namespace irqmod::sim
