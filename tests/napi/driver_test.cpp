// Unit tests for the i40e poll tail: the in_busy_poll flag, the forced software interrupt, and
// the adaptive ITR's interval reaching the vector.
#include "irqmod/napi/driver.hpp"

#include <gtest/gtest.h>

namespace irqmod::napi {
namespace {

constexpr Instant kT0 = at_ns(1'000'000'000);

PollResult result(Completion completion, int work = 1) {
  PollResult r;
  r.work = work;
  r.completion = completion;
  return r;
}

TEST(napi_driver, a_false_completion_makes_the_next_enable_force_a_software_interrupt) {
  Driver d{DriverConfig{}, kT0};
  Vector v{VectorConfig{}};
  DriverAction a = d.on_poll(kT0, result(Completion::keep_masked), v);
  EXPECT_FALSE(a.enabled);
  EXPECT_TRUE(d.in_busy_poll());
  EXPECT_EQ(v.state(), VectorState::writeback_only);
  a = d.on_poll(kT0, result(Completion::rearm), v);
  EXPECT_TRUE(a.enabled);
  EXPECT_TRUE(a.swint);
  EXPECT_EQ(a.fire_at, kT0);
  EXPECT_FALSE(d.in_busy_poll());
  a = d.on_poll(kT0, result(Completion::rearm), v);
  EXPECT_FALSE(a.swint);  // once per exit
}

// i40e_napi_poll's branch for a full poll on a core outside the vector's affinity mask: return
// budget - 1 and force a write-back, whose software interrupt waits for the Rx ITR (index 0).
TEST(napi_driver,
     a_full_poll_off_the_affinity_core_returns_budget_minus_one_and_forces_a_writeback) {
  Driver d{DriverConfig{}, kT0};
  VectorConfig config;
  config.itr_interval = microseconds(20);     // ITR index 0
  config.sw_itr_interval = microseconds(50);  // ITR index 2: not this trigger's
  Vector v{config};
  ASSERT_EQ(v.fire(kT0 + microseconds(1)), std::nullopt);
  EXPECT_EQ(d.poll_return(64, 64, true), 64);   // on its core: NAPI polls again
  EXPECT_EQ(d.poll_return(10, 64, false), 10);  // finished: nothing to move
  EXPECT_EQ(d.poll_return(64, 64, false), 63);
  // NAPI saw budget - 1: the context completed (or stays with a busy poller: keep_masked).
  v.on_cause(kT0);
  ASSERT_TRUE(v.fire(kT0).has_value());  // the last interrupt: the throttles count from here
  const DriverAction a = d.on_poll(kT0 + microseconds(5), result(Completion::keep_masked, 63), v);
  EXPECT_TRUE(a.enabled);
  EXPECT_TRUE(a.swint);
  EXPECT_TRUE(a.forced_wb);
  EXPECT_EQ(a.fire_at, kT0 + microseconds(20));
  EXPECT_FALSE(d.in_busy_poll());  // the branch returns before the in_busy_poll bookkeeping
  EXPECT_EQ(v.fire(kT0 + microseconds(20)), Cause::software);
  // The branch is taken once per poll_return.
  const DriverAction next = d.on_poll(kT0 + microseconds(30), result(Completion::rearm, 3), v);
  EXPECT_FALSE(next.forced_wb);
}

TEST(napi_driver, without_the_branch_a_full_poll_off_its_core_stays_full) {
  DriverConfig config;
  config.off_affinity_force_wb = false;
  Driver d{config, kT0};
  EXPECT_EQ(d.poll_return(64, 64, false), 64);
}

TEST(napi_driver, without_the_fix_no_software_interrupt_is_forced) {
  DriverConfig c;
  c.busy_poll_exit_swint = false;
  Driver d{c, kT0};
  Vector v{VectorConfig{}};
  d.on_poll(kT0, result(Completion::keep_masked), v);
  EXPECT_FALSE(d.in_busy_poll());
  const DriverAction a = d.on_poll(kT0, result(Completion::rearm), v);
  EXPECT_TRUE(a.enabled);
  EXPECT_FALSE(a.swint);
  EXPECT_FALSE(a.fire_at);
}

TEST(napi_driver, a_poll_that_used_its_budget_touches_nothing) {
  Driver d{DriverConfig{}, kT0};
  Vector v{VectorConfig{}};
  v.on_cause(kT0);
  v.fire(kT0);
  const DriverAction a = d.on_poll(kT0, result(Completion::not_called, 64), v);
  EXPECT_EQ(a, DriverAction{});
  EXPECT_EQ(v.state(), VectorState::masked);
}

TEST(napi_driver, the_adaptive_itr_follows_the_same_switch_and_writes_the_rx_interval) {
  DriverConfig c;
  c.adaptive = adaptive_itr::Config{};
  Driver d{c, kT0};
  Vector v{VectorConfig{}};
  d.on_poll(kT0, result(Completion::keep_masked), v);
  EXPECT_TRUE(d.in_busy_poll());
  // One small packet per interrupt, a few jiffies apart: latency mode lowers the Rx interval.
  bool wrote_rx = false;
  for (int i = 1; i <= 8; ++i) {
    d.on_rx_cleaned(64, 1);
    const Instant t = kT0 + milliseconds(2 * i);
    const DriverAction a = d.on_poll(t, result(Completion::rearm), v);
    EXPECT_TRUE(a.enabled);
    EXPECT_EQ(a.swint, i == 1);
    if (a.new_itr) {
      wrote_rx = true;
      EXPECT_EQ(v.itr_interval(), *a.new_itr);
    }
  }
  EXPECT_TRUE(wrote_rx);
  EXPECT_LT(v.itr_interval(), adaptive_itr::kSwItrInterval);
}

TEST(napi_driver, the_adaptive_itr_without_the_fix_forces_nothing) {
  DriverConfig c;
  c.busy_poll_exit_swint = false;
  c.adaptive = adaptive_itr::Config{};
  Driver d{c, kT0};
  Vector v{VectorConfig{}};
  d.on_poll(kT0, result(Completion::keep_masked), v);
  EXPECT_FALSE(d.in_busy_poll());
  EXPECT_FALSE(d.on_poll(kT0, result(Completion::rearm), v).swint);
}

}  // namespace
}  // namespace irqmod::napi
