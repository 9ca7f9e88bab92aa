// Test helper of the storage components' tests: one core with its World, the report sized for
// it, and the storage counters the components count in.
#pragma once

#include <cstdint>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/random.hpp"
#include "sim/cpu/core.hpp"
#include "sim/storage/storage_report.hpp"
#include "sim/world.hpp"

namespace irqmod::sim::test {

struct StorageBench {
  // `vectors`: the report's interrupt lines.
  explicit StorageBench(std::uint64_t seed, std::size_t vectors = 1)
      : core(world, 0, Rng(seed, 0), microseconds(3000)) {
    world.report.cpu = CpuTime(1);
    world.report.cores.resize(1);
    world.report.interrupts = InterruptCounters(vectors);
  }
  void run_to_ns(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }
  Duration busy(ContextKind kind) const { return world.report.cpu.busy(0, kind); }

  World world;
  Core core;
  StorageCounters counters;
};

}  // namespace irqmod::sim::test
