// Unit tests for the device vector: throttles, masking, write-back-only mode, software triggers.
#include "irqmod/napi/vector.hpp"

#include <gtest/gtest.h>

namespace irqmod::napi {
namespace {

constexpr Instant kT0 = at_ns(10'000'000);

VectorConfig config(Duration itr, Duration sw_itr = microseconds(50)) {
  VectorConfig c;
  c.itr_interval = itr;
  c.sw_itr_interval = sw_itr;
  return c;
}

TEST(napi_vector, a_first_cause_fires_at_once_and_masks_the_vector) {
  Vector v{config(microseconds(50))};
  EXPECT_EQ(v.on_cause(kT0), kT0);
  EXPECT_EQ(v.fire(kT0), Cause::queue);
  EXPECT_EQ(v.state(), VectorState::masked);
  EXPECT_EQ(v.counters().interrupts, 1U);
  EXPECT_FALSE(v.due());
}

TEST(napi_vector, a_cause_waits_for_the_itr_interval_since_the_last_interrupt) {
  Vector v{config(microseconds(50))};
  v.on_cause(kT0);
  v.fire(kT0);
  EXPECT_FALSE(v.enable(kT0 + microseconds(5), false));  // nothing pending
  EXPECT_EQ(v.on_cause(kT0 + microseconds(10)), kT0 + microseconds(50));
  EXPECT_EQ(v.on_cause(kT0 + microseconds(20)), kT0 + microseconds(50));  // same interrupt
  EXPECT_EQ(v.fire(kT0 + microseconds(49)), std::nullopt);  // early: a stale host event
  EXPECT_EQ(v.fire(kT0 + microseconds(50)), Cause::queue);
  EXPECT_EQ(v.counters().interrupts, 2U);
}

TEST(napi_vector, a_cause_while_masked_latches_and_fires_on_enable) {
  Vector v{config(Duration::zero())};
  v.on_cause(kT0);
  v.fire(kT0);
  EXPECT_EQ(v.on_cause(kT0 + microseconds(1)), std::nullopt);
  EXPECT_TRUE(v.queue_pending());
  EXPECT_EQ(v.counters().causes_latched, 1U);
  EXPECT_EQ(v.enable(kT0 + microseconds(3), false), kT0 + microseconds(3));
  EXPECT_EQ(v.fire(kT0 + microseconds(3)), Cause::queue);
}

TEST(napi_vector, a_withdrawn_cause_does_not_fire_on_enable_but_a_software_trigger_does) {
  Vector v{config(Duration::zero(), Duration::zero())};
  v.on_cause(kT0);
  v.fire(kT0);
  v.on_cause(kT0 + microseconds(1));  // latched while masked
  EXPECT_EQ(v.withdraw_queue_cause(kT0 + microseconds(2)), std::nullopt);
  EXPECT_FALSE(v.queue_pending());
  EXPECT_EQ(v.counters().causes_withdrawn, 1U);
  EXPECT_EQ(v.enable(kT0 + microseconds(3), false), std::nullopt);  // the clean took it
  EXPECT_EQ(v.fire(kT0 + microseconds(3)), std::nullopt);
  // Armed and waiting for its throttle: withdrawn too; a software trigger survives.
  Vector w{config(microseconds(50), Duration::zero())};
  w.on_cause(kT0);
  w.fire(kT0);
  w.enable(kT0 + microseconds(5), true);
  w.fire(kT0 + microseconds(5));  // the software interrupt
  EXPECT_EQ(w.enable(kT0 + microseconds(6), false), std::nullopt);
  EXPECT_EQ(w.on_cause(kT0 + microseconds(7)), kT0 + microseconds(55));
  EXPECT_EQ(w.withdraw_queue_cause(kT0 + microseconds(8)), std::nullopt);
  EXPECT_EQ(w.fire(kT0 + microseconds(55)), std::nullopt);
  w.on_cause(kT0 + microseconds(60));
  w.fire(kT0 + microseconds(60));
  EXPECT_EQ(w.enable(kT0 + microseconds(61), true), kT0 + microseconds(61));
  EXPECT_EQ(w.withdraw_queue_cause(kT0 + microseconds(62)), kT0 + microseconds(62));
  EXPECT_EQ(w.fire(kT0 + microseconds(62)), Cause::software);
}

TEST(napi_vector, write_back_only_mode_drops_causes_unless_configured_to_latch) {
  Vector v{config(Duration::zero())};
  v.enter_writeback_only();
  EXPECT_EQ(v.on_cause(kT0), std::nullopt);
  EXPECT_EQ(v.counters().causes_lost, 1U);
  EXPECT_EQ(v.enable(kT0 + microseconds(1), false), std::nullopt);  // nothing to fire

  VectorConfig latching = config(Duration::zero());
  latching.latch_in_writeback_only = true;
  Vector w{latching};
  w.enter_writeback_only();
  w.on_cause(kT0);
  EXPECT_EQ(w.counters().causes_lost, 0U);
  EXPECT_EQ(w.enable(kT0 + microseconds(1), false), kT0 + microseconds(1));
}

TEST(napi_vector, entering_write_back_only_drops_a_cause_still_waiting_for_its_throttle) {
  Vector v{config(microseconds(50))};
  v.on_cause(kT0);
  v.fire(kT0);
  v.enable(kT0, false);
  EXPECT_EQ(v.on_cause(kT0 + microseconds(1)), kT0 + microseconds(50));
  v.enter_writeback_only();  // a busy poller took the queue first
  EXPECT_FALSE(v.queue_pending());
  EXPECT_EQ(v.enable(kT0 + microseconds(60), false), std::nullopt);
}

TEST(napi_vector, a_software_trigger_is_throttled_by_its_own_interval) {
  Vector v{config(Duration::zero(), microseconds(50))};
  EXPECT_EQ(v.enable(kT0, true), kT0);
  EXPECT_EQ(v.fire(kT0), Cause::software);
  EXPECT_EQ(v.enable(kT0 + microseconds(10), true), kT0 + microseconds(50));
  EXPECT_EQ(v.fire(kT0 + microseconds(50)), Cause::software);
  EXPECT_EQ(v.counters().software, 2U);
  EXPECT_EQ(v.counters().swint_requests, 2U);
}

TEST(napi_vector, an_unthrottled_software_trigger_fires_at_every_enable) {
  Vector v{config(Duration::zero(), Duration::zero())};
  for (int i = 0; i < 5; ++i) {
    const Instant t = kT0 + microseconds(i);
    EXPECT_EQ(v.enable(t, true), t);
    EXPECT_EQ(v.fire(t), Cause::software);
  }
  EXPECT_EQ(v.counters().interrupts, 5U);
}

TEST(napi_vector, a_software_trigger_survives_write_back_only_until_the_next_enable) {
  Vector v{config(Duration::zero(), microseconds(50))};
  v.enable(kT0, true);
  v.fire(kT0);
  v.enable(kT0 + microseconds(1), true);  // due at +50 us
  v.enter_writeback_only();
  EXPECT_FALSE(v.due());
  EXPECT_TRUE(v.software_pending());
  EXPECT_EQ(v.enable(kT0 + microseconds(70), false), kT0 + microseconds(70));
}

TEST(napi_vector, one_interrupt_serves_both_causes_and_counts_as_the_queue_when_it_was_ready) {
  Vector v{config(microseconds(10), microseconds(50))};
  v.on_cause(kT0);
  v.fire(kT0);
  v.on_cause(kT0 + microseconds(2));      // due at +10
  v.enable(kT0 + microseconds(3), true);  // software due at once: first use of ITR2
  EXPECT_EQ(v.due(), kT0 + microseconds(3));
  EXPECT_EQ(v.fire(kT0 + microseconds(3)), Cause::software);  // the queue was not ready yet
  EXPECT_FALSE(v.queue_pending());
  EXPECT_FALSE(v.software_pending());
}

TEST(napi_vector, a_new_itr_interval_moves_a_pending_interrupt) {
  Vector v{config(microseconds(50))};
  v.on_cause(kT0);
  v.fire(kT0);
  v.enable(kT0, false);
  v.on_cause(kT0 + microseconds(1));
  EXPECT_EQ(v.set_itr_interval(kT0 + microseconds(2), microseconds(4)), kT0 + microseconds(4));
  EXPECT_EQ(v.set_itr_interval(kT0 + microseconds(5), microseconds(4)), kT0 + microseconds(5));
  EXPECT_EQ(v.itr_interval(), microseconds(4));
}

TEST(napi_vector, an_immediate_cause_bypasses_the_itr_but_not_the_mask) {
  Vector v{config(microseconds(50))};
  v.on_cause(kT0);
  v.fire(kT0);
  v.enable(kT0, false);
  EXPECT_EQ(v.on_cause(kT0 + microseconds(1)), kT0 + microseconds(50));
  EXPECT_EQ(v.on_immediate_cause(kT0 + microseconds(2)), kT0 + microseconds(2));
  EXPECT_EQ(v.fire(kT0 + microseconds(2)), Cause::queue);
  EXPECT_EQ(v.on_immediate_cause(kT0 + microseconds(3)), std::nullopt);  // masked: latched
  EXPECT_TRUE(v.queue_pending());
}

TEST(napi_vector, rejects_negative_intervals_by_name) {
  EXPECT_EQ(validate(config(nanoseconds(-1)))->key, "itr_interval");
  EXPECT_EQ(validate(config(Duration::zero(), nanoseconds(-1)))->key, "sw_itr_interval");
  EXPECT_FALSE(Vector::create(config(nanoseconds(-1))).ok());
  EXPECT_TRUE(Vector::create(config(Duration::zero(), Duration::zero())).ok());
}

}  // namespace
}  // namespace irqmod::napi
