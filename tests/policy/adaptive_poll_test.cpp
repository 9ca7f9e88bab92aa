// Unit tests for the adaptive spin-then-sleep poller: a simulated poll loop over scripted arrival
// times (ManualClock, fixed seeds), the interrupt-mode recheck, and Config validation.
#include "irqmod/policy/adaptive_poll.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace irqmod::adaptive_poll {
namespace {

// The cost of one poll in the simulated loop, and the kernel's wake-up latency after a block.
constexpr Duration kPollCost = nanoseconds(500);
constexpr Duration kWakeLatency = microseconds(5);

// One on_idle answer, with the arrival it was waiting for.
struct Step {
  Instant now;
  Action action;
  Instant next_arrival;
};

struct LoopOptions {
  Duration arm_latency{};     // time between try_enter_interrupt_mode and the armed wait
  bool skip_recheck = false;  // a broken caller that blocks without re-polling
  Duration strand_timeout = milliseconds(100);  // how long a missed wake-up strands an item
};

struct LoopResult {
  std::vector<Step> steps;
  Duration max_latency{};  // worst time from an arrival to the poll that took it
};

// Runs a poll loop until every arrival (sorted) has been taken. A block arms the wait after
// arm_latency; the wait is woken only by an arrival after arming, so an item that arrived
// before arming and was not found by the recheck sits until strand_timeout.
LoopResult run_loop(AdaptivePoller& p, const std::vector<Instant>& arrivals,
                    const LoopOptions& options = {}) {
  LoopResult result;
  ManualClock clock(arrivals.front() - microseconds(1));
  std::size_t next = 0;
  while (next < arrivals.size()) {
    const Instant now = clock.now();
    std::uint32_t items = 0;
    while (next < arrivals.size() && arrivals[next] <= now) {
      result.max_latency = std::max(result.max_latency, now - arrivals[next]);
      ++items;
      ++next;
    }
    if (items > 0) {
      p.on_work(now, items);
      clock.advance(kPollCost);
      continue;
    }
    const Action action = p.on_idle(now);
    result.steps.push_back({now, action, arrivals[next]});
    switch (action.kind) {
      case ActionKind::spin:
        clock.advance(kPollCost);
        break;
      case ActionKind::sleep_until:
        clock.advance_to(std::max(action.until, now));
        break;
      case ActionKind::block: {
        InterruptEntry entry = p.try_enter_interrupt_mode(now);
        clock.advance(options.arm_latency);
        const Instant armed_at = clock.now();
        const bool work = !options.skip_recheck && arrivals[next] <= armed_at;
        if (p.recheck(entry, work)) {
          clock.advance_to(arrivals[next] > armed_at ? arrivals[next] + kWakeLatency
                                                     : armed_at + options.strand_timeout);
        }
        p.exit_interrupt_mode(entry, clock.now());
        break;
      }
    }
  }
  return result;
}

std::vector<Instant> periodic(Instant start, Duration gap, int count) {
  std::vector<Instant> v;
  for (int i = 0; i < count; ++i)
    v.push_back(start + gap * i);
  return v;
}

TEST(adaptive_poll, periodic_arrivals_sleep_until_just_before_each_arrival_and_spin_from_there) {
  AdaptivePoller p{Config{}};
  const Duration gap = microseconds(100);
  const auto arrivals = periodic(at_ns(1'000'000), gap, 300);
  const LoopResult r = run_loop(p, arrivals);

  const Instant learned = arrivals[30];
  int sleeps = 0;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const Step& s = r.steps[i];
    if (s.now < learned) continue;
    EXPECT_NE(s.action.kind, ActionKind::block) << "at step " << i;
    if (s.action.kind != ActionKind::sleep_until) continue;
    ++sleeps;
    // Never past the arrival; no earlier than the wake-up cost plus a little deviation before it.
    EXPECT_LT(s.action.until, s.next_arrival);
    EXPECT_LE(s.action.until, s.next_arrival - p.config().wakeup_cost);
    EXPECT_GE(s.action.until, s.next_arrival - p.config().wakeup_cost - microseconds(3));
    // And from there it spins.
    ASSERT_LT(i + 1, r.steps.size());
    EXPECT_EQ(r.steps[i + 1].action.kind, ActionKind::spin);
  }
  EXPECT_GE(sleeps, 260);  // one per gap after learning
  EXPECT_TRUE(p.predicting());
  EXPECT_LE(r.max_latency, kWakeLatency);  // the worst is a block while still learning
}

TEST(adaptive_poll, bursts_of_one_to_two_microsecond_gaps_keep_it_spinning) {
  AdaptivePoller p{Config{}};
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int64_t> gap_ns(1000, 2000);
  std::vector<Instant> arrivals{at_ns(1'000'000)};
  for (int i = 0; i < 5000; ++i)
    arrivals.push_back(arrivals.back() + nanoseconds(gap_ns(rng)));
  const LoopResult r = run_loop(p, arrivals);

  EXPECT_GT(p.counters().spins, 1000U);
  EXPECT_EQ(p.counters().sleeps, 0U);
  EXPECT_EQ(p.counters().block_advices, 0U);
  EXPECT_EQ(p.counters().blocks, 0U);
  EXPECT_LE(r.max_latency, kPollCost);
}

TEST(adaptive_poll, poisson_arrivals_with_a_5_ms_mean_make_it_block) {
  AdaptivePoller p{Config{}};
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> gap_ms(1.0 / 5.0);
  std::vector<Instant> arrivals{at_ns(1'000'000)};
  for (int i = 0; i < 400; ++i) {
    const auto ns = static_cast<std::int64_t>(gap_ms(rng) * 1e6);
    arrivals.push_back(arrivals.back() + nanoseconds(std::max<std::int64_t>(ns, 1)));
  }
  // Warm up on the first 50 arrivals, then measure the rest.
  const std::vector<Instant> warm(arrivals.begin(), arrivals.begin() + 50);
  const std::vector<Instant> rest(arrivals.begin() + 50, arrivals.end());
  run_loop(p, warm);
  const Counters before = p.counters();
  run_loop(p, rest);
  const Counters after = p.counters();

  const auto blocks = after.blocks - before.blocks;
  EXPECT_GE(blocks * 10, rest.size() * 9);  // at least 90% of gaps end in a block
  EXPECT_EQ(after.sleeps, before.sleeps);   // the mean is far beyond the idle-poll window
  EXPECT_FALSE(p.predicting());
  // The spin window collapsed, so little spinning is wasted per block (mean < 10 µs).
  EXPECT_LT((after.wasted_spin - before.wasted_spin).count(),
            static_cast<std::int64_t>(blocks) * microseconds(10).count());
}

TEST(adaptive_poll, a_long_gap_after_regular_traffic_falls_back_to_blocking) {
  AdaptivePoller p{Config{}};
  auto arrivals = periodic(at_ns(1'000'000), microseconds(100), 100);
  const Instant last_regular = arrivals.back();
  const Instant late = last_regular + milliseconds(20);
  arrivals.push_back(late);
  const LoopResult r = run_loop(p, arrivals);

  bool blocked = false;
  for (const Step& s : r.steps) {
    if (s.next_arrival != late) continue;
    if (s.action.kind == ActionKind::sleep_until) {
      EXPECT_LE(s.action.until, last_regular + microseconds(100));  // only the predicted slot
    }
    if (s.action.kind == ActionKind::block) {
      blocked = true;
      // Within the idle-poll window of the last arrival (plus a poll's slack).
      EXPECT_LE(s.now, last_regular + p.config().idle_poll_window + kPollCost);
      break;
    }
  }
  EXPECT_TRUE(blocked);
  EXPECT_GE(p.counters().blocked_time, milliseconds(19));
  EXPECT_LE(r.max_latency, kWakeLatency);
}

TEST(adaptive_poll,
     a_1000_per_second_script_is_predicted_with_a_small_window_when_max_predicted_gap_allows) {
  Config c;
  c.idle_poll_window = microseconds(200);
  c.max_predicted_gap = milliseconds(2);
  AdaptivePoller p{c};
  const auto arrivals = periodic(at_ns(1'000'000), milliseconds(1), 100);
  const LoopResult r = run_loop(p, arrivals);

  EXPECT_TRUE(p.predicting());
  EXPECT_GE(p.counters().sleeps, 90U);  // one timed sleep per gap once learned
  EXPECT_LE(p.counters().block_advices, 5U);
  for (const Step& s : r.steps) {
    if (s.action.kind == ActionKind::sleep_until) {
      EXPECT_LT(s.action.until, s.next_arrival);
    }
  }
  // Sleeping through the gaps, not spinning them: well under a tenth of the 99 ms spent spinning.
  EXPECT_LT(static_cast<std::int64_t>(p.counters().spins) * kPollCost.count(),
            milliseconds(10).count());

  // Without max_predicted_gap the 200 µs window is also the horizon: 1 ms gaps are never predicted.
  Config old = c;
  old.max_predicted_gap.reset();
  AdaptivePoller q{old};
  run_loop(q, arrivals);
  EXPECT_FALSE(q.predicting());
  EXPECT_EQ(q.counters().sleeps, 0U);
}

TEST(adaptive_poll, a_failed_1_ms_prediction_spins_no_longer_than_the_idle_poll_window) {
  Config c;
  c.idle_poll_window = microseconds(200);
  c.max_predicted_gap = milliseconds(2);
  AdaptivePoller p{c};
  auto arrivals = periodic(at_ns(1'000'000), milliseconds(1), 50);
  const Instant last_regular = arrivals.back();
  const Instant late = last_regular + milliseconds(20);
  arrivals.push_back(late);
  const LoopResult r = run_loop(p, arrivals);

  for (const Step& s : r.steps) {
    if (s.next_arrival != late || s.action.kind != ActionKind::block) continue;
    // The prediction's slot (1 ms + guard) is over; the spin window (<= 200 µs) started at the
    // last arrival, so it blocks at once instead of spinning toward a 2 ms horizon.
    EXPECT_LE(s.now, last_regular + milliseconds(1) + p.guard() + kPollCost);
    break;
  }
  EXPECT_GE(p.counters().blocked_time, milliseconds(18));
  EXPECT_LE(p.spin_window(), c.idle_poll_window);
}

// Periodic 1 ms arrivals, each found by a poll that wakes 2 µs late, except every fifth which
// wakes 60 µs late (this project's VM: a timed sleep ends 21-66 µs late).
TEST(adaptive_poll, learning_from_arrival_stamps_is_not_shifted_by_a_late_wake_up) {
  const Duration gap = milliseconds(1);
  const auto found_late = [](int i) { return i % 5 == 4 ? microseconds(60) : microseconds(2); };
  Config c;
  c.max_predicted_gap = milliseconds(2);
  AdaptivePoller stamped{c};
  AdaptivePoller unstamped{c};
  Instant last_arrival{};
  for (int i = 0; i < 40; ++i) {
    const Instant arrived = at_ns(1'000'000) + gap * i;
    const Instant found = arrived + found_late(i);
    stamped.on_work(found, 1, arrived);
    unstamped.on_work(found, 1);
    last_arrival = arrived;
  }
  // i = 39 woke 60 µs late: the stamped poller predicts from the arrival, exactly one gap on.
  EXPECT_EQ(stamped.mean_gap(), gap);
  EXPECT_LT(stamped.gap_deviation(), microseconds(1));  // the first sample's seed, decayed
  ASSERT_TRUE(stamped.predicted_arrival().has_value());
  EXPECT_EQ(*stamped.predicted_arrival(), last_arrival + gap);

  // Learning from the time found, the late wake-up shifts the prediction by its lateness and
  // the lateness shows up as deviation.
  ASSERT_TRUE(unstamped.predicted_arrival().has_value());
  EXPECT_GE(*unstamped.predicted_arrival(), last_arrival + gap + microseconds(50));
  EXPECT_GT(unstamped.gap_deviation(), microseconds(10));
}

TEST(adaptive_poll, arrival_stamps_after_now_or_out_of_order_are_clamped) {
  AdaptivePoller p{Config{}};
  p.on_work(at_ns(10'000), 1, at_ns(12'000));  // a stamp from the future: taken as now
  p.on_work(at_ns(20'000), 1, at_ns(19'000));
  EXPECT_EQ(p.mean_gap(), nanoseconds(9'000));
  p.on_work(at_ns(30'000), 1, at_ns(5'000));  // older than the previous: a zero gap
  EXPECT_EQ(p.gap_samples(), 2U);
  EXPECT_LT(p.mean_gap(), nanoseconds(9'000));
  EXPECT_EQ(p.mean_gap(), nanoseconds(7'875));  // 9000 - 9000 / 8
  // The next gap counts from the newest arrival (19 µs), not the stale stamp (5 µs).
  p.on_work(at_ns(40'000), 1, at_ns(29'000));
  EXPECT_EQ(p.mean_gap(), nanoseconds(7'875 + (10'000 - 7'875) / 8));
}

// A producer/consumer mailbox with eventfd semantics: a push wakes the consumer only if the
// consumer's wait is armed at the time of the push.
struct Mailbox {
  int pending = 0;
  bool armed = false;
  int wakeups = 0;
  void push() {
    ++pending;
    if (armed) ++wakeups;
  }
};

TEST(adaptive_poll, work_that_arrives_between_arming_and_blocking_is_found_by_the_recheck) {
  Config c;
  c.idle_poll_window = Duration::zero();  // block at once
  AdaptivePoller p{c};
  Mailbox box;
  p.on_work(at_ns(1000), 1);
  ASSERT_EQ(p.on_idle(at_ns(2000)), Action::block());

  InterruptEntry entry = p.try_enter_interrupt_mode(at_ns(2000));
  EXPECT_FALSE(entry.may_block());  // no permission before the recheck
  box.push();                       // lands before the wait is armed: no wake-up is sent
  box.armed = true;
  EXPECT_FALSE(p.recheck(entry, box.pending > 0));
  EXPECT_FALSE(entry.may_block());
  p.exit_interrupt_mode(entry, at_ns(2500));

  EXPECT_EQ(box.wakeups, 0);  // blocking here would have stranded the item
  EXPECT_EQ(p.counters().recheck_found_work, 1U);
  EXPECT_EQ(p.counters().blocks, 0U);
  EXPECT_EQ(p.counters().blocked_time, Duration::zero());
  EXPECT_FALSE(p.in_interrupt_mode());
  p.on_work(at_ns(2500), 1);
  EXPECT_EQ(p.counters().items, 2U);
}

TEST(adaptive_poll, an_empty_recheck_permits_blocking_and_counts_the_block) {
  Config c;
  c.idle_poll_window = Duration::zero();
  AdaptivePoller p{c};
  p.on_work(at_ns(1000), 1);
  ASSERT_EQ(p.on_idle(at_ns(2000)), Action::block());
  InterruptEntry entry = p.try_enter_interrupt_mode(at_ns(2000));
  EXPECT_TRUE(p.recheck(entry, false));
  EXPECT_TRUE(entry.may_block());
  p.exit_interrupt_mode(entry, at_ns(7000));
  EXPECT_EQ(p.counters().blocks, 1U);
  EXPECT_EQ(p.counters().blocked_time, nanoseconds(5000));
}

// Arrivals 1 ms apart, each followed by one that lands while the wait is being armed.
std::vector<Instant> racing_arrivals() {
  std::vector<Instant> v;
  for (int i = 0; i < 50; ++i) {
    const Instant a = at_ns(1'000'000) + milliseconds(1) * i;
    v.push_back(a);
    // Taken at a + wake latency; the next idle poll blocks at + one poll; arming takes 2 µs.
    v.push_back(a + kWakeLatency + kPollCost + kPollCost + microseconds(1));
  }
  return v;
}

TEST(adaptive_poll, the_recheck_keeps_latency_bounded_when_work_races_the_arming) {
  LoopOptions options;
  options.arm_latency = microseconds(2);
  Config c;
  c.idle_poll_window = Duration::zero();
  AdaptivePoller good{c};
  const LoopResult with_recheck = run_loop(good, racing_arrivals(), options);
  EXPECT_GE(good.counters().recheck_found_work, 40U);
  EXPECT_LT(with_recheck.max_latency, microseconds(10));

  // The same loop without the recheck strands the racing items until the timeout (seed 000).
  options.skip_recheck = true;
  AdaptivePoller naive{c};
  const LoopResult without = run_loop(naive, racing_arrivals(), options);
  EXPECT_EQ(naive.counters().recheck_found_work, 0U);
  EXPECT_GE(without.max_latency, milliseconds(1) / 2);
}

TEST(adaptive_poll, the_spin_window_grows_haltpoll_style_when_a_block_ends_soon) {
  AdaptivePoller p{Config{}};
  EXPECT_EQ(p.spin_window(), microseconds(50));  // starts at guest_halt_poll_grow_start
  // Irregular gaps of 60-190 µs: each block ends within the idle-poll window, so it grows.
  const std::vector<Instant> arrivals{at_ns(0) + microseconds(1000), at_ns(0) + microseconds(1060),
                                      at_ns(0) + microseconds(1250), at_ns(0) + microseconds(1330)};
  run_loop(p, arrivals);
  EXPECT_EQ(p.spin_window(), microseconds(200));  // 50 -> 100 -> 200, clamped at the window
}

TEST(adaptive_poll, the_spin_window_shrinks_to_zero_when_spinning_is_wasted) {
  AdaptivePoller p{Config{}};
  run_loop(p, {at_ns(1'000'000), at_ns(11'000'000)});  // a 10 ms gap: spinning was in vain
  EXPECT_EQ(p.spin_window(), Duration::zero());        // 50 / 2 < grow_start -> 0
  EXPECT_EQ(p.counters().wasted_spin, microseconds(50));
}

::testing::AssertionResult rejects(const Config& c, const std::string& key) {
  const auto e = validate(c);
  if (!e) return ::testing::AssertionFailure() << "accepted; expected a rejection of " << key;
  if (e->key != key) return ::testing::AssertionFailure() << "rejected " << e->what();
  if (e->message.empty()) return ::testing::AssertionFailure() << "no message for " << key;
  return ::testing::AssertionSuccess();
}

TEST(adaptive_poll, config_rejections_name_the_key) {
  EXPECT_FALSE(validate(Config{}));
  Config c;
  c.idle_poll_window = nanoseconds(-1);
  EXPECT_TRUE(rejects(c, "idle_poll_window"));
  c = {};
  c.idle_poll_window = seconds(11);
  EXPECT_TRUE(rejects(c, "idle_poll_window"));
  c = {};
  c.max_predicted_gap = nanoseconds(-1);
  EXPECT_TRUE(rejects(c, "max_predicted_gap"));
  c = {};
  c.max_predicted_gap = seconds(11);
  EXPECT_TRUE(rejects(c, "max_predicted_gap"));
  c = {};
  c.max_predicted_gap = Duration::zero();  // never predict
  EXPECT_FALSE(validate(c));
  c = {};
  c.spin_grow_start = Duration::zero();
  EXPECT_TRUE(rejects(c, "spin_grow_start"));
  c = {};
  c.spin_grow_start = microseconds(300);
  EXPECT_TRUE(rejects(c, "spin_grow_start"));
  c = {};
  c.spin_grow = 0;
  EXPECT_TRUE(rejects(c, "spin_grow"));
  c = {};
  c.spin_shrink = 0;
  EXPECT_TRUE(rejects(c, "spin_shrink"));
  c = {};
  c.wakeup_cost = nanoseconds(-5);
  EXPECT_TRUE(rejects(c, "wakeup_cost"));
  c = {};
  c.regular_max_deviation_percent = 101;
  EXPECT_TRUE(rejects(c, "regular_max_deviation_percent"));
  c = {};
  c.min_gap_samples = 0;
  EXPECT_TRUE(rejects(c, "min_gap_samples"));

  c = {};
  c.spin_shrink = 0;
  const auto created = AdaptivePoller::create(c);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().key, "spin_shrink");
  EXPECT_TRUE(AdaptivePoller::create(Config{}).ok());
  c = {};
  c.idle_poll_window = kVirtualizedIdlePollWindow;
  EXPECT_FALSE(validate(c));
}

}  // namespace
}  // namespace irqmod::adaptive_poll
