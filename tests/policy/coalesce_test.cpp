// Unit tests for ethtool-style coalescing: the (usecs, frames) rule, the -irq pair while
// servicing, the rate bands, validation and the ethtool -C parser, each rule on its own.
#include "irqmod/policy/coalesce.hpp"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <string>

namespace irqmod::coalesce {
namespace {

Settings rx_with(Thresholds normal, Thresholds irq = {}) {
  Settings s;
  s.rx.normal = normal;
  s.rx.irq = irq;
  return s;
}

Coalescer rx_coalescer(Thresholds normal, Thresholds irq = {}) {
  return Coalescer(rx_with(normal, irq), Direction::rx);
}

// Rx adaptive between 10 000 and 100 000 packets per second, sampled every second.
Settings adaptive_rx() {
  Settings s;
  s.rx.normal = {50, 32};
  s.rx.low = {5, 1};
  s.rx.high = {200, 128};
  s.rx.adaptive = true;
  s.pkt_rate_low = 10'000;
  s.pkt_rate_high = 100'000;
  s.sample_interval = 1;
  return s;
}

::testing::AssertionResult mentions(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << '"' << text << "\" does not mention \"" << part << '"';
}

// ---- the (usecs, frames) rule ----------------------------------------------------------------

TEST(coalesce, fires_after_rx_usecs_from_first_completion) {
  ManualClock clock;
  Coalescer c = rx_coalescer({50, 0});
  clock.advance(microseconds(7));
  c.on_completion(clock.now());
  clock.advance(microseconds(50) - nanoseconds(1));
  EXPECT_FALSE(c.due(clock.now()));
  clock.advance(nanoseconds(1));
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, later_completions_do_not_restart_the_timer) {
  ManualClock clock;
  Coalescer c = rx_coalescer({50, 0});
  c.on_completion(clock.now());
  clock.advance(microseconds(30));
  c.on_completion(clock.now());
  clock.advance(microseconds(20));
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, in_cqe_mode_every_completion_restarts_the_timer) {
  Settings s;
  s.rx.normal = {64, 0};
  s.rx.cqe_mode = true;  // mlx5's start-from-CQE
  Coalescer c(s, Direction::rx);
  c.on_completion(at_ns(0));
  c.on_completion(at_ns(40'000));
  EXPECT_EQ(c.deadline(), at_ns(104'000));  // 64 us after the last, not the first
  EXPECT_FALSE(c.due(at_ns(64'000)));
  EXPECT_TRUE(c.due(at_ns(104'000)));
  s.rx.cqe_mode = false;
  Coalescer eqe(s, Direction::rx);
  eqe.on_completion(at_ns(0));
  eqe.on_completion(at_ns(40'000));
  EXPECT_TRUE(eqe.due(at_ns(64'000)));
}

TEST(coalesce, a_reprogrammed_normal_pair_applies_to_pending_completions) {
  Coalescer c = rx_coalescer({50, 0});
  c.on_completion(at_ns(0));
  EXPECT_EQ(c.deadline(), at_ns(0) + microseconds(50));
  c.program_normal({8, 4});  // a DIM profile
  EXPECT_EQ(c.deadline(), at_ns(0) + microseconds(8));
  c.on_completion(at_ns(1));
  c.on_completion(at_ns(2));
  EXPECT_FALSE(c.due(at_ns(3)));
  c.on_completion(at_ns(3));
  EXPECT_TRUE(c.due(at_ns(3)));  // the fourth frame
}

TEST(coalesce, fires_when_rx_frames_completions_are_pending) {
  ManualClock clock;
  Coalescer c = rx_coalescer({1000, 4});
  for (int i = 0; i < 3; ++i) {
    c.on_completion(clock.now());
    EXPECT_FALSE(c.due(clock.now())) << i;
  }
  c.on_completion(clock.now());
  EXPECT_TRUE(c.due(clock.now()));
  EXPECT_EQ(c.pending(), 4U);
}

TEST(coalesce, zero_usecs_one_frame_interrupts_on_every_completion) {
  ManualClock clock;
  Coalescer c = rx_coalescer(kNoCoalescing);
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(c.due(clock.now())) << i;
    c.on_completion(clock.now());
    EXPECT_TRUE(c.due(clock.now())) << i;
    c.on_interrupt(clock.now());
    c.on_irq_enabled(clock.now());
    clock.advance(microseconds(1));
  }
  EXPECT_EQ(c.interrupts(), 5U);
}

TEST(coalesce, zero_frames_leaves_only_the_timer) {
  ManualClock clock;
  Coalescer c = rx_coalescer({10, 0});
  for (int i = 0; i < 100'000; ++i)
    c.on_completion(clock.now());
  EXPECT_FALSE(c.due(clock.now()));
  clock.advance(microseconds(10));
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, zero_usecs_leaves_only_the_frame_count) {
  ManualClock clock;
  Coalescer c = rx_coalescer({0, 2});
  c.on_completion(clock.now());
  clock.advance(seconds(3600));
  EXPECT_FALSE(c.due(clock.now()));
  EXPECT_FALSE(c.deadline().has_value());
  c.on_completion(clock.now());
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, nothing_is_due_without_pending_completions) {
  ManualClock clock;
  Coalescer c = rx_coalescer({1, 1});
  clock.advance(seconds(1));
  EXPECT_FALSE(c.due(clock.now()));
  EXPECT_EQ(c.pending(), 0U);
}

TEST(coalesce, interrupt_signals_pending_completions_and_stops_the_timer) {
  ManualClock clock;
  Coalescer c = rx_coalescer({10, 3});
  c.on_completion(clock.now());
  c.on_completion(clock.now());
  c.on_interrupt(clock.now());
  EXPECT_EQ(c.pending(), 0U);
  EXPECT_FALSE(c.deadline().has_value());
  clock.advance(microseconds(100));
  EXPECT_FALSE(c.due(clock.now()));
}

TEST(coalesce, timer_starts_at_first_completion_after_the_last_interrupt) {
  ManualClock clock;
  Coalescer c = rx_coalescer({10, 0});
  c.on_completion(clock.now());
  clock.advance(microseconds(10));
  c.on_interrupt(clock.now());
  c.on_irq_enabled(clock.now());
  clock.advance(microseconds(25));
  const Instant first = clock.now();
  c.on_completion(first);
  EXPECT_FALSE(c.due(clock.now()));
  EXPECT_EQ(c.deadline(), first + microseconds(10));
  clock.advance(microseconds(10));
  EXPECT_TRUE(c.due(clock.now()));
}

// ---- deadline() --------------------------------------------------------------------------------

TEST(coalesce, deadline_is_first_completion_plus_usecs) {
  ManualClock clock(at_ns(1'000));
  Coalescer c = rx_coalescer({64, 256});
  c.on_completion(clock.now());
  clock.advance(microseconds(5));
  c.on_completion(clock.now());
  ASSERT_TRUE(c.deadline().has_value());
  EXPECT_EQ(ns_since_epoch(*c.deadline()), 1'000 + 64'000);
}

TEST(coalesce, deadline_is_empty_without_pending_completions) {
  Coalescer c = rx_coalescer({64, 256});
  EXPECT_FALSE(c.deadline().has_value());
}

TEST(coalesce, deadline_is_empty_when_usecs_is_zero) {
  Coalescer c = rx_coalescer({0, 8});
  c.on_completion(at_ns(0));
  EXPECT_EQ(c.pending(), 1U);
  EXPECT_FALSE(c.deadline().has_value());
}

TEST(coalesce, due_at_the_deadline_and_not_before) {
  ManualClock clock(at_ns(123));
  Coalescer c = rx_coalescer({3, 0});
  c.on_completion(clock.now());
  const Instant deadline = *c.deadline();
  EXPECT_FALSE(c.due(deadline - nanoseconds(1)));
  EXPECT_TRUE(c.due(deadline));
}

// ---- the -irq pair -----------------------------------------------------------------------------

TEST(coalesce, irq_values_apply_only_while_servicing) {
  ManualClock clock;
  Coalescer c = rx_coalescer({100, 64}, {10, 2});
  EXPECT_EQ(c.thresholds(), (Thresholds{100, 64}));
  c.on_completion(clock.now());
  c.on_completion(clock.now());
  EXPECT_FALSE(c.due(clock.now()));  // 2 < rx-frames 64
  c.on_interrupt(clock.now());
  EXPECT_TRUE(c.servicing());
  EXPECT_EQ(c.thresholds(), (Thresholds{10, 2}));
  c.on_completion(clock.now());
  c.on_completion(clock.now());
  EXPECT_TRUE(c.due(clock.now()));  // 2 >= rx-frames-irq 2
  c.on_irq_enabled(clock.now());
  EXPECT_FALSE(c.servicing());
  EXPECT_EQ(c.thresholds(), (Thresholds{100, 64}));
  EXPECT_FALSE(c.due(clock.now()));  // back to rx-frames 64
}

TEST(coalesce, irq_pair_both_zero_means_the_normal_values_apply_while_servicing) {
  ManualClock clock;
  Coalescer c = rx_coalescer({0, 3}, {0, 0});
  c.on_interrupt(clock.now());
  EXPECT_EQ(c.thresholds(), (Thresholds{0, 3}));
  c.on_completion(clock.now());
  c.on_completion(clock.now());
  EXPECT_FALSE(c.due(clock.now()));
  c.on_completion(clock.now());
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, irq_usecs_alone_turns_the_frame_criterion_off_while_servicing) {
  ManualClock clock;
  Coalescer c = rx_coalescer({0, 1}, {20, 0});
  c.on_interrupt(clock.now());
  for (int i = 0; i < 1000; ++i)
    c.on_completion(clock.now());
  EXPECT_FALSE(c.due(clock.now()));
  clock.advance(microseconds(20));
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, irq_frames_alone_turns_the_timer_off_while_servicing) {
  ManualClock clock;
  Coalescer c = rx_coalescer({5, 0}, {0, 4});
  c.on_interrupt(clock.now());
  c.on_completion(clock.now());
  clock.advance(milliseconds(10));
  EXPECT_FALSE(c.due(clock.now()));
  EXPECT_FALSE(c.deadline().has_value());
  for (int i = 0; i < 3; ++i)
    c.on_completion(clock.now());
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, deadline_uses_irq_usecs_while_servicing) {
  ManualClock clock;
  Coalescer c = rx_coalescer({100, 0}, {10, 0});
  c.on_interrupt(clock.now());
  const Instant first = clock.now();
  c.on_completion(first);
  EXPECT_EQ(c.deadline(), first + microseconds(10));
  c.on_irq_enabled(clock.now());
  EXPECT_EQ(c.deadline(), first + microseconds(100));
}

TEST(coalesce, frames_pending_at_irq_enable_fire_then) {
  ManualClock clock;
  Coalescer c = rx_coalescer({1000, 4});
  c.on_interrupt(clock.now());
  for (int i = 0; i < 4; ++i)
    c.on_completion(clock.now());
  clock.advance(microseconds(3));
  c.on_irq_enabled(clock.now());
  EXPECT_TRUE(c.due(clock.now()));
}

TEST(coalesce, timer_started_while_servicing_is_due_at_once_when_enabled_late) {
  ManualClock clock;
  Coalescer c = rx_coalescer({10, 0});
  c.on_interrupt(clock.now());
  c.on_completion(clock.now());
  clock.advance(microseconds(15));
  c.on_irq_enabled(clock.now());
  EXPECT_TRUE(c.due(clock.now()));
  EXPECT_LT(*c.deadline(), clock.now());
}

TEST(coalesce, irq_enable_when_not_servicing_changes_nothing) {
  ManualClock clock;
  Coalescer c = rx_coalescer({10, 2});
  c.on_completion(clock.now());
  clock.advance(microseconds(4));
  c.on_irq_enabled(clock.now());
  EXPECT_FALSE(c.servicing());
  EXPECT_EQ(c.pending(), 1U);
  EXPECT_EQ(c.servicing_time(), Duration::zero());
}

// ---- counters ----------------------------------------------------------------------------------

TEST(coalesce, counts_completions_and_interrupts) {
  ManualClock clock;
  Coalescer c = rx_coalescer({0, 3});
  for (int i = 0; i < 10; ++i) {
    c.on_completion(clock.now());
    if (c.due(clock.now())) {
      c.on_interrupt(clock.now());
      c.on_irq_enabled(clock.now());
    }
    clock.advance(microseconds(1));
  }
  EXPECT_EQ(c.completions(), 10U);
  EXPECT_EQ(c.interrupts(), 3U);
  EXPECT_EQ(c.pending(), 1U);
  EXPECT_EQ(ns_since_epoch(c.last_interrupt()), 8'000);
}

TEST(coalesce, servicing_time_sums_interrupt_to_enable_spans) {
  ManualClock clock;
  Coalescer c = rx_coalescer({0, 1});
  c.on_interrupt(clock.now());
  clock.advance(microseconds(3));
  c.on_interrupt(clock.now());  // a second interrupt while servicing does not restart the span
  clock.advance(microseconds(2));
  c.on_irq_enabled(clock.now());
  clock.advance(microseconds(100));
  c.on_interrupt(clock.now());
  clock.advance(microseconds(7));
  c.on_irq_enabled(clock.now());
  EXPECT_EQ(c.servicing_time(), microseconds(12));
  EXPECT_EQ(c.interrupts(), 3U);
}

TEST(coalesce, tx_direction_uses_the_tx_values) {
  Settings s;
  s.rx.normal = {0, 1};
  s.tx.normal = {0, 16};
  s.tx.irq = {0, 2};
  const Coalescer c(s, Direction::tx);
  EXPECT_EQ(c.direction(), Direction::tx);
  EXPECT_EQ(c.thresholds(), (Thresholds{0, 16}));
  Coalescer servicing = c;
  servicing.on_interrupt(at_ns(0));
  EXPECT_EQ(servicing.thresholds(), (Thresholds{0, 2}));
}

// ---- rate bands --------------------------------------------------------------------------------

TEST(coalesce_bands, first_sample_only_opens_the_window) {
  Coalescer c(adaptive_rx(), Direction::rx);
  const SampleResult r = c.on_sample(at_ns(0), 5'000'000);
  EXPECT_FALSE(r.reliable);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.band, Band::normal);
  EXPECT_EQ(c.thresholds(), (Thresholds{50, 32}));
  EXPECT_EQ(c.band_thresholds(Band::low), (Thresholds{5, 1}));
  EXPECT_EQ(c.band_thresholds(Band::high), (Thresholds{200, 128}));
}

TEST(coalesce_bands, switch_low_normal_high_with_the_packet_rate) {
  ManualClock clock;
  Coalescer c(adaptive_rx(), Direction::rx);
  std::uint64_t packets = 0;
  c.on_sample(clock.now(), packets);

  const auto sample = [&](std::uint64_t packets_in_second) {
    clock.advance(seconds(1));
    packets += packets_in_second;
    return c.on_sample(clock.now(), packets);
  };

  SampleResult r = sample(500);
  EXPECT_TRUE(r.reliable);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.band, Band::low);
  EXPECT_EQ(r.rate_pps, 500U);
  EXPECT_EQ(c.thresholds(), (Thresholds{5, 1}));

  r = sample(50'000);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.band, Band::normal);
  EXPECT_EQ(c.thresholds(), (Thresholds{50, 32}));

  r = sample(1'000'000);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.band, Band::high);
  EXPECT_EQ(c.thresholds(), (Thresholds{200, 128}));

  r = sample(2'000'000);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.band, Band::high);
  EXPECT_EQ(c.band_changes(), 3U);
}

TEST(coalesce_bands, a_rate_equal_to_a_threshold_selects_the_normal_set) {
  ManualClock clock;
  Coalescer c(adaptive_rx(), Direction::rx);
  c.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  EXPECT_EQ(c.on_sample(clock.now(), 10'000).band, Band::normal);  // not below pkt-rate-low
  clock.advance(seconds(1));
  EXPECT_EQ(c.on_sample(clock.now(), 110'000).band, Band::normal);  // not above pkt-rate-high
  clock.advance(seconds(1));
  EXPECT_EQ(c.on_sample(clock.now(), 210'001).band, Band::high);
  clock.advance(seconds(1));
  EXPECT_EQ(c.on_sample(clock.now(), 220'000).band, Band::low);
}

TEST(coalesce_bands, zero_time_sample_keeps_the_band_and_the_window) {
  ManualClock clock;
  Coalescer c(adaptive_rx(), Direction::rx);
  c.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  ASSERT_EQ(c.on_sample(clock.now(), 500'000).band, Band::high);
  const SampleResult r = c.on_sample(clock.now(), 500'100);  // same instant: not reliable
  EXPECT_FALSE(r.reliable);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.band, Band::high);
  EXPECT_EQ(r.rate_pps, 0U);
  // The window still starts at the previous sample, so the 100 packets count in the next one.
  clock.advance(seconds(1));
  const SampleResult next = c.on_sample(clock.now(), 500'200);
  EXPECT_TRUE(next.reliable);
  EXPECT_EQ(next.rate_pps, 200U);
  EXPECT_EQ(next.band, Band::low);
}

TEST(coalesce_bands, rate_uses_a_wrap_safe_counter_delta) {
  ManualClock clock;
  Coalescer c(adaptive_rx(), Direction::rx);
  const std::uint64_t near_wrap = std::numeric_limits<std::uint64_t>::max() - 999;
  c.on_sample(clock.now(), near_wrap);
  clock.advance(seconds(1));
  const SampleResult r = c.on_sample(clock.now(), 49'000);  // wrapped: 1000 + 49 000 packets
  EXPECT_TRUE(r.reliable);
  EXPECT_EQ(r.rate_pps, 50'000U);
  EXPECT_EQ(r.band, Band::normal);
}

TEST(coalesce_bands, rate_is_over_the_time_actually_elapsed) {
  ManualClock clock;
  Coalescer c(adaptive_rx(), Direction::rx);
  c.on_sample(clock.now(), 0);
  clock.advance(milliseconds(2500));  // a late timer
  const SampleResult r = c.on_sample(clock.now(), 50'000);
  EXPECT_EQ(r.rate_pps, 20'000U);
  EXPECT_EQ(r.band, Band::normal);
}

TEST(coalesce_bands, packets_per_second_guards_zero_time_and_saturates) {
  EXPECT_FALSE(packets_per_second(100, Duration::zero()).has_value());
  EXPECT_FALSE(packets_per_second(100, nanoseconds(-1)).has_value());
  EXPECT_EQ(packets_per_second(3, milliseconds(2)), 1'500U);
  EXPECT_EQ(packets_per_second(1, seconds(3)), 0U);  // rounded down
  EXPECT_EQ(packets_per_second(std::numeric_limits<std::uint64_t>::max(), nanoseconds(1)),
            std::numeric_limits<std::uint64_t>::max());
}

TEST(coalesce_bands, bands_do_not_switch_when_adaptive_is_off) {
  ManualClock clock;
  Settings s = adaptive_rx();
  s.rx.adaptive = false;
  Coalescer c(s, Direction::rx);
  EXPECT_EQ(c.sample_interval(), Duration::zero());
  c.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  const SampleResult r = c.on_sample(clock.now(), 10);
  EXPECT_TRUE(r.reliable);
  EXPECT_EQ(r.rate_pps, 10U);
  EXPECT_EQ(r.band, Band::normal);
  EXPECT_FALSE(r.changed);
}

TEST(coalesce_bands, adaptive_rx_does_not_make_tx_adaptive) {
  ManualClock clock;
  Settings s = adaptive_rx();
  s.tx.low = {1, 1};
  Coalescer tx(s, Direction::tx);
  tx.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  EXPECT_EQ(tx.on_sample(clock.now(), 1).band, Band::normal);
}

TEST(coalesce_bands, zero_pkt_rate_low_turns_the_low_band_off) {
  ManualClock clock;
  Settings s = adaptive_rx();
  s.pkt_rate_low = 0;
  s.rx.low = {};
  Coalescer c(s, Direction::rx);
  c.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  EXPECT_EQ(c.on_sample(clock.now(), 0).band, Band::normal);
}

TEST(coalesce_bands, zero_pkt_rate_high_turns_the_high_band_off) {
  ManualClock clock;
  Settings s = adaptive_rx();
  s.pkt_rate_high = 0;
  s.rx.high = {};
  Coalescer c(s, Direction::rx);
  c.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  EXPECT_EQ(c.on_sample(clock.now(), 1'000'000'000).band, Band::normal);
}

TEST(coalesce_bands, band_change_moves_the_deadline_of_pending_completions) {
  ManualClock clock;
  Coalescer c(adaptive_rx(), Direction::rx);
  c.on_sample(clock.now(), 0);
  const Instant first = clock.now();
  c.on_completion(first);
  EXPECT_EQ(c.deadline(), first + microseconds(50));
  clock.advance(seconds(1));
  ASSERT_EQ(c.on_sample(clock.now(), 5'000'000).band, Band::high);
  EXPECT_EQ(c.deadline(), first + microseconds(200));
}

TEST(coalesce_bands, band_set_applies_while_servicing_when_irq_pair_is_not_set) {
  ManualClock clock;
  Coalescer c(adaptive_rx(), Direction::rx);
  c.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  ASSERT_EQ(c.on_sample(clock.now(), 1).band, Band::low);
  c.on_interrupt(clock.now());
  EXPECT_EQ(c.thresholds(), (Thresholds{5, 1}));
}

TEST(coalesce_bands, irq_pair_overrides_every_band_while_servicing) {
  ManualClock clock;
  Settings s = adaptive_rx();
  s.rx.irq = {0, 7};
  Coalescer c(s, Direction::rx);
  c.on_sample(clock.now(), 0);
  clock.advance(seconds(1));
  ASSERT_EQ(c.on_sample(clock.now(), 5'000'000).band, Band::high);
  c.on_interrupt(clock.now());
  EXPECT_EQ(c.thresholds(), (Thresholds{0, 7}));
  c.on_irq_enabled(clock.now());
  EXPECT_EQ(c.thresholds(), (Thresholds{200, 128}));
}

TEST(coalesce_bands, sample_interval_is_reported_in_nanoseconds) {
  Settings s = adaptive_rx();
  s.sample_interval = 4'294'967'295U;
  const Coalescer c(s, Direction::rx);
  EXPECT_EQ(c.sample_interval(), seconds(4'294'967'295LL));
  EXPECT_GT(c.sample_interval().count(), 0);
}

TEST(coalesce_bands, band_names) {
  EXPECT_EQ(to_string(Band::low), "low");
  EXPECT_EQ(to_string(Band::normal), "normal");
  EXPECT_EQ(to_string(Band::high), "high");
}

// ---- validation --------------------------------------------------------------------------------

TEST(coalesce_validate, accepts_the_defaults_and_an_adaptive_setup) {
  EXPECT_FALSE(validate(Settings{}).has_value());
  EXPECT_FALSE(validate(adaptive_rx()).has_value());
  EXPECT_EQ(Settings{}.rx.normal, kNoCoalescing);
}

TEST(coalesce_validate, rejects_zero_rx_usecs_and_rx_frames) {
  const auto error = validate(rx_with({0, 0}));
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "rx-usecs");
  EXPECT_TRUE(mentions(error->message, "rx-usecs > 0 or rx-frames > 0"));
  EXPECT_TRUE(mentions(error->message, "rx-usecs 0 rx-frames 1"));
}

TEST(coalesce_validate, rejects_zero_tx_usecs_and_tx_frames) {
  Settings s;
  s.tx.normal = {0, 0};
  const auto error = validate(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "tx-usecs");
  EXPECT_TRUE(mentions(error->message, "tx-usecs > 0 or tx-frames > 0"));
}

TEST(coalesce_validate, rejects_zero_rx_low_set_when_the_low_band_is_in_use) {
  Settings s = adaptive_rx();
  s.rx.low = {0, 0};
  const auto error = validate(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "rx-usecs-low");
  EXPECT_TRUE(mentions(error->message, "rx-usecs-low > 0 or rx-frames-low > 0"));
}

TEST(coalesce_validate, rejects_zero_rx_high_set_when_the_high_band_is_in_use) {
  Settings s = adaptive_rx();
  s.rx.high = {0, 0};
  const auto error = validate(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "rx-usecs-high");
  EXPECT_TRUE(mentions(error->message, "rx-usecs-high > 0 or rx-frames-high > 0"));
}

TEST(coalesce_validate, rejects_zero_tx_low_set_when_the_low_band_is_in_use) {
  Settings s = adaptive_rx();
  s.tx.adaptive = true;
  s.tx.high = {10, 10};
  const auto error = validate(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "tx-usecs-low");
  EXPECT_TRUE(mentions(error->message, "tx-usecs-low > 0 or tx-frames-low > 0"));
}

TEST(coalesce_validate, rejects_zero_tx_high_set_when_the_high_band_is_in_use) {
  Settings s = adaptive_rx();
  s.tx.adaptive = true;
  s.tx.low = {10, 10};
  const auto error = validate(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "tx-usecs-high");
  EXPECT_TRUE(mentions(error->message, "tx-usecs-high > 0 or tx-frames-high > 0"));
}

TEST(coalesce_validate, accepts_zero_band_sets_that_are_not_in_use) {
  Settings s;
  s.rx.low = {0, 0};  // adaptive off: the bands are ignored
  s.pkt_rate_low = 5;
  s.pkt_rate_high = 1;
  EXPECT_FALSE(validate(s).has_value());
  Settings t = adaptive_rx();
  t.pkt_rate_high = 0;  // high band off
  t.rx.high = {0, 0};
  EXPECT_FALSE(validate(t).has_value());
}

TEST(coalesce_validate, rejects_pkt_rate_low_not_below_pkt_rate_high) {
  for (const std::uint32_t low : {100'000U, 200'000U}) {
    Settings s = adaptive_rx();
    s.pkt_rate_low = low;
    const auto error = validate(s);
    ASSERT_TRUE(error.has_value()) << low;
    EXPECT_EQ(error->key, "pkt-rate-low");
    EXPECT_TRUE(mentions(error->message, "pkt-rate-low < pkt-rate-high"));
    EXPECT_TRUE(mentions(error->message, std::to_string(low)));
  }
}

TEST(coalesce_validate, rejects_zero_sample_interval_with_adaptive_rx) {
  Settings s = adaptive_rx();
  s.sample_interval = 0;
  const auto error = validate(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "sample-interval");
  EXPECT_TRUE(mentions(error->message, "allowed: 1 to 4294967295 (seconds)"));
}

TEST(coalesce_validate, rejects_zero_sample_interval_with_adaptive_tx) {
  Settings s;
  s.tx.adaptive = true;
  const auto error = validate(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->key, "sample-interval");
  EXPECT_TRUE(mentions(error->message, "adaptive-tx"));
}

TEST(coalesce_validate, create_returns_the_validation_error) {
  const Expected<Coalescer> bad = Coalescer::create(rx_with({0, 0}), Direction::rx);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().key, "rx-usecs");
  const Expected<Coalescer> good = Coalescer::create(rx_with({8, 0}), Direction::rx);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good->thresholds(), (Thresholds{8, 0}));
}

// ---- the ethtool -C parser ---------------------------------------------------------------------

TEST(coalesce_parse, parses_ethtool_style_key_value_pairs) {
  const auto s = parse_settings("rx-usecs 50 rx-frames 32 adaptive-rx on sample-interval 2");
  ASSERT_TRUE(s.ok()) << s.error().what();
  EXPECT_EQ(s->rx.normal, (Thresholds{50, 32}));
  EXPECT_TRUE(s->rx.adaptive);
  EXPECT_EQ(s->sample_interval, 2U);
}

TEST(coalesce_parse, parses_key_equals_value_tokens_mixed_with_pairs) {
  const auto s = parse_settings("tx-usecs=8\ttx-frames 0  rx-usecs-irq=4\n adaptive-tx=off");
  ASSERT_TRUE(s.ok()) << s.error().what();
  EXPECT_EQ(s->tx.normal, (Thresholds{8, 0}));
  EXPECT_EQ(s->rx.irq, (Thresholds{4, 0}));
  EXPECT_FALSE(s->tx.adaptive);
}

TEST(coalesce_parse, every_parameter_sets_its_own_field) {
  // Distinct values, one per name in struct ethtool_coalesce order; flags get "on".
  std::array<std::string, 42> storage;
  std::array<std::string_view, 42> tokens;
  const auto names = parameter_names();
  ASSERT_EQ(names.size(), 21U);
  for (std::size_t i = 0; i < names.size(); ++i) {
    storage[2 * i] = std::string(names[i]);
    const bool flag = names[i].starts_with("adaptive");
    storage[2 * i + 1] = flag ? "on" : std::to_string(1000 + i);
    tokens[2 * i] = storage[2 * i];
    tokens[2 * i + 1] = storage[2 * i + 1];
  }
  const auto s = parse_tokens(tokens);
  ASSERT_TRUE(s.ok()) << s.error().what();
  EXPECT_EQ(s->rx.normal, (Thresholds{1000, 1001}));
  EXPECT_EQ(s->rx.irq, (Thresholds{1002, 1003}));
  EXPECT_EQ(s->tx.normal, (Thresholds{1004, 1005}));
  EXPECT_EQ(s->tx.irq, (Thresholds{1006, 1007}));
  EXPECT_TRUE(s->rx.adaptive);
  EXPECT_TRUE(s->tx.adaptive);
  EXPECT_EQ(s->pkt_rate_low, 1010U);
  EXPECT_EQ(s->rx.low, (Thresholds{1011, 1012}));
  EXPECT_EQ(s->tx.low, (Thresholds{1013, 1014}));
  EXPECT_EQ(s->pkt_rate_high, 1015U);
  EXPECT_EQ(s->rx.high, (Thresholds{1016, 1017}));
  EXPECT_EQ(s->tx.high, (Thresholds{1018, 1019}));
  EXPECT_EQ(s->sample_interval, 1020U);
}

TEST(coalesce_parse, keeps_base_values_for_keys_not_given) {
  Settings base;
  base.rx.normal = {64, 256};
  base.tx.normal = {32, 128};
  const auto s = parse_settings("rx-usecs 8", base);
  ASSERT_TRUE(s.ok()) << s.error().what();
  EXPECT_EQ(s->rx.normal, (Thresholds{8, 256}));
  EXPECT_EQ(s->tx.normal, (Thresholds{32, 128}));
}

TEST(coalesce_parse, later_value_of_a_repeated_key_wins) {
  const auto s = parse_settings("rx-usecs 8 rx-usecs=9");
  ASSERT_TRUE(s.ok()) << s.error().what();
  EXPECT_EQ(s->rx.normal.usecs, 9U);
}

TEST(coalesce_parse, accepts_u32_max) {
  const auto s = parse_settings("rx-usecs 4294967295");
  ASSERT_TRUE(s.ok()) << s.error().what();
  EXPECT_EQ(s->rx.normal.usecs, 4'294'967'295U);
}

TEST(coalesce_parse, empty_text_gives_the_base) {
  Settings base;
  base.rx.normal = {3, 4};
  const auto s = parse_settings(" \n ", base);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rx.normal, (Thresholds{3, 4}));
}

TEST(coalesce_parse, rejects_an_unknown_key_naming_it_and_listing_the_allowed_ones) {
  const auto s = parse_settings("rx-usecs 8 stats-block-usecs 100");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().key, "stats-block-usecs");
  EXPECT_TRUE(mentions(s.error().message, "unknown"));
  for (const std::string_view name : parameter_names())
    EXPECT_TRUE(mentions(s.error().message, name));
}

TEST(coalesce_parse, rejects_a_non_numeric_value) {
  const auto s = parse_settings("rx-frames 12abc");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().key, "rx-frames");
  EXPECT_TRUE(mentions(s.error().message, "\"12abc\" is not a number"));
  EXPECT_TRUE(mentions(s.error().message, "0 to 4294967295"));
}

TEST(coalesce_parse, rejects_a_negative_value) {
  const auto s = parse_settings("tx-usecs=-1");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().key, "tx-usecs");
  EXPECT_TRUE(mentions(s.error().message, "0 to 4294967295"));
}

TEST(coalesce_parse, rejects_a_value_above_u32) {
  for (const std::string_view value : {"4294967296", "123456789012345678901234567890"}) {
    const std::array<std::string_view, 2> tokens{"pkt-rate-high", value};
    const auto s = parse_tokens(tokens);
    ASSERT_FALSE(s.ok()) << value;
    EXPECT_EQ(s.error().key, "pkt-rate-high");
    EXPECT_TRUE(mentions(s.error().message, "out of range"));
    EXPECT_TRUE(mentions(s.error().message, "0 to 4294967295"));
  }
}

TEST(coalesce_parse, rejects_a_missing_value_at_the_end) {
  const auto s = parse_settings("rx-usecs 8 rx-frames");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().key, "rx-frames");
  EXPECT_TRUE(mentions(s.error().message, "missing value"));
  EXPECT_TRUE(mentions(s.error().message, "0 to 4294967295"));
}

TEST(coalesce_parse, rejects_a_missing_value_after_equals) {
  const auto s = parse_settings("adaptive-rx= rx-usecs 8");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().key, "adaptive-rx");
  EXPECT_TRUE(mentions(s.error().message, "missing value"));
  EXPECT_TRUE(mentions(s.error().message, "on or off"));
}

TEST(coalesce_parse, rejects_flag_words_other_than_on_and_off) {
  for (const std::string_view word : {"yes", "1", "true", "ON"}) {
    const std::array<std::string_view, 2> tokens{"adaptive-tx", word};
    const auto s = parse_tokens(tokens);
    ASSERT_FALSE(s.ok()) << word;
    EXPECT_EQ(s.error().key, "adaptive-tx");
    EXPECT_TRUE(mentions(s.error().message, std::string(word)));
    EXPECT_TRUE(mentions(s.error().message, "allowed: on or off"));
  }
}

TEST(coalesce_parse, validates_the_result) {
  const auto s = parse_settings("rx-frames 0");  // rx-usecs is 0 in the default settings
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().key, "rx-usecs");
  EXPECT_TRUE(mentions(s.error().message, "rx-usecs > 0 or rx-frames > 0"));
}

}  // namespace
}  // namespace irqmod::coalesce
