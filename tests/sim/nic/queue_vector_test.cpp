// The queue vector, in a one-queue host built from a scenario whose generator stays quiet (its
// first frame comes after 900 ms), so that each test lands the frames it needs by hand: the
// coalescing deadline and the interrupt, NAPI scheduled on the vector's core, scans bounded by
// the budget, the work a poll reports, the vector re-enabled by a completed poll, and refill by
// the CPU.
#include "sim/nic/queue_vector.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/builder.hpp"
#include "sim/load_helpers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

// Coalescing rx-usecs 50; costs of round numbers (ns).
constexpr const char* kScenario = R"(
[scenario]
duration = "1s"
[link]
speed = "1G"
[traffic]
kind = "constant"
rate = 1
jitter = "900ms"
[nic]
dma-delay = 800
moderation = "coalesce"
rx-usecs = 50
[cpu]
irq-entry = 1000
irq-handler = 300
napi-poll = 500
rx-packet = 700
rx-refill = 100
)";

struct Fixture {
  explicit Fixture(const std::vector<std::string>& sets = {}) {
    LoadResult loaded =
        load_scenario_text(kScenario, "test.toml", test::costs_only(kScenario, sets));
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().what());
    if (!loaded.ok()) return;
    scenario = loaded.value();
    const auto error = build(scenario, host);
    EXPECT_FALSE(error) << (error ? error->what() : "");
    host.port->update_watch();
  }
  QueueVector& vector() { return host.queue_vectors[0]; }
  Core& core(std::size_t i = 0) { return host.cores[i]; }
  // `n` frames written back now.
  void land(int n) {
    for (int i = 0; i < n; ++i)
      vector().land(Packet{ns_since_epoch(world.now()) - 800, 64, 0}, world.now());
  }
  void run_to(std::int64_t ns) {
    Port& port = *host.port;
    world.engine.run_until(at_ns(ns), [&](const Event& event) {
      port.land(world.now());
      world.engine.dispatch(event);
      port.update_watch();
    });
  }
  napi::VectorState state() { return vector().vector().state(); }

  Scenario scenario;
  World world;
  Host host{world};
};

TEST(queue_vector, a_landed_frame_arms_the_vector_at_rx_usecs) {
  Fixture f;
  f.run_to(1000);
  f.land(1);
  EXPECT_EQ(f.host.rx_queues[0].size(), 1U);
  EXPECT_EQ(f.vector().vector().due(), std::nullopt);  // the coalescer holds the cause back
  f.run_to(50'999);
  EXPECT_EQ(f.world.report.interrupts.count_of(0), 0U);
  f.run_to(51'000);
  EXPECT_EQ(f.world.report.interrupts.count_of(0), 1U);
  EXPECT_EQ(f.state(), napi::VectorState::masked);
}

TEST(queue_vector, the_interrupt_schedules_the_napi_context_on_the_vectors_core) {
  Fixture f({"cpu.cores=2", "cpu.irq-cores=1"});
  EXPECT_EQ(f.vector().irq_core(), 1U);
  f.run_to(1000);
  f.land(1);
  f.run_to(52'299);  // interrupt at 51 000, entry + handler 1300 ns on core 1
  EXPECT_EQ(f.vector().napi().context().owner(), napi::Owner::none);
  EXPECT_EQ(f.world.report.cores[1].device_irqs, 1U);
  f.run_to(52'300);  // napi_schedule from the handler, NET_RX on its way out
  EXPECT_EQ(f.vector().napi().context().owner(), napi::Owner::softirq);
  EXPECT_EQ(f.world.report.cores[1].polls, 1U);  // the poll has begun there
  EXPECT_EQ(f.world.report.cores[0].polls, 0U);
  f.run_to(53'500);  // napi-poll + one rx-packet
  EXPECT_EQ(f.vector().rx_cleaned(), 1U);
  EXPECT_EQ(f.vector().napi().context().owner(), napi::Owner::none);
  EXPECT_EQ(f.world.report.cpu.busy(1, ContextKind::hardirq), nanoseconds(1300));
  EXPECT_EQ(f.world.report.cpu.busy(1, ContextKind::softirq), nanoseconds(1200));
  EXPECT_EQ(f.world.report.cpu.busy(0, ContextKind::softirq), Duration::zero());
}

TEST(queue_vector, scan_takes_at_most_the_budget_from_the_ring) {
  Fixture f;
  f.land(10);
  const Scan first = f.vector().clean().scan(4, f.core());
  EXPECT_EQ(first.rx, 4);
  EXPECT_EQ(f.host.rx_queues[0].size(), 6U);
  EXPECT_EQ(f.vector().clean().polled(), 4);
  const Scan second = f.vector().clean().scan(8, f.core());
  EXPECT_EQ(second.rx, 6);
  EXPECT_EQ(f.vector().clean().polled(), 10);
  EXPECT_EQ(f.vector().rx_cleaned(), 10U);
  EXPECT_EQ(f.world.report.cores[0].polls, 2U);
}

TEST(queue_vector, work_is_the_rx_frames_of_a_poll_that_finished) {
  Fixture f;
  f.land(3);
  const Scan scan = f.vector().clean().scan(64, f.core());
  EXPECT_TRUE(scan.tx_finished);
  EXPECT_FALSE(scan.refill_failed);
  EXPECT_EQ(QueueVector::work(scan, 64), 3);
}

TEST(queue_vector, work_is_the_whole_budget_while_tx_completions_are_left) {
  Fixture f({"nic.tx-interrupts=true", "nic.tx-ring=300"});
  for (int i = 0; i < 300; ++i)
    f.host.tx_queues[0].send_reply(Packet{0, 64, 0});
  f.host.port->land(at_ns(1'000'000));  // all 300 written back
  const Scan first = f.vector().clean().scan(64, f.core());
  EXPECT_EQ(first.tx, static_cast<int>(kTxCleanLimit));
  EXPECT_FALSE(first.tx_finished);
  EXPECT_EQ(QueueVector::work(first, 64), 64);
  const Scan second = f.vector().clean().scan(64, f.core());
  EXPECT_EQ(second.tx, 300 - static_cast<int>(kTxCleanLimit));
  EXPECT_EQ(QueueVector::work(second, 64), 0);
}

TEST(queue_vector, work_is_the_whole_budget_when_a_refill_failed) {
  Fixture f({"nic.refill=cpu", "nic.refill-batch=1", "nic.alloc-fail-ppm=1000000"});
  f.land(1);
  const Scan scan = f.vector().clean().scan(64, f.core());
  EXPECT_EQ(scan.rx, 1);
  EXPECT_TRUE(scan.refill_failed);
  EXPECT_EQ(scan.refilled, 0);
  EXPECT_EQ(QueueVector::work(scan, 64), 64);
  EXPECT_EQ(f.vector().alloc_failures(), 1U);
}

TEST(queue_vector, a_poll_that_used_its_weight_leaves_the_vector_masked_and_a_rearm_enables_it) {
  // The application on core 1, so that NET_RX on core 0 polls again at once.
  Fixture f({"cpu.cores=2", "cpu.app-core=1"});
  f.run_to(1000);
  f.land(65);
  // Interrupt at 51 000, hardirq until 52 300; the first poll takes the weight (64 frames,
  // 500 + 64 x 700 ns) and ends at 97 600 without completing; the second takes the last frame
  // and ends at 98 800 with napi_complete_done, which re-enables the vector.
  f.run_to(97'600);
  EXPECT_EQ(f.state(), napi::VectorState::masked);
  EXPECT_EQ(f.world.report.cores[0].polls, 2U);
  EXPECT_EQ(f.vector().rx_cleaned(), 65U);
  f.run_to(98'799);
  EXPECT_EQ(f.state(), napi::VectorState::masked);
  f.run_to(98'800);
  EXPECT_EQ(f.state(), napi::VectorState::armed);
  EXPECT_EQ(f.vector().napi().counters().completions, 1U);
}

TEST(queue_vector, a_per_descriptor_clean_loop_takes_a_frame_written_back_while_it_works) {
  for (const bool per_descriptor : {false, true}) {
    Fixture f({per_descriptor ? "nic.rx-clean=per-descriptor" : "nic.rx-clean=at-poll-start"});
    f.run_to(1000);
    f.land(1);
    // Interrupt at 51 000, the poll from 52 300: its fixed part (500 ns), then the loop takes
    // the first frame (700 ns) while a second is written back at 53 000.
    f.run_to(53'000);
    f.land(1);
    f.run_to(54'200);
    EXPECT_EQ(f.world.report.cores[0].polls, 1U) << per_descriptor;
    if (per_descriptor) {
      // The loop's next round (53 500) finds it: one poll, two frames, ending at 54 200.
      EXPECT_EQ(f.vector().rx_cleaned(), 2U);
      EXPECT_EQ(f.state(), napi::VectorState::armed);
    } else {
      // The poll saw one frame at its start and ended at 53 500; the second waits for the next.
      EXPECT_EQ(f.vector().rx_cleaned(), 1U);
    }
  }
}

TEST(queue_vector, a_cleaned_frame_leaves_no_cause_when_the_clean_clears_it) {
  for (const char* moderation : {"nic.moderation=coalesce", "nic.moderation=none"}) {
    for (const bool clears : {false, true}) {
      Fixture f(
          {moderation, clears ? "nic.clean-clears-cause=true" : "nic.clean-clears-cause=false"});
      f.run_to(1000);
      f.land(1);
      f.run_to(f.scenario.nic.moderation == Moderation::none ? 1000 : 51'000);
      EXPECT_EQ(f.state(), napi::VectorState::masked);
      // A second frame while the vector is masked, before the poll scans the ring: the poll
      // takes both. Kept, its cause fires again (at re-enable, or at its own rx-usecs).
      f.run_to(f.world.now().time_since_epoch().count() + 500);
      f.land(1);
      f.run_to(200'000);
      EXPECT_EQ(f.vector().rx_cleaned(), 2U);
      EXPECT_EQ(f.world.report.interrupts.count_of(0), clears ? 1U : 2U) << moderation << clears;
      EXPECT_EQ(f.vector().vector().counters().causes_withdrawn,
                clears && f.scenario.nic.moderation == Moderation::none ? 1U : 0U)
          << moderation;
    }
  }
}

TEST(queue_vector, refill_by_the_cpu_posts_buffers_once_a_batch_waits_usable_after_the_poll) {
  Fixture f({"nic.rx-ring=8", "nic.refill=cpu", "nic.refill-batch=4"});
  RxQueue& rx = f.host.rx_queues[0];
  f.run_to(1000);
  f.land(3);
  const Scan first = f.vector().clean().scan(64, f.core());
  EXPECT_EQ(first.refilled, 0);  // 3 waiting, below the batch
  f.vector().clean().poll_cost(first, f.core(), true);
  EXPECT_EQ(rx.unrefilled(), 3U);
  f.land(2);
  const Scan second = f.vector().clean().scan(64, f.core());
  EXPECT_EQ(second.refilled, 5);
  // napi-poll + 2 rx-packet + 5 rx-refill: the buffers are usable from 1000 + 2400 ns.
  EXPECT_EQ(f.vector().clean().poll_cost(second, f.core(), true), nanoseconds(2400));
  EXPECT_EQ(rx.unrefilled(), 0U);
  f.land(4);  // 3 descriptors have a buffer, 5 wait for theirs
  EXPECT_EQ(rx.size(), 3U);
  EXPECT_EQ(f.world.report.drops.count(DropReason::rx_no_buffer), 1U);
  f.run_to(3399);
  f.land(1);
  EXPECT_EQ(f.world.report.drops.count(DropReason::rx_no_buffer), 2U);
  f.run_to(3400);
  f.land(5);
  EXPECT_EQ(rx.size(), 8U);
  EXPECT_EQ(f.vector().rx_dropped(), 2U);
}

}  // namespace
}  // namespace irqmod::sim
