// What every component of one run shares: the engine, the timeline, the report being filled,
// and the trace's process numbers. Components hold a reference to it; nothing else is global.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/sim/engine.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/trace.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// Trace processes: one for the host's cores, one for the NIC's queues.
inline constexpr std::uint32_t kTraceCpu = 1;
inline constexpr std::uint32_t kTraceNic = 2;

// Random streams, Rng(seed, stream): one per component, so adding one never shifts another's.
namespace stream {
inline constexpr std::uint64_t kTraffic = 1;             // + flow entry: its generator
inline constexpr std::uint64_t kRssKey = 1'000'000;      // netdev_rss_key_fill's key
inline constexpr std::uint64_t kJitter = 2'000'000;      // + flow entry: its arrival jitter
inline constexpr std::uint64_t kCpuCosts = 3'000'000;    // + core: its cost draws
inline constexpr std::uint64_t kRefill = 4'000'000;      // + queue: buffer allocation failures
inline constexpr std::uint64_t kTurnaround = 5'000'000;  // + flow entry: the client's turnaround
inline constexpr std::uint64_t kNoise = 6'000'000;       // + core: the host's noise on it
}  // namespace stream

class Core;

struct World {
  Engine engine{4096};
  // The core whose job is in its start() or next() now (cpu/core.cpp sets it around those
  // calls): the waker of a thread woken meanwhile, which pays for the IPI (Core::wake). None
  // while the engine runs a device's, a timer's or a far host's event.
  Core* acting_core = nullptr;
  TraceWriter* trace = nullptr;    // the timeline, or none
  RunReport report;                // counters, latency, CPU time: filled as the run goes
  bool event_per_arrival = false;  // RunOptions::event_per_arrival: the lazy-landing oracle
  // A fixed capacity of the model was exceeded (more ACKs in flight than a path holds, more skbs
  // waiting for one softirq pass than it holds): the run goes on without what did not fit and
  // ends with this error, which names the key that leads there. The first one is kept.
  std::optional<Error> model_limit;

  Instant now() const { return engine.now(); }
  void exceeded(Error error) {
    if (!model_limit) model_limit = std::move(error);
  }
};

}  // namespace irqmod::sim
