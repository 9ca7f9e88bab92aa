// Seed 000 as a scripted interleaving: a descriptor lands between the busy poller's final ring
// scan and the interrupt re-enable. Without the fix nobody is told about it; with the fix a
// software interrupt comes within the ITR index 2 interval (50 us, I40E_ITR_20K); without that
// throttle every busy-poll exit costs an interrupt (ice's 2021 storm).
#include <gtest/gtest.h>

#include "rig.hpp"

namespace irqmod::napi::testing {
namespace {

RigConfig seed000(bool fix, Duration sw_itr = adaptive_itr::kSwItrInterval) {
  RigConfig c;
  c.driver.busy_poll_exit_swint = fix;
  c.vector.sw_itr_interval = sw_itr;
  c.vector.itr_interval = microseconds(50);  // rx-usecs 50, i40e's default (I40E_ITR_20K)
  return c;
}

// The busy poller owns the context, polls until the app has its packet, stops; the final poll's
// scan finds the ring empty; then the next request lands before the driver re-enables.
PollResult run_race(Rig& rig, bool race = true) {
  const std::uint64_t cleaned_before = rig.cleaned;
  rig.busy_enter();
  EXPECT_TRUE(rig.busy_acquire());
  rig.busy_begin();  // nothing yet
  EXPECT_EQ(rig.busy_end().completion, Completion::keep_masked);
  EXPECT_EQ(rig.vector.state(), VectorState::writeback_only);
  rig.advance(microseconds(2));
  rig.land();  // the request the application waits for
  rig.busy_begin();
  rig.busy_end();
  EXPECT_EQ(rig.cleaned - cleaned_before, 1U);
  rig.busy_stop();  // loop_end: data is ready
  rig.final_begin();
  EXPECT_EQ(rig.scanned, 0);  // the final scan: empty
  rig.advance(nanoseconds(300));
  if (race) rig.land();  // <- the race: written back after the scan, before the re-enable
  rig.advance(nanoseconds(200));
  return rig.final_end();  // napi_complete_done() true: the driver re-enables
}

TEST(seed000_race, without_the_fix_the_descriptor_is_stranded) {
  Rig rig(seed000(false));
  const PollResult r = run_race(rig);
  EXPECT_EQ(r.completion, Completion::rearm);
  EXPECT_EQ(rig.ring, 1);
  EXPECT_EQ(rig.context.owner(), Owner::none);
  EXPECT_EQ(rig.vector.state(), VectorState::armed);
  EXPECT_FALSE(rig.vector.due());
  EXPECT_FALSE(rig.context.timer());
  EXPECT_EQ(rig.vector.counters().causes_lost, 2U);
  EXPECT_TRUE(rig.stranded());
  // It stays stranded until some later packet interrupts: 100 ms later, nothing has moved.
  rig.advance(milliseconds(100));
  EXPECT_FALSE(rig.vector_due());
  EXPECT_EQ(rig.vector.counters().interrupts, 0U);
}

TEST(seed000_race, without_the_fix_the_next_packet_rescues_it_one_arrival_late) {
  Rig rig(seed000(false));
  run_race(rig);
  rig.advance(milliseconds(100));
  rig.land();  // the client's next message, or its retransmission
  ASSERT_TRUE(rig.vector_due());
  rig.fire();
  rig.hardirq();
  rig.softirq_poll();
  EXPECT_EQ(rig.ring, 0);
  EXPECT_EQ(rig.cleaned, 3U);
}

TEST(seed000_race, with_the_fix_an_interrupt_comes_within_the_sw_itr_interval) {
  Rig rig(seed000(true));
  run_race(rig);
  const Instant enable_at = rig.now;  // final_end re-enabled the vector now
  ASSERT_TRUE(rig.vector.due());
  EXPECT_LE(*rig.vector.due() - enable_at, adaptive_itr::kSwItrInterval);
  EXPECT_FALSE(rig.stranded());
  rig.advance_to(*rig.vector.due());
  EXPECT_EQ(rig.fire(), Cause::software);
  rig.hardirq();
  const PollResult r = rig.softirq_poll();
  EXPECT_EQ(r.work, 1);
  EXPECT_EQ(r.completion, Completion::rearm);
  EXPECT_EQ(rig.ring, 0);
  EXPECT_FALSE(rig.driver.in_busy_poll());  // consumed: the next re-enable is plain
  EXPECT_FALSE(rig.vector.due());
}

TEST(seed000_race, the_software_interrupt_waits_for_its_throttle) {
  // Two races 10 us apart: the first exit's interrupt fires at once, the second waits until
  // 50 us after the first.
  Rig rig(seed000(true));
  run_race(rig);
  const Instant first = *rig.vector.due();
  EXPECT_EQ(first, rig.now);
  rig.fire();
  rig.hardirq();
  rig.softirq_poll();
  rig.advance(microseconds(10));
  run_race(rig);
  ASSERT_TRUE(rig.vector.due());
  EXPECT_EQ(*rig.vector.due(), first + adaptive_itr::kSwItrInterval);
  EXPECT_GT(*rig.vector.due(), rig.now);
}

TEST(seed000_race, latching_hardware_would_not_need_the_fix) {
  RigConfig c = seed000(false);
  c.vector.latch_in_writeback_only = true;
  Rig rig(c);
  run_race(rig);
  EXPECT_TRUE(rig.vector.due());
  EXPECT_FALSE(rig.stranded());
}

// A sockperf-like server that busy-polls in recvfrom at 100 000 messages/s for 10 ms: each
// message lands while the busy poller spins and is found by it; 1000 busy-poll exits with no
// race. Returns the vector's interrupts and the time the run took.
struct ExitRun {
  std::uint64_t interrupts = 0;
  Duration elapsed{};
};
ExitRun interrupts_for_busy_poll_exits(const RigConfig& config, int exits) {
  Rig rig(config);
  for (int i = 0; i < exits; ++i) {
    run_race(rig, /*race=*/false);
    // 10 us until the next message; interrupts due meanwhile are handled at once.
    const Instant next = rig.now + microseconds(10);
    while (rig.vector.due() && *rig.vector.due() <= next) {
      rig.advance_to(*rig.vector.due());
      rig.fire();
      rig.hardirq();
      while (rig.softirq_owns())
        rig.softirq_poll();
    }
    rig.advance_to(next);
  }
  EXPECT_EQ(rig.ring, 0);
  EXPECT_EQ(rig.cleaned, static_cast<std::uint64_t>(exits));
  return {rig.vector.counters().interrupts, rig.now - at_ns(0)};
}

TEST(seed000_race, the_throttle_bounds_the_extra_interrupts_and_without_it_they_storm) {
  constexpr int kExits = 1000;  // one message every 12.5 us: 2.5 us of busy poll + 10 us apart
  const ExitRun none = interrupts_for_busy_poll_exits(seed000(false), kExits);
  const ExitRun throttled = interrupts_for_busy_poll_exits(seed000(true), kExits);
  const ExitRun storm = interrupts_for_busy_poll_exits(seed000(true, Duration::zero()), kExits);
  ASSERT_EQ(throttled.elapsed, microseconds(12'500));
  // Without the fix the busy poller takes every packet and nothing interrupts.
  EXPECT_EQ(none.interrupts, 0U);
  // With the 20K/s throttle: one per 50 us of the run (+1 for the first, at once).
  const auto windows = static_cast<std::uint64_t>(throttled.elapsed / adaptive_itr::kSwItrInterval);
  EXPECT_LE(throttled.interrupts, windows + 1U);
  EXPECT_GE(throttled.interrupts, windows - 1U);
  // Unthrottled: one software interrupt per busy-poll exit, five times as many.
  EXPECT_EQ(storm.interrupts, static_cast<std::uint64_t>(kExits));
  RecordProperty("interrupts_without_fix", static_cast<int>(none.interrupts));
  RecordProperty("interrupts_throttled_20k", static_cast<int>(throttled.interrupts));
  RecordProperty("interrupts_unthrottled", static_cast<int>(storm.interrupts));
}

}  // namespace
}  // namespace irqmod::napi::testing
