// Test helper of the AF_XDP components' tests: two cores with their NET_RX (interrupts on core
// 0), an AF_XDP socket's rings and one zero-copy queue built from its Settings, with round costs.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/random.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/world.hpp"
#include "sim/xdp/xsk.hpp"
#include "sim/xdp/zc_queue.hpp"

namespace irqmod::sim::test {

inline constexpr std::int64_t kZcPsPerUs = 1'000'000;

// The driver's costs: 500 ns interrupt entry and handler each, 1 us per poll call, 10 ns per
// frame received, sent or cleaned; waking the application and remote cache lines free.
inline ZcQueue::Costs zc_costs() {
  const auto ns = [](std::int64_t n) { return Distribution::constant_ns(n); };
  return ZcQueue::Costs{ns(500), ns(500), ns(1'000), ns(10), ns(10), ns(10), ns(0), ns(0)};
}

// Frames arrive from 1 us on, one every `gap_us` (0: none); a sent frame holds the wire 100 ns.
inline ZcQueue::Settings zc_settings(std::int64_t gap_us, bool irqs = true) {
  ZcQueue::Settings s;
  s.irqs = irqs;
  s.first_arrival_ps = kZcPsPerUs;
  s.arrival_gap_ps = gap_us * kZcPsPerUs;
  s.tx_gap_ps = 100'000;
  return s;
}

// Rings of 2048 entries; `fill_frames` UMEM frames on the fill ring before the socket is bound.
inline Xsk zc_socket(std::uint64_t fill_frames) {
  Xsk x;
  x.fill.size = x.completion.size = x.rx.size = x.tx.size = 2048;
  x.fill.entry_bytes = x.completion.entry_bytes = 8;
  x.rx.entry_bytes = x.tx.entry_bytes = 16;
  x.fill.produce(fill_frames, std::nullopt);
  return x;
}

struct ZcBench {
  explicit ZcBench(const ZcQueue::Settings& settings, std::uint64_t fill_frames = 2048)
      : xsk(zc_socket(fill_frames)) {
    world.report.cpu = CpuTime(2);
    world.report.cores.resize(2);
    world.report.interrupts = InterruptCounters(1);
    for (std::uint32_t c = 0; c < 2; ++c) {
      Core& core = cores.emplace_back(world, c, Rng(19, c), microseconds(3000));
      net_rx.push_back(&lists.emplace_back(core, NetRx::Budget{}, 1));
    }
    queue.emplace(world, cores[0], net_rx, xsk, napi::Config{}, settings, zc_costs());
    queue->start();
  }
  void run_to_ns(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }
  const ZcQueue::Counters& counters() const { return queue->counters(); }
  Duration busy(std::uint32_t core, ContextKind kind) const {
    return world.report.cpu.busy(core, kind);
  }

  World world;
  Xsk xsk;
  std::deque<Core> cores;
  std::deque<NetRx> lists;
  std::vector<NetRx*> net_rx;
  std::optional<ZcQueue> queue;
};

}  // namespace irqmod::sim::test
