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
