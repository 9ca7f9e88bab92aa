// The MSI-X table: raising a vector counts it per vector and per core, runs the hardirq (entry
// and handler costs) on the vector's core, then calls the vector's handler with that core.
#include "sim/irq/msix.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "sim/cpu/core.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

// What a handler saw: when it ran and on which core.
struct Calls {
  std::vector<Instant> at;
  std::vector<std::uint32_t> core;
  std::vector<std::size_t> jobs_at_hardirq;  // hardirq jobs on the core while it ran

  static void handle(void* self, Core& core) {
    auto& calls = *static_cast<Calls*>(self);
    calls.at.push_back(core.now());
    calls.core.push_back(core.index());
    calls.jobs_at_hardirq.push_back(core.jobs_at(Level::hardirq));
  }
  IrqHandler handler() { return IrqHandler{&Calls::handle, this}; }
};

// Two cores, entry 1000 ns and handler 500 ns.
struct TwoCores {
  TwoCores()
      : core0(world, 0, Rng(1, 0), milliseconds(1)),
        core1(world, 1, Rng(1, 1), milliseconds(1)),
        msix(world, Distribution::constant_ns(1000), Distribution::constant_ns(500)) {
    world.report.interrupts = InterruptCounters(2);
    world.report.cpu = CpuTime(2);
    world.report.cores.resize(2);
  }
  void run_to(Instant t) { world.engine.run_until(t); }

  World world;
  Core core0;
  Core core1;
  MsixTable msix;
};

TEST(msix, numbers_vectors_in_the_order_they_are_added) {
  TwoCores t;
  Calls a;
  Calls b;
  EXPECT_EQ(t.msix.add(t.core1, a.handler()), 0U);
  EXPECT_EQ(t.msix.add(t.core0, b.handler()), 1U);
  EXPECT_EQ(t.msix.vectors(), 2U);
  EXPECT_EQ(&t.msix.core_of(0), &t.core1);
  EXPECT_EQ(&t.msix.core_of(1), &t.core0);
}

TEST(msix, raise_counts_the_interrupt_per_vector_and_per_core_at_once) {
  TwoCores t;
  Calls calls;
  const std::uint32_t v = t.msix.add(t.core1, calls.handler());
  t.msix.raise(v, false);
  EXPECT_EQ(t.world.report.interrupts.count_of(v), 1U);
  EXPECT_EQ(t.world.report.cores[1].device_irqs, 1U);
  EXPECT_EQ(t.world.report.cores[0].device_irqs, 0U);
  EXPECT_TRUE(calls.at.empty());  // the handler runs when the hardirq's time has passed
  EXPECT_EQ(t.core1.jobs_at(Level::hardirq), 1U);
}

TEST(msix, runs_entry_and_handler_cost_as_hardirq_then_calls_the_handler_on_that_core) {
  TwoCores t;
  Calls calls;
  const std::uint32_t v = t.msix.add(t.core1, calls.handler());
  t.run_to(at_ns(200));
  t.msix.raise(v, false);
  t.run_to(at_ns(10'000));
  EXPECT_EQ(calls.at, std::vector<Instant>{at_ns(1700)});
  EXPECT_EQ(calls.core, std::vector<std::uint32_t>{1});
  EXPECT_EQ(calls.jobs_at_hardirq, std::vector<std::size_t>{1});  // still in the hardirq
  EXPECT_EQ(t.world.report.cpu.busy(1, ContextKind::hardirq), nanoseconds(1500));
  EXPECT_EQ(t.world.report.cpu.busy(1), nanoseconds(1500));
  EXPECT_EQ(t.world.report.cpu.busy(0), Duration::zero());
  EXPECT_EQ(t.core1.jobs_at(Level::hardirq), 0U);
}

TEST(msix, handles_a_second_message_of_a_vector_after_the_first) {
  TwoCores t;
  Calls calls;
  const std::uint32_t v = t.msix.add(t.core0, calls.handler());
  t.msix.raise(v, false);
  t.run_to(at_ns(700));
  t.msix.raise(v, true);
  t.run_to(at_ns(10'000));
  EXPECT_EQ(calls.at, (std::vector<Instant>{at_ns(1500), at_ns(3000)}));
  EXPECT_EQ(t.world.report.interrupts.count_of(v), 2U);
  EXPECT_EQ(t.world.report.cores[0].device_irqs, 2U);
  EXPECT_EQ(t.world.report.cpu.busy(0, ContextKind::hardirq), nanoseconds(3000));
}

TEST(msix, keeps_two_vectors_on_two_cores_apart) {
  TwoCores t;
  Calls on0;
  Calls on1;
  const std::uint32_t v0 = t.msix.add(t.core0, on0.handler());
  const std::uint32_t v1 = t.msix.add(t.core1, on1.handler());
  t.msix.raise(v0, false);
  t.msix.raise(v1, false);
  t.msix.raise(v1, false);
  t.run_to(at_ns(10'000));
  EXPECT_EQ(on0.at, std::vector<Instant>{at_ns(1500)});
  EXPECT_EQ(on0.core, std::vector<std::uint32_t>{0});
  EXPECT_EQ(on1.at, (std::vector<Instant>{at_ns(1500), at_ns(3000)}));
  EXPECT_EQ(on1.core, (std::vector<std::uint32_t>{1, 1}));
  EXPECT_EQ(t.world.report.interrupts.count_of(v0), 1U);
  EXPECT_EQ(t.world.report.interrupts.count_of(v1), 2U);
  EXPECT_EQ(t.world.report.cores[0].device_irqs, 1U);
  EXPECT_EQ(t.world.report.cores[1].device_irqs, 2U);
  EXPECT_EQ(t.world.report.cpu.busy(0, ContextKind::hardirq), nanoseconds(1500));
  EXPECT_EQ(t.world.report.cpu.busy(1, ContextKind::hardirq), nanoseconds(3000));
}

TEST(msix, draws_random_costs_from_the_cores_own_stream) {
  World world;
  Core core(world, 0, Rng(3, 4), milliseconds(1));
  Core twin(world, 1, Rng(3, 4), milliseconds(1));
  world.report.interrupts = InterruptCounters(1);
  world.report.cpu = CpuTime(2);
  world.report.cores.resize(2);
  const Distribution entry{DistributionKind::uniform, 500, 5000, 0};
  const Distribution handler{DistributionKind::uniform, 100, 900, 0};
  MsixTable msix(world, entry, handler);
  Calls calls;
  msix.add(core, calls.handler());
  msix.raise(0, false);
  world.engine.run_until(at_ns(100'000));
  // The same stream drawn by hand: entry, then handler.
  const Duration expected = twin.cost(entry) + twin.cost(handler);
  EXPECT_EQ(world.report.cpu.busy(0, ContextKind::hardirq), expected);
  EXPECT_EQ(calls.at, std::vector<Instant>{Instant{expected}});
}

}  // namespace
}  // namespace irqmod::sim
