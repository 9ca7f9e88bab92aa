// The Rx moderator in front of a queue vector, built from a scenario: ethtool coalescing, when
// the device must see the next frame, LLI's ring trigger, DIM reprogramming the pair, and
// catching up with a deadline that passed between events.
#include "sim/nic/moderator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <tuple>

#include "irqmod/napi/vector.hpp"
#include "irqmod/policy/coalesce.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/policy_config.hpp"

namespace irqmod::sim {
namespace {

Instant at_us(std::int64_t n) {
  return Instant{microseconds(n)};
}

Scenario with_moderation(Moderation moderation, std::uint32_t rx_usecs = 50,
                         std::uint32_t rx_frames = 0) {
  Scenario s = default_scenario();
  s.nic.moderation = moderation;
  s.nic.rx_usecs = rx_usecs;
  s.nic.rx_frames = rx_frames;
  return s;
}

// A moderator and the vector it fronts, configured from one scenario as the builder does.
struct Rx {
  explicit Rx(const Scenario& s) : moderator(rx_moderator_config(s)), vector(vector_config(s)) {}
  Arm frame(Instant t, std::uint32_t free_descriptors = 500) {
    return moderator.on_writeback(vector, t, free_descriptors, 64);
  }

  Moderator moderator;
  napi::Vector vector;
};

TEST(moderator, coalesce_arms_a_deadline_rx_usecs_after_the_first_frame) {
  Rx rx(with_moderation(Moderation::coalesce, 50, 0));
  EXPECT_EQ(rx.moderator.coalescing_usecs(), std::optional<std::uint32_t>{50});
  for (const std::int64_t t : {10, 20, 30, 59}) {
    const Arm arm = rx.frame(at_us(t));
    EXPECT_EQ(arm.deadline, std::optional<Instant>{at_us(60)}) << t << " us";
    EXPECT_EQ(arm.vector_due, std::nullopt) << t << " us";
  }
  EXPECT_EQ(rx.moderator.recheck(rx.vector, at_us(60) - nanoseconds(1)).vector_due, std::nullopt);
  const Arm at_deadline = rx.moderator.recheck(rx.vector, at_us(60));
  EXPECT_EQ(at_deadline.vector_due, std::optional<Instant>{at_us(60)});
  EXPECT_EQ(at_deadline.deadline, std::nullopt);
}

TEST(moderator, cqe_mode_rx_restarts_the_deadline_at_every_frame) {
  Scenario s = with_moderation(Moderation::coalesce, 50, 0);
  s.nic.cqe_mode_rx = true;
  Rx rx(s);
  for (const std::int64_t t : {10, 20, 30, 59}) {
    const Arm arm = rx.frame(at_us(t));
    EXPECT_EQ(arm.deadline, std::optional<Instant>{at_us(t + 50)}) << t << " us";
  }
  // The first frame's deadline passes with nothing due; the last frame's is the one to arm.
  const Arm early = rx.moderator.recheck(rx.vector, at_us(60));
  EXPECT_EQ(early.vector_due, std::nullopt);
  EXPECT_EQ(early.deadline, std::optional<Instant>{at_us(109)});
  EXPECT_EQ(rx.moderator.recheck(rx.vector, at_us(109)).vector_due,
            std::optional<Instant>{at_us(109)});
}

// mlx5e_handle_rx_dim: a CQ that restarts its timer per completion takes the CQE-based tables.
TEST(moderator, dim_in_cqe_mode_starts_from_the_cqe_table_and_restarts_per_frame) {
  Scenario s = with_moderation(Moderation::dim);
  s.nic.cqe_mode_rx = true;
  Rx rx(s);
  const dim::ProfileTable& cqe =
      dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_cqe);
  ASSERT_NE(cqe[0].usec,
            dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_eqe)[0].usec);
  EXPECT_EQ(rx.moderator.coalescing_usecs(), std::optional<std::uint32_t>{cqe[0].usec});
  for (const std::int64_t t : {10, 11}) {
    EXPECT_EQ(rx.frame(at_us(t)).deadline, std::optional<Instant>{at_us(t + cqe[0].usec)});
  }
}

TEST(moderator, coalesce_makes_the_cause_due_at_rx_frames) {
  Rx rx(with_moderation(Moderation::coalesce, 50, 4));
  for (const std::int64_t t : {10, 20, 30}) {
    const Arm arm = rx.frame(at_us(t));
    EXPECT_EQ(arm.vector_due, std::nullopt) << t << " us";
    EXPECT_EQ(arm.deadline, std::optional<Instant>{at_us(60)}) << t << " us";
  }
  const Arm fourth = rx.frame(at_us(40));
  EXPECT_EQ(fourth.vector_due, std::optional<Instant>{at_us(40)});
  EXPECT_EQ(fourth.deadline, std::nullopt);
  EXPECT_TRUE(rx.vector.queue_pending());
}

TEST(moderator, coalesce_starts_the_timer_for_frames_during_servicing_and_fires_on_re_enable) {
  Rx rx(with_moderation(Moderation::coalesce, 50, 0));
  rx.frame(at_us(10));
  ASSERT_TRUE(rx.moderator.recheck(rx.vector, at_us(60)).vector_due);
  ASSERT_TRUE(rx.vector.fire(at_us(60)));
  rx.moderator.on_interrupt(at_us(60));
  const Arm during = rx.frame(at_us(70));  // its timer starts while the vector is masked
  EXPECT_EQ(during.vector_due, std::nullopt);
  EXPECT_EQ(during.deadline, std::optional<Instant>{at_us(120)});
  // The driver re-enables the vector, then the coalescer rechecks: the deadline has passed.
  EXPECT_EQ(rx.vector.enable(at_us(130), false), std::nullopt);
  const Arm enabled = rx.moderator.on_enabled(rx.vector, at_us(130));
  EXPECT_EQ(enabled.vector_due, std::optional<Instant>{at_us(130)});
  EXPECT_EQ(enabled.deadline, std::nullopt);
}

TEST(moderator, wants_the_next_frame_unless_a_usecs_only_coalescer_has_one_pending) {
  Rx usecs_only(with_moderation(Moderation::coalesce, 50, 0));
  EXPECT_TRUE(usecs_only.moderator.wants_next_frame(usecs_only.vector));
  usecs_only.frame(at_us(10));
  EXPECT_FALSE(usecs_only.moderator.wants_next_frame(usecs_only.vector));

  Rx counting(with_moderation(Moderation::coalesce, 50, 8));
  counting.frame(at_us(10));
  EXPECT_TRUE(counting.moderator.wants_next_frame(counting.vector));
}

TEST(moderator, does_not_want_the_next_frame_while_a_cause_waits_or_the_vector_is_masked) {
  Rx itr(with_moderation(Moderation::itr));
  EXPECT_TRUE(itr.moderator.wants_next_frame(itr.vector));
  ASSERT_TRUE(itr.frame(at_us(0)).vector_due);
  EXPECT_FALSE(itr.moderator.wants_next_frame(itr.vector));  // a queue cause is pending
  ASSERT_TRUE(itr.vector.fire(at_us(0)));
  EXPECT_FALSE(itr.moderator.wants_next_frame(itr.vector));  // masked
}

TEST(moderator, lli_wants_every_frame_even_with_a_cause_pending) {
  Rx lli(with_moderation(Moderation::lli));
  lli.frame(at_us(0));
  ASSERT_TRUE(lli.vector.queue_pending());
  EXPECT_TRUE(lli.moderator.wants_next_frame(lli.vector));
}

TEST(moderator, lli_fires_at_once_when_free_descriptors_fall_below_the_threshold) {
  const Scenario s = with_moderation(Moderation::lli);
  ASSERT_EQ(s.nic.lli_ring_threshold, 64U);
  Rx lli(s);
  const Duration itr = vector_config(s).itr_interval;
  ASSERT_GT(itr, microseconds(50));
  // An interrupt at 0 starts the ITR gap: a plain cause waits for it.
  ASSERT_TRUE(lli.frame(at_us(0)).vector_due);
  ASSERT_TRUE(lli.vector.fire(at_us(0)));
  lli.vector.enable(at_us(1), false);
  EXPECT_EQ(lli.frame(at_us(10), 500).vector_due, std::optional<Instant>{Instant{itr}});
  EXPECT_EQ(lli.frame(at_us(20), 64).vector_due, std::optional<Instant>{Instant{itr}});
  EXPECT_EQ(lli.frame(at_us(30), 63).vector_due, std::optional<Instant>{at_us(30)});
}

TEST(moderator, dim_starts_from_its_first_profile_and_reprograms_after_a_measured_window) {
  Rx rx(with_moderation(Moderation::dim));
  const dim::ProfileTable& table =
      dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_eqe);
  EXPECT_EQ(rx.moderator.coalescing_usecs(), std::optional<std::uint32_t>{table[0].usec});
  std::optional<std::uint32_t> usecs;
  rx.moderator.on_completed_poll(rx.vector, at_us(0), DimCounters{0, 0, 0}, usecs);
  EXPECT_EQ(usecs, std::nullopt);  // the window opens
  rx.moderator.on_completed_poll(rx.vector, at_us(500), DimCounters{63, 6300, 6'300'000}, usecs);
  EXPECT_EQ(usecs, std::nullopt);  // fewer than 64 events
  rx.moderator.on_completed_poll(rx.vector, at_us(1000), DimCounters{64, 6400, 6'400'000}, usecs);
  // Traffic where the last window had none: better, so DIM leaves parking and steps right.
  EXPECT_EQ(usecs, std::optional<std::uint32_t>{table[1].usec});
  EXPECT_EQ(rx.moderator.coalescing_usecs(), std::optional<std::uint32_t>{table[1].usec});
}

TEST(moderator, dim_applies_its_new_pair_to_frames_already_pending) {
  Rx rx(with_moderation(Moderation::dim));
  std::optional<std::uint32_t> usecs;
  rx.moderator.on_completed_poll(rx.vector, at_us(0), DimCounters{0, 0, 0}, usecs);
  const Arm first = rx.frame(at_us(995));
  ASSERT_EQ(first.deadline, std::optional<Instant>{at_us(996)});  // profile 0: 1 us
  const Arm arm = rx.moderator.on_completed_poll(rx.vector, at_us(995),
                                                 DimCounters{64, 6400, 6'400'000}, usecs);
  ASSERT_TRUE(usecs);
  EXPECT_EQ(arm.deadline, std::optional<Instant>{at_us(995 + *usecs)});
}

// enetc (seed 001's patch v1): enetc_rx_dim_work stores moder.usec in v->rx_ictt and
// enetc_msix writes it to RBICR1 at the vector's next interrupt; the packet threshold stays.
TEST(moderator, dim_with_enetcs_glue_writes_the_new_usecs_at_the_next_interrupt) {
  Scenario s = with_moderation(Moderation::dim);
  s.nic.dim_driver = DimDriver::enetc;
  Rx rx(s);
  const dim::ProfileTable& table =
      dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_eqe);
  std::optional<std::uint32_t> usecs;
  rx.moderator.on_completed_poll(rx.vector, at_us(0), DimCounters{0, 0, 0}, usecs);
  ASSERT_EQ(rx.frame(at_us(995)).deadline, std::optional<Instant>{at_us(996)});  // 1 us
  const Arm arm = rx.moderator.on_completed_poll(rx.vector, at_us(995),
                                                 DimCounters{64, 6400, 6'400'000}, usecs);
  // Decided (net_dim stepped right) but not written: nothing applied, the pending frame keeps
  // its deadline, the pair in effect is profile 0's.
  EXPECT_EQ(usecs, std::nullopt);
  EXPECT_EQ(arm.deadline, std::nullopt);
  EXPECT_EQ(rx.moderator.dim_profile(), 1);
  EXPECT_EQ(rx.moderator.coalescing_usecs(), std::optional<std::uint32_t>{table[0].usec});
  // The interrupt (the old pair's deadline): enetc_msix writes it; once only.
  ASSERT_TRUE(rx.moderator.recheck(rx.vector, at_us(996)).vector_due);
  ASSERT_TRUE(rx.vector.fire(at_us(996)));
  EXPECT_EQ(rx.moderator.on_interrupt(at_us(996)), std::optional<std::uint32_t>{table[1].usec});
  EXPECT_EQ(rx.moderator.coalescing_usecs(), std::optional<std::uint32_t>{table[1].usec});
  EXPECT_EQ(rx.moderator.on_interrupt(at_us(1100)), std::nullopt);
}

TEST(moderator, dim_with_mlx5s_glue_has_nothing_to_write_at_the_interrupt) {
  Rx rx(with_moderation(Moderation::dim));
  std::optional<std::uint32_t> usecs;
  rx.moderator.on_completed_poll(rx.vector, at_us(0), DimCounters{0, 0, 0}, usecs);
  rx.moderator.on_completed_poll(rx.vector, at_us(995), DimCounters{64, 6400, 6'400'000}, usecs);
  ASSERT_TRUE(usecs);
  EXPECT_EQ(rx.moderator.on_interrupt(at_us(996)), std::nullopt);
}

// mlx5e_handle_rx_dim / _tx_dim: every completion, both directions, the CQ's interrupts.
TEST(dim_feed, mlx5_samples_both_directions_at_every_completion_counting_interrupts) {
  DimFeed feed(DimGlue::mlx5);
  for (const auto& [interrupts, rx, tx] :
       {std::tuple{1u, 0u, 0u}, std::tuple{3u, 5u, 0u}, std::tuple{4u, 5u, 2u}}) {
    const DimFeed::Samples s = feed.on_completed_poll(interrupts, rx, tx);
    EXPECT_EQ(s.events, interrupts);
    EXPECT_TRUE(s.rx);
    EXPECT_TRUE(s.tx);
  }
}

// enetc_net_dim: v->comp_cnt++ per completion is both directions' event count; Rx is sampled
// only after a completion's polls cleaned Rx frames (rx_napi_work), Tx only after Tx work.
TEST(dim_feed, enetc_counts_completions_and_samples_a_direction_only_after_its_work) {
  DimFeed feed(DimGlue::enetc);
  const DimFeed::Samples a = feed.on_completed_poll(7, 4, 0);  // Rx work only
  EXPECT_EQ(a.events, 1u);
  EXPECT_TRUE(a.rx);
  EXPECT_FALSE(a.tx);
  const DimFeed::Samples b = feed.on_completed_poll(9, 4, 1);  // Tx work only
  EXPECT_EQ(b.events, 2u);
  EXPECT_FALSE(b.rx);
  EXPECT_TRUE(b.tx);
  const DimFeed::Samples c = feed.on_completed_poll(9, 4, 1);  // no work (a second completion)
  EXPECT_EQ(c.events, 3u);
  EXPECT_FALSE(c.rx);
  EXPECT_FALSE(c.tx);
  const DimFeed::Samples d = feed.on_completed_poll(10, 9, 3);  // both
  EXPECT_EQ(d.events, 4u);
  EXPECT_TRUE(d.rx);
  EXPECT_TRUE(d.tx);
}

TEST(moderator, immediate_and_lli_have_no_coalescing_to_report_or_reprogram) {
  Rx itr(with_moderation(Moderation::itr));
  EXPECT_EQ(itr.moderator.coalescing_usecs(), std::nullopt);
  std::optional<std::uint32_t> usecs;
  const Arm arm =
      itr.moderator.on_completed_poll(itr.vector, at_us(1000), DimCounters{64, 6400, 1}, usecs);
  EXPECT_EQ(usecs, std::nullopt);
  EXPECT_EQ(arm.vector_due, std::nullopt);
  EXPECT_EQ(arm.deadline, std::nullopt);
  EXPECT_EQ(itr.moderator.sample_interval(), Duration::zero());
}

TEST(moderator, catch_up_raises_a_deadline_that_passed_once) {
  Rx rx(with_moderation(Moderation::coalesce, 50, 0));
  rx.frame(at_us(10));
  EXPECT_EQ(rx.moderator.catch_up(rx.vector, at_us(40)).vector_due, std::nullopt);  // not yet
  const Arm late = rx.moderator.catch_up(rx.vector, at_us(75));
  EXPECT_EQ(late.vector_due, std::optional<Instant>{at_us(60)});  // raised at the deadline
  EXPECT_EQ(rx.vector.due(), std::optional<Instant>{at_us(60)});
  const Arm again = rx.moderator.catch_up(rx.vector, at_us(80));
  EXPECT_EQ(again.vector_due, std::nullopt);
  EXPECT_EQ(again.deadline, std::nullopt);
  EXPECT_EQ(rx.vector.counters().causes, 1U);
}

TEST(moderator, catch_up_does_nothing_without_a_coalescer) {
  Rx itr(with_moderation(Moderation::itr));
  itr.frame(at_us(10));
  const Arm arm = itr.moderator.catch_up(itr.vector, at_us(1000));
  EXPECT_EQ(arm.vector_due, std::nullopt);
  EXPECT_EQ(arm.deadline, std::nullopt);
}

TEST(moderator, forgets_pending_frames_when_the_vector_drops_its_causes) {
  Rx rx(with_moderation(Moderation::coalesce, 50, 0));
  rx.frame(at_us(10));
  rx.vector.enter_writeback_only();
  EXPECT_TRUE(rx.moderator.on_causes_dropped(rx.vector));
  EXPECT_EQ(rx.moderator.recheck(rx.vector, at_us(100)).deadline, std::nullopt);
  // In write-back-only mode new frames start no timer either.
  const Arm arm = rx.frame(at_us(110));
  EXPECT_EQ(arm.deadline, std::nullopt);
  EXPECT_EQ(arm.vector_due, std::nullopt);
}

}  // namespace
}  // namespace irqmod::sim
