// Unit tests for net_dim: every rule of lib/dim/dim.c and lib/dim/net_dim.c on its own, then
// whole sequences through the entry point.
#include "irqmod/policy/dim.hpp"

#include <gtest/gtest.h>

namespace irqmod::dim {
namespace {

Stats bytes_per_ms(std::int32_t bpms, std::int32_t ppms = 0, std::int32_t epms = 0) {
  Stats s;
  s.bpms = bpms;
  s.ppms = ppms;
  s.epms = epms;
  return s;
}

Sample sample_at(std::int64_t us, std::uint64_t events, std::uint64_t packets,
                 std::uint64_t bytes) {
  return make_sample(at_ns(us * 1000), events, packets, bytes);
}

// ---- tables --------------------------------------------------------------------------------

TEST(dim, default_tables_are_the_kernels) {
  const auto& rx_eqe = default_profiles(Direction::rx, CqPeriodMode::start_from_eqe);
  const auto& rx_cqe = default_profiles(Direction::rx, CqPeriodMode::start_from_cqe);
  const auto& tx_eqe = default_profiles(Direction::tx, CqPeriodMode::start_from_eqe);
  const auto& tx_cqe = default_profiles(Direction::tx, CqPeriodMode::start_from_cqe);
  const std::uint16_t rx_eqe_usec[] = {1, 8, 64, 128, 256};
  const std::uint16_t rx_cqe_usec[] = {2, 8, 16, 32, 64};
  const std::uint16_t rx_cqe_pkts[] = {256, 128, 64, 64, 64};
  const std::uint16_t tx_eqe_usec[] = {1, 8, 32, 64, 128};
  const std::uint16_t tx_cqe_usec[] = {5, 8, 16, 32, 64};
  const std::uint16_t tx_cqe_pkts[] = {128, 64, 32, 32, 32};
  for (std::size_t i = 0; i < kNumProfiles; ++i) {
    EXPECT_EQ(rx_eqe[i], (Profile{rx_eqe_usec[i], 256, 0})) << i;
    EXPECT_EQ(rx_cqe[i], (Profile{rx_cqe_usec[i], rx_cqe_pkts[i], 0})) << i;
    EXPECT_EQ(tx_eqe[i], (Profile{tx_eqe_usec[i], 128, 0})) << i;
    EXPECT_EQ(tx_cqe[i], (Profile{tx_cqe_usec[i], tx_cqe_pkts[i], 0})) << i;
  }
}

TEST(dim, zero_initialised_state_parks_on_top_at_profile_zero_and_starts_measuring) {
  const State s{};
  EXPECT_EQ(s.state, MeasureState::start_measure);
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top);
  EXPECT_EQ(s.profile_ix, 0);
  EXPECT_EQ(s.tired, 0);
}

// ---- statistics ----------------------------------------------------------------------------

TEST(dim, calc_stats_rounds_rates_up_per_millisecond) {
  Stats st;
  // 64 events, 1000 packets, 1500000 bytes in 3 ms = 3000 us.
  ASSERT_TRUE(dim_calc_stats(sample_at(0, 0, 0, 0), sample_at(3000, 64, 1000, 1500000), st));
  EXPECT_EQ(st.ppms, 334);  // ceil(1000000 / 3000)
  EXPECT_EQ(st.bpms, 500000);
  EXPECT_EQ(st.epms, 22);  // ceil(64000 / 3000)
}

TEST(dim, calc_stats_truncates_elapsed_time_to_whole_microseconds) {
  Stats st;
  // 1999 ns is one microsecond for ktime_us_delta.
  ASSERT_TRUE(
      dim_calc_stats(make_sample(at_ns(0), 0, 0, 0), make_sample(at_ns(1999), 64, 1, 1), st));
  EXPECT_EQ(st.epms, 64000);
  EXPECT_EQ(st.ppms, 1000);
}

TEST(dim, sample_with_zero_elapsed_microseconds_is_not_reliable) {
  Stats st = bytes_per_ms(77);
  EXPECT_FALSE(dim_calc_stats(make_sample(at_ns(5000), 0, 0, 0),
                              make_sample(at_ns(5999), 64, 10, 1000), st));
  EXPECT_EQ(st.bpms, 77) << "stats must be left alone";
}

TEST(dim, packet_counter_wraps_at_32_bits) {
  Stats st;
  const Sample start = make_sample(at_ns(0), 0, 0xFFFFFF00ULL, 0);
  const Sample end = make_sample(at_ns(1000 * 1000), 64, 0x100000100ULL, 0);  // 0x200 later
  ASSERT_TRUE(dim_calc_stats(start, end, st));
  EXPECT_EQ(st.ppms, 0x200);
}

TEST(dim, byte_counter_wraps_at_32_bits) {
  Stats st;
  const Sample start = make_sample(at_ns(0), 0, 0, 0xFFFFF000ULL);
  const Sample end = make_sample(at_ns(1000 * 1000), 64, 0, 0x1000ULL);  // 0x2000 later
  ASSERT_TRUE(dim_calc_stats(start, end, st));
  EXPECT_EQ(st.bpms, 0x2000);
}

TEST(dim, event_counter_wraps_at_16_bits) {
  // A window opened at event 65500 closes 64 events later at event 28 (65564 mod 65536).
  State s{};
  net_dim(s, sample_at(0, 65500, 0, 0), at_ns(0));
  ASSERT_EQ(s.state, MeasureState::measure_in_progress);
  EXPECT_FALSE(net_dim(s, sample_at(100, 65563 % 65536, 10, 10000), at_ns(100'000)));
  EXPECT_EQ(s.start_sample.event_ctr, 65500) << "63 events is not a full window";
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top) << "no decision yet";
  EXPECT_TRUE(net_dim(s, sample_at(200, 65564 % 65536, 20, 20000), at_ns(200'000)))
      << "64 events across the wrap close the window; traffic after a zero reference moves on";
  EXPECT_EQ(s.prev_stats.ppms, 100);  // 20 packets in 200 us
}

TEST(dim, driver_counters_wider_than_the_kernels_are_truncated) {
  const Sample s = make_sample(at_ns(0), 0x12345, 0x1'0000'0007ULL, 0x2'0000'0009ULL);
  EXPECT_EQ(s.event_ctr, 0x2345);
  EXPECT_EQ(s.pkt_ctr, 7U);
  EXPECT_EQ(s.byte_ctr, 9U);
}

TEST(dim, huge_rates_overflow_int_as_in_the_kernel) {
  Stats st;
  // 4e9 bytes in 1 us: 4e12 bytes/ms does not fit an int; the kernel keeps the low 32 bits.
  ASSERT_TRUE(dim_calc_stats(make_sample(at_ns(0), 0, 0, 0),
                             make_sample(at_ns(1000), 64, 0, 4'000'000'000ULL), st));
  EXPECT_EQ(st.bpms, static_cast<std::int32_t>(4'000'000'000'000LL & 0xFFFFFFFF));
}

// ---- comparison ----------------------------------------------------------------------------

TEST(dim, ten_percent_is_not_significant_but_eleven_is) {
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(110), bytes_per_ms(100)), StatsCompare::same);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(111), bytes_per_ms(100)), StatsCompare::better);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(90), bytes_per_ms(100)), StatsCompare::same);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(89), bytes_per_ms(100)), StatsCompare::worse);
}

TEST(dim, zero_reference_bytes_mean_any_traffic_is_better) {
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1), bytes_per_ms(0)), StatsCompare::better);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(0), bytes_per_ms(0)), StatsCompare::same);
}

TEST(dim, packets_decide_when_bytes_are_the_same) {
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1000, 200), bytes_per_ms(1000, 100)),
            StatsCompare::better);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1000, 50), bytes_per_ms(1000, 100)),
            StatsCompare::worse);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1000, 1), bytes_per_ms(1000, 0)),
            StatsCompare::better);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1000, 0), bytes_per_ms(1000, 0)),
            StatsCompare::same);
}

TEST(dim, fewer_events_for_the_same_traffic_is_better) {
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1000, 100, 10), bytes_per_ms(1000, 100, 20)),
            StatsCompare::better);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1000, 100, 40), bytes_per_ms(1000, 100, 20)),
            StatsCompare::worse);
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(1000, 100, 5), bytes_per_ms(1000, 100, 0)),
            StatsCompare::same)
      << "a zero event-rate reference is never compared";
}

TEST(dim, bytes_are_compared_before_packets) {
  // Bytes much better, packets much worse: bytes win.
  EXPECT_EQ(net_dim_stats_compare(bytes_per_ms(2000, 10), bytes_per_ms(1000, 100)),
            StatsCompare::better);
}

// ---- steps, turns and parking --------------------------------------------------------------

TEST(dim, step_moves_right_and_counts) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.profile_ix = 2;
  EXPECT_EQ(net_dim_step(s), StepResult::stepped);
  EXPECT_EQ(s.profile_ix, 3);
  EXPECT_EQ(s.steps_right, 1);
  EXPECT_EQ(s.tired, 1);
}

TEST(dim, step_moves_left_and_counts) {
  State s{};
  s.tune_state = TuneState::going_left;
  s.profile_ix = 2;
  EXPECT_EQ(net_dim_step(s), StepResult::stepped);
  EXPECT_EQ(s.profile_ix, 1);
  EXPECT_EQ(s.steps_left, 1);
  EXPECT_EQ(s.tired, 1);
}

TEST(dim, step_is_on_edge_at_the_right_end) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.profile_ix = kNumProfiles - 1;
  EXPECT_EQ(net_dim_step(s), StepResult::on_edge);
  EXPECT_EQ(s.profile_ix, kNumProfiles - 1);
  EXPECT_EQ(s.tired, 0) << "an edge is not a step";
}

TEST(dim, step_is_on_edge_at_the_left_end) {
  State s{};
  s.tune_state = TuneState::going_left;
  s.profile_ix = 0;
  EXPECT_EQ(net_dim_step(s), StepResult::on_edge);
  EXPECT_EQ(s.profile_ix, 0);
}

TEST(dim, step_is_too_tired_after_ten_steps) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.tired = kTiredLimit;
  EXPECT_EQ(net_dim_step(s), StepResult::too_tired);
  s.tired = kTiredLimit - 1;
  EXPECT_EQ(net_dim_step(s), StepResult::stepped);
}

TEST(dim, turn_reverses_direction_and_clears_the_new_directions_steps) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.steps_left = 4;
  s.steps_right = 3;
  dim_turn(s);
  EXPECT_EQ(s.tune_state, TuneState::going_left);
  EXPECT_EQ(s.steps_left, 0);
  EXPECT_EQ(s.steps_right, 3);
  dim_turn(s);
  EXPECT_EQ(s.tune_state, TuneState::going_right);
  EXPECT_EQ(s.steps_right, 0);
  s.tune_state = TuneState::parking_tired;
  dim_turn(s);
  EXPECT_EQ(s.tune_state, TuneState::parking_tired) << "parked states do not turn";
}

TEST(dim, on_top_after_one_step_back_from_a_longer_run) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.steps_left = 2;
  s.steps_right = 1;
  EXPECT_TRUE(dim_on_top(s));
  s.steps_left = 1;
  EXPECT_FALSE(dim_on_top(s));
  s.tune_state = TuneState::going_left;
  s.steps_right = 2;
  s.steps_left = 1;
  EXPECT_TRUE(dim_on_top(s));
  s.steps_left = 2;
  EXPECT_FALSE(dim_on_top(s));
}

TEST(dim, parking_on_top_clears_steps_and_tiredness) {
  State s{};
  s.tune_state = TuneState::going_left;
  s.steps_left = 2;
  s.steps_right = 3;
  s.tired = 7;
  dim_park_on_top(s);
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top);
  EXPECT_EQ(s.steps_left + s.steps_right + s.tired, 0);
}

TEST(dim, parking_tired_keeps_the_tired_count) {
  State s{};
  s.tune_state = TuneState::going_left;
  s.steps_left = 2;
  s.tired = kTiredLimit;
  dim_park_tired(s);
  EXPECT_EQ(s.tune_state, TuneState::parking_tired);
  EXPECT_EQ(s.steps_left, 0);
  EXPECT_EQ(s.tired, kTiredLimit);
}

TEST(dim, leaving_parking_goes_right_from_profile_zero_and_left_otherwise) {
  State s{};
  net_dim_exit_parking(s);
  EXPECT_EQ(s.tune_state, TuneState::going_right);
  EXPECT_EQ(s.profile_ix, 1);
  State t{};
  t.profile_ix = 3;
  net_dim_exit_parking(t);
  EXPECT_EQ(t.tune_state, TuneState::going_left);
  EXPECT_EQ(t.profile_ix, 2);
}

// ---- decisions: every tune-state transition ------------------------------------------------

TEST(dim, parked_on_top_stays_while_traffic_is_the_same) {
  State s{};
  s.profile_ix = 2;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_FALSE(net_dim_decision(bytes_per_ms(1050), s));
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top);
  EXPECT_EQ(s.prev_stats.bpms, 1000) << "the reference stays while parked on top";
}

TEST(dim, parked_on_top_leaves_when_traffic_changes) {
  State s{};
  s.profile_ix = 2;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_TRUE(net_dim_decision(bytes_per_ms(2000), s));
  EXPECT_EQ(s.tune_state, TuneState::going_left);
  EXPECT_EQ(s.profile_ix, 1);
  EXPECT_EQ(s.prev_stats.bpms, 2000);
}

TEST(dim, parked_tired_counts_down_then_leaves) {
  State s{};
  s.tune_state = TuneState::parking_tired;
  s.profile_ix = 0;
  s.tired = 2;
  EXPECT_FALSE(net_dim_decision(bytes_per_ms(1000), s));
  EXPECT_EQ(s.tune_state, TuneState::parking_tired);
  EXPECT_EQ(s.tired, 1);
  EXPECT_EQ(s.prev_stats.bpms, 1000) << "tired parking still records the window";
  EXPECT_TRUE(net_dim_decision(bytes_per_ms(1000), s));
  EXPECT_EQ(s.tune_state, TuneState::going_right);
  EXPECT_EQ(s.profile_ix, 1);
  EXPECT_EQ(s.tired, 1) << "the exit step counts from zero";
}

TEST(dim, going_right_keeps_going_while_better) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.profile_ix = 1;
  s.steps_right = 1;
  s.tired = 1;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_TRUE(net_dim_decision(bytes_per_ms(1200), s));
  EXPECT_EQ(s.tune_state, TuneState::going_right);
  EXPECT_EQ(s.profile_ix, 2);
  EXPECT_EQ(s.steps_right, 2);
  EXPECT_EQ(s.tired, 2);
}

TEST(dim, going_right_turns_left_when_not_better) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.profile_ix = 1;
  s.steps_right = 1;
  s.tired = 1;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_TRUE(net_dim_decision(bytes_per_ms(1000), s));
  EXPECT_EQ(s.tune_state, TuneState::going_left);
  EXPECT_EQ(s.profile_ix, 0);
  EXPECT_EQ(s.steps_left, 1);
}

TEST(dim, going_left_turns_right_when_worse) {
  State s{};
  s.tune_state = TuneState::going_left;
  s.profile_ix = 3;
  s.steps_left = 1;
  s.tired = 1;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_TRUE(net_dim_decision(bytes_per_ms(500), s));
  EXPECT_EQ(s.tune_state, TuneState::going_right);
  EXPECT_EQ(s.profile_ix, 4);
}

TEST(dim, one_step_back_after_a_longer_run_parks_on_top) {
  // Went left twice, turned, stepped right once and that was better: this is the top.
  State s{};
  s.tune_state = TuneState::going_right;
  s.profile_ix = 2;
  s.steps_left = 2;
  s.steps_right = 1;
  s.tired = 3;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_FALSE(net_dim_decision(bytes_per_ms(1200), s));
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top);
  EXPECT_EQ(s.profile_ix, 2);
  EXPECT_EQ(s.tired, 0);
  EXPECT_EQ(s.prev_stats.bpms, 1200) << "the window that reached the top becomes the reference";
}

TEST(dim, a_turn_after_single_steps_is_not_the_top) {
  // Went right twice, then left once, now worse: turn right again and step (not on top,
  // because steps_right was cleared by the turn).
  State s{};
  s.tune_state = TuneState::going_left;
  s.profile_ix = 2;
  s.steps_right = 2;
  s.steps_left = 1;
  s.tired = 3;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_TRUE(net_dim_decision(bytes_per_ms(1000), s));
  EXPECT_EQ(s.tune_state, TuneState::going_right);
  EXPECT_EQ(s.profile_ix, 3);
  EXPECT_EQ(s.steps_right, 1);
  EXPECT_EQ(s.tired, 4);
}

TEST(dim, hitting_the_right_edge_parks_on_top) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.profile_ix = kNumProfiles - 1;
  s.steps_right = 1;
  s.tired = 4;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_FALSE(net_dim_decision(bytes_per_ms(2000), s));
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top);
  EXPECT_EQ(s.profile_ix, kNumProfiles - 1);
}

TEST(dim, hitting_the_left_edge_parks_on_top) {
  State s{};
  s.tune_state = TuneState::going_left;
  s.profile_ix = 0;
  s.steps_left = 1;
  s.tired = 4;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_FALSE(net_dim_decision(bytes_per_ms(2000), s));
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top);
  EXPECT_EQ(s.profile_ix, 0);
}

TEST(dim, too_many_steps_park_tired) {
  State s{};
  s.tune_state = TuneState::going_right;
  s.profile_ix = 1;
  s.steps_right = 1;
  s.tired = kTiredLimit;
  s.prev_stats = bytes_per_ms(1000);
  EXPECT_FALSE(net_dim_decision(bytes_per_ms(2000), s));
  EXPECT_EQ(s.tune_state, TuneState::parking_tired);
  EXPECT_EQ(s.tired, kTiredLimit);
  EXPECT_EQ(s.profile_ix, 1);
}

TEST(dim, the_tired_counter_runs_ten_windows_before_another_search) {
  State s{};
  s.tune_state = TuneState::parking_tired;
  s.tired = kTiredLimit;
  s.profile_ix = 4;
  int windows = 0;
  while (s.tune_state == TuneState::parking_tired) {
    net_dim_decision(bytes_per_ms(1000), s);
    ++windows;
  }
  EXPECT_EQ(windows, kTiredLimit);
  EXPECT_EQ(s.tune_state, TuneState::going_left);
  EXPECT_EQ(s.profile_ix, 3);
}

// ---- the entry point and the apply handshake -----------------------------------------------

TEST(dim, first_sample_only_opens_a_window) {
  State s{};
  EXPECT_FALSE(net_dim(s, sample_at(10, 5, 100, 6400), at_ns(10'500)));
  EXPECT_EQ(s.state, MeasureState::measure_in_progress);
  EXPECT_EQ(s.start_sample.event_ctr, 5);
  EXPECT_EQ(s.start_sample.pkt_ctr, 100U);
  EXPECT_EQ(s.start_sample.time, at_ns(10'500)) << "the window is stamped with now";
}

TEST(dim, zero_time_window_is_skipped_and_kept_open) {
  State s{};
  net_dim(s, sample_at(100, 0, 0, 0), at_ns(100'000));
  EXPECT_FALSE(net_dim(s, sample_at(100, 64, 100, 100000), at_ns(100'000)));
  EXPECT_EQ(s.state, MeasureState::measure_in_progress);
  EXPECT_EQ(s.start_sample.event_ctr, 0) << "the window stays open";
  EXPECT_EQ(s.tune_state, TuneState::parking_on_top);
}

TEST(dim, new_profile_waits_for_acknowledgement) {
  NetDim d(default_profiles(Direction::rx, CqPeriodMode::start_from_eqe));
  d.step(sample_at(0, 0, 0, 0), at_ns(0));
  const Decision first = d.step(sample_at(1000, 64, 1000, 64000), at_ns(1'000'000));
  ASSERT_TRUE(first.apply) << "traffic after a zero reference is better: leave parking";
  EXPECT_EQ(first.profile_ix, 1);
  EXPECT_EQ(first.profile, (Profile{8, 256, 0}));
  EXPECT_EQ(d.state().state, MeasureState::apply_new_profile);

  // Until acknowledged, samples are ignored: no new window, no decision.
  const Decision ignored = d.step(sample_at(5000, 1000, 90000, 900000), at_ns(5'000'000));
  EXPECT_FALSE(ignored.apply);
  EXPECT_EQ(d.state().state, MeasureState::apply_new_profile);
  EXPECT_EQ(d.state().start_sample.event_ctr, 0);

  d.acknowledge();
  EXPECT_EQ(d.state().state, MeasureState::start_measure);
  EXPECT_FALSE(d.step(sample_at(6000, 1064, 91000, 964000), at_ns(6'000'000)).apply);
  EXPECT_EQ(d.state().start_sample.event_ctr, 1064) << "acknowledgement opens a new window";
}

TEST(dim, a_decision_without_a_change_opens_the_next_window_at_once) {
  State s{};
  s.prev_stats = bytes_per_ms(64000, 1000, 64);  // the same as the window below
  net_dim(s, sample_at(0, 0, 0, 0), at_ns(0));
  EXPECT_FALSE(net_dim(s, sample_at(1000, 64, 1000, 64000), at_ns(1'000'000)));
  EXPECT_EQ(s.state, MeasureState::measure_in_progress);
  EXPECT_EQ(s.start_sample.event_ctr, 64);
  EXPECT_EQ(s.start_sample.time, at_ns(1'000'000));
}

TEST(dim, traffic_that_ignores_the_profile_makes_it_probe_then_rest_tired) {
  // Identical windows compare "same", and "same" turns a search around: net_dim walks between
  // profiles 0 and 1 until ten steps make it tired, rests ten windows, and starts again. This is
  // the kernel's behaviour whenever moderation does not change the measured rates.
  NetDim d(default_profiles(Direction::rx, CqPeriodMode::start_from_eqe));
  std::uint64_t events = 0;
  std::uint64_t packets = 0;
  int changes = 0;
  int tired_windows = 0;
  for (int w = 0; w < 40; ++w) {
    for (int i = 0; i < 64; ++i) {
      events += 1;
      packets += 8;
      const Instant t = at_ns((w * 64 + i + 1) * 20'000LL);
      const Decision dec = d.step(make_sample(t, events, packets, packets * 1500), t);
      EXPECT_LE(dec.profile_ix, 1);
      if (dec.apply) {
        ++changes;
        d.acknowledge();
      }
    }
    tired_windows += d.state().tune_state == TuneState::parking_tired ? 1 : 0;
  }
  EXPECT_GE(tired_windows, 9);
  EXPECT_GE(changes, 10);
  EXPECT_LT(changes, 40) << "resting tired must cost windows without changes";
}

// ---- user profiles (ethtool rx-profile / tx-profile) ---------------------------------------

TEST(dim, user_profile_list_replaces_every_field) {
  const ProfileTable& base = default_profiles(Direction::rx, CqPeriodMode::start_from_eqe);
  auto table = parse_profile_list("2,32,0_4,64,0_16,128,0_64,256,0_512,256,0", base, "rx-profile");
  ASSERT_TRUE(table.ok()) << table.error().what();
  EXPECT_EQ((*table)[0], (Profile{2, 32, 0}));
  EXPECT_EQ((*table)[4], (Profile{512, 256, 0}));
}

TEST(dim, user_profile_n_keeps_the_current_value) {
  const ProfileTable& base = default_profiles(Direction::rx, CqPeriodMode::start_from_eqe);
  auto table = parse_profile_list("n,16,n_n,n,n_100,n,n_n,n,n_n,n,7", base, "rx-profile");
  ASSERT_TRUE(table.ok()) << table.error().what();
  EXPECT_EQ((*table)[0], (Profile{1, 16, 0}));
  EXPECT_EQ((*table)[1], base[1]);
  EXPECT_EQ((*table)[2], (Profile{100, 256, 0}));
  EXPECT_EQ((*table)[4], (Profile{256, 256, 7}));
}

TEST(dim, user_profile_list_rejects_wrong_counts_and_values) {
  const ProfileTable& base = default_profiles(Direction::tx, CqPeriodMode::start_from_cqe);
  const char* bad[] = {"1_2_3_4_5_6",  "1,2,3,4_1_1_1_1", "x_1_1_1_1", "70000_1_1_1_1",
                       "1,,2_1_1_1_1", "-1_1_1_1_1",      "1__2",      ""};
  for (const char* text : bad) {
    auto table = parse_profile_list(text, base, "tx-profile");
    ASSERT_FALSE(table.ok()) << text;
    EXPECT_EQ(table.error().key, "tx-profile");
    EXPECT_NE(table.error().message.find("5 profiles"), std::string::npos) << text;
  }
}

TEST(dim, user_profile_list_shorter_than_five_changes_only_the_first_entries) {
  const ProfileTable& base = default_profiles(Direction::rx, CqPeriodMode::start_from_cqe);
  auto table = parse_profile_list("3,33_4,44,4", base, "rx-profile");
  ASSERT_TRUE(table.ok()) << table.error().what();
  EXPECT_EQ((*table)[0], (Profile{3, 33, 0}));
  EXPECT_EQ((*table)[1], (Profile{4, 44, 4}));
  EXPECT_EQ((*table)[2], base[2]);
  EXPECT_EQ((*table)[4], base[4]);
}

TEST(dim, user_profile_table_drives_the_decisions) {
  ProfileTable mine = {{{3, 30, 0}, {6, 60, 0}, {9, 90, 0}, {12, 120, 0}, {15, 150, 0}}};
  NetDim d(mine);
  d.step(sample_at(0, 0, 0, 0), at_ns(0));
  const Decision dec = d.step(sample_at(1000, 64, 100, 6400), at_ns(1'000'000));
  ASSERT_TRUE(dec.apply);
  EXPECT_EQ(dec.profile, (Profile{6, 60, 0}));
  EXPECT_EQ(d.profile(), (Profile{6, 60, 0}));
}

}  // namespace
}  // namespace irqmod::dim
