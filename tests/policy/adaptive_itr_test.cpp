// Unit tests for the i40e adaptive ITR: every rule of i40e_update_itr and i40e_update_enable_itr,
// the register word, the busy-poll exit fix on and off, the configuration edge, and two traffic
// shapes traced by hand through the kernel code.
#include "irqmod/policy/adaptive_itr.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace irqmod::adaptive_itr {
namespace {

constexpr std::uint64_t kJiffies = 1000;  // an arbitrary "now" for the free-function tests
constexpr std::uint16_t kDynamic50 = 50 | kItrDynamic;

// A vector as i40e_vsi_configure_msix leaves it with adaptive Rx and Tx at 50 us, updated last at
// kJiffies - 1 (so not stale at kJiffies).
QVector adaptive_vector() {
  QVector q;
  for (RingContainer* rc : {&q.rx, &q.tx}) {
    rc->itr_setting = kDynamic50;
    rc->next_update = kJiffies;
    rc->target_itr = 50;
    rc->current_itr = 50;
  }
  return q;
}

// Both containers static: update_itr leaves targets alone, so the write priority can be driven
// by setting targets and currents directly.
QVector static_vector(std::uint16_t rx_target, std::uint16_t rx_current, std::uint16_t tx_target,
                      std::uint16_t tx_current) {
  QVector q;
  q.rx = RingContainer{true, 50, kJiffies, 0, 0, rx_target, rx_current};
  q.tx = RingContainer{true, 50, kJiffies, 0, 0, tx_target, tx_current};
  return q;
}

void clean(RingContainer& rc, std::uint32_t packets, std::uint32_t bytes_each) {
  rc.total_packets = packets;
  rc.total_bytes = packets * bytes_each;
}

// ---- compile time --------------------------------------------------------------------------

static_assert(kAdaptiveMaxUsecs == 126);
static_assert(buildreg_itr(ItrIndex::rx, 50, false) == 0x321);
static_assert(time_after(1, 0) && !time_after(0, 0) && time_after(0, ~0ULL));

// ---- link speed divisor --------------------------------------------------------------------

TEST(adaptive_itr, divides_by_link_speed_as_i40e_itr_divisor) {
  EXPECT_EQ(itr_divisor(LinkSpeed::gb40), 2048U);
  EXPECT_EQ(itr_divisor(LinkSpeed::gb25), 1024U);
  EXPECT_EQ(itr_divisor(LinkSpeed::gb20), 1024U);
  EXPECT_EQ(itr_divisor(LinkSpeed::gb10), 512U);
  EXPECT_EQ(itr_divisor(LinkSpeed::gb5), 512U);
  EXPECT_EQ(itr_divisor(LinkSpeed::gb2_5), 512U);
  EXPECT_EQ(itr_divisor(LinkSpeed::unknown), 512U);
  EXPECT_EQ(itr_divisor(LinkSpeed::gb1), 64U);
  EXPECT_EQ(itr_divisor(LinkSpeed::mb100), 64U);
}

TEST(adaptive_itr, maps_ethtool_link_speeds_and_rejects_others) {
  EXPECT_EQ(*link_speed_from_mbps(40000), LinkSpeed::gb40);
  EXPECT_EQ(*link_speed_from_mbps(25000), LinkSpeed::gb25);
  EXPECT_EQ(*link_speed_from_mbps(100), LinkSpeed::mb100);
  const Expected<LinkSpeed> bad = link_speed_from_mbps(3000);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().key, "link-speed");
  EXPECT_NE(bad.error().message.find("40000"), std::string::npos);
}

// ---- size formula --------------------------------------------------------------------------

TEST(adaptive_itr, maps_wire_size_buckets_to_scaled_itr) {
  EXPECT_EQ(scaled_itr_for_size(0), 4096U);
  EXPECT_EQ(scaled_itr_for_size(60), 4096U);
  EXPECT_EQ(scaled_itr_for_size(61), 61U * 40 + 1696);
  EXPECT_EQ(scaled_itr_for_size(380), 16896U);
  EXPECT_EQ(scaled_itr_for_size(381), 17167U);
  EXPECT_EQ(scaled_itr_for_size(1084), 27712U);
  EXPECT_EQ(scaled_itr_for_size(1085), 27845U);
  EXPECT_EQ(scaled_itr_for_size(1980), 32320U);
  // The plateau sits slightly below the top of the last bucket, as in the kernel.
  EXPECT_EQ(scaled_itr_for_size(1981), 32256U);
  EXPECT_EQ(scaled_itr_for_size(9000), 32256U);
}

TEST(adaptive_itr, bulk_formula_divides_by_link_speed_and_caps_at_126_us) {
  // 300 packets of 1500 B: 1500 * 5 + 22420 = 29920, bulk (no halving).
  for (const auto& [speed, expected] :
       {std::pair{LinkSpeed::gb10, 118}, std::pair{LinkSpeed::gb40, 30},
        std::pair{LinkSpeed::gb25, 60}, std::pair{LinkSpeed::gb1, 126}}) {
    QVector q = adaptive_vector();
    q.link_speed = speed;
    clean(q.rx, 300, 1500);
    update_itr(q, Direction::rx, kJiffies);
    // 10G: ceil(29920 / 512) = 59 -> 118; 40G: 15 -> 30; 25G: 30 -> 60; 1G: 468 -> 936 -> cap.
    EXPECT_EQ(q.rx.target_itr, expected) << static_cast<int>(speed);
  }
}

TEST(adaptive_itr, latency_mode_halves_the_size_formula) {
  // Rx, 1 packet of 100 B, Tx in latency mode: 100 * 40 + 1696 = 5696, halved 2848,
  // ceil(2848 / 512) = 6 steps of 2 us = 12 us, latency flag kept.
  QVector q = adaptive_vector();
  q.tx.target_itr = kAdaptiveLatency | 126;
  clean(q.rx, 1, 100);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, kAdaptiveLatency | 12);
}

// ---- latency vs bulk -----------------------------------------------------------------------

TEST(adaptive_itr, rx_enters_latency_mode_for_few_small_packets_when_tx_is_latency_driven) {
  QVector q = adaptive_vector();
  q.tx.target_itr = kAdaptiveLatency | 126;
  clean(q.rx, 3, 1000);  // 3 packets, 3000 bytes
  update_itr(q, Direction::rx, kJiffies);
  // 1000 * 15 + 11452 = 26452, halved 13226, ceil(13226 / 512) = 26 -> 52 us.
  EXPECT_EQ(q.rx.target_itr, kAdaptiveLatency | 52);
}

TEST(adaptive_itr, tx_is_updated_before_rx_so_rx_sees_the_new_tx_mode) {
  QVector q = adaptive_vector();
  q.tx.target_itr = 126;            // bulk until now ...
  q.tx.next_update = kJiffies - 1;  // ... but stale: this interrupt resets it to latency
  clean(q.rx, 1, 100);
  update_enable_itr(q, kJiffies);
  EXPECT_EQ(q.tx.target_itr, kAdaptiveLatency | 126);
  EXPECT_EQ(q.rx.target_itr, kAdaptiveLatency | 12);  // the latency shortcut, not a 2 us step
}

TEST(adaptive_itr, rx_takes_a_bulk_step_when_tx_is_in_bulk_mode) {
  QVector q = adaptive_vector();
  q.tx.target_itr = 126;  // bulk
  clean(q.rx, 1, 100);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 52);  // 50 + 2, no flag
}

TEST(adaptive_itr, rx_takes_a_step_for_a_jumbo_frame_even_when_tx_is_latency_driven) {
  QVector q = adaptive_vector();
  q.tx.target_itr = kAdaptiveLatency | 126;
  clean(q.rx, 1, 9000);  // bytes < 9000 fails
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 52);
}

TEST(adaptive_itr, tx_switches_to_bulk_after_more_than_32_packets) {
  QVector q = adaptive_vector();
  q.tx.target_itr = kAdaptiveLatency | 20;
  clean(q.tx, 33, 1500);
  update_itr(q, Direction::tx, kJiffies);
  EXPECT_EQ(q.tx.target_itr, 22);  // flag cleared, then the < 56 step

  QVector keep = adaptive_vector();
  keep.tx.target_itr = kAdaptiveLatency | 20;
  clean(keep.tx, 32, 1500);  // 32 is not more than 32
  update_itr(keep, Direction::tx, kJiffies);
  EXPECT_EQ(keep.tx.target_itr, kAdaptiveLatency | 22);
}

TEST(adaptive_itr, tx_returns_to_latency_when_both_sides_sit_at_126_us) {
  QVector q = adaptive_vector();
  q.tx.target_itr = 126;  // bulk 126
  q.rx.target_itr = kAdaptiveLatency | 126;
  clean(q.tx, 3, 64);
  update_itr(q, Direction::tx, kJiffies);
  EXPECT_EQ(q.tx.target_itr, kAdaptiveLatency | 126);

  QVector other = adaptive_vector();
  other.tx.target_itr = 126;
  other.rx.target_itr = 118;  // Rx not at 126: Tx just steps (and stays capped)
  clean(other.tx, 3, 64);
  update_itr(other, Direction::tx, kJiffies);
  EXPECT_EQ(other.tx.target_itr, 126);
}

// ---- 2 us steps, caps and the packet-count zones -------------------------------------------

TEST(adaptive_itr, fewer_than_56_packets_raise_the_itr_by_2_us) {
  QVector q = adaptive_vector();
  q.rx.target_itr = 20;
  clean(q.rx, 55, 1500);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 22);
  clean(q.rx, 0, 0);  // no packets at all is a step too
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 24);
}

TEST(adaptive_itr, steps_stop_at_126_us_and_keep_the_mode_flag) {
  QVector q = adaptive_vector();
  q.rx.target_itr = 124;
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 126);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 126);
  q.rx.target_itr = kAdaptiveLatency | 126;
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, kAdaptiveLatency | 126);
  // A large static start value is pulled down to the cap by the first step.
  q.rx.target_itr = 1000;
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 126);
}

TEST(adaptive_itr, goldilocks_zone_keeps_the_smaller_current_itr) {
  QVector q = adaptive_vector();
  q.tx.current_itr = 40;
  q.rx.current_itr = 60;
  clean(q.rx, 56, 1500);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 40);
  clean(q.rx, 112, 1500);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 40);
}

TEST(adaptive_itr, minimum_of_current_itrs_counts_the_latency_flag_as_the_kernel_does) {
  QVector q = adaptive_vector();
  q.tx.current_itr = kAdaptiveLatency | 10;  // compares as 32778
  q.rx.current_itr = 40;
  clean(q.rx, 80, 1500);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 40);  // not 10
}

TEST(adaptive_itr, between_113_and_256_packets_halves_the_delay_down_to_2_us) {
  QVector q = adaptive_vector();
  q.tx.current_itr = 40;
  q.rx.current_itr = 60;
  clean(q.rx, 113, 1500);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 20);
  q.tx.current_itr = 2;
  clean(q.rx, 256, 1500);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, kAdaptiveMinUsecs);  // 2 / 2 = 1, masked to 0, raised to 2
}

TEST(adaptive_itr, more_than_256_packets_use_the_bulk_size_formula) {
  QVector q = adaptive_vector();
  q.tx.current_itr = 40;
  q.rx.current_itr = 60;
  clean(q.rx, 257, 64);
  update_itr(q, Direction::rx, kJiffies);
  // 64 B: 64 * 40 + 1696 = 4256, ceil(4256 / 512) = 9 -> 18 us, bulk.
  EXPECT_EQ(q.rx.target_itr, 18);
}

// ---- timing: next_update and stale counts --------------------------------------------------

TEST(adaptive_itr, an_update_clears_the_counts_and_expects_the_next_within_a_jiffy) {
  QVector q = adaptive_vector();
  clean(q.rx, 10, 100);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.total_packets, 0U);
  EXPECT_EQ(q.rx.total_bytes, 0U);
  EXPECT_EQ(q.rx.next_update, kJiffies + 1);
}

TEST(adaptive_itr, stale_counts_reset_rx_to_2_us_latency_and_tx_to_126_us_latency) {
  QVector q = adaptive_vector();
  q.rx.next_update = kJiffies - 1;
  q.tx.next_update = kJiffies - 1;
  clean(q.rx, 300, 1500);
  clean(q.tx, 300, 1500);
  update_itr(q, Direction::tx, kJiffies);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, kAdaptiveLatency | kAdaptiveMinUsecs);
  EXPECT_EQ(q.tx.target_itr, kAdaptiveLatency | kAdaptiveMaxUsecs);
  EXPECT_EQ(q.rx.total_packets, 0U);
}

TEST(adaptive_itr, next_update_allows_up_to_one_late_jiffy) {
  QVector on_time = adaptive_vector();  // next_update == kJiffies
  clean(on_time.rx, 10, 100);
  update_itr(on_time, Direction::rx, kJiffies);
  EXPECT_EQ(on_time.rx.target_itr, 52);  // measured

  QVector late = adaptive_vector();
  clean(late.rx, 10, 100);
  update_itr(late, Direction::rx, kJiffies + 1);
  EXPECT_EQ(late.rx.target_itr, kAdaptiveLatency | 2);  // stale
}

TEST(adaptive_itr, converts_time_to_jiffies_by_rounding_down) {
  EXPECT_EQ(to_jiffies(at_ns(0), milliseconds(1)), 0U);
  EXPECT_EQ(to_jiffies(at_ns(999'999), milliseconds(1)), 0U);
  EXPECT_EQ(to_jiffies(at_ns(1'000'000), milliseconds(1)), 1U);
  EXPECT_EQ(to_jiffies(at_ns(12'000'000), milliseconds(4)), 3U);
  EXPECT_EQ(to_jiffies(at_ns(-1), milliseconds(1)), std::numeric_limits<std::uint64_t>::max());
}

TEST(adaptive_itr, a_gap_of_two_jiffies_makes_the_policy_forget_its_counts) {
  Config config;
  config.adaptive_tx = false;
  AdaptiveItr a(config, at_ns(0));  // next_update = jiffy 1
  a.on_rx_cleaned(300 * 1500, 300);
  const Decision late = a.on_poll_complete(at_ns(2'000'000), true);  // jiffy 2 > 1
  EXPECT_EQ(late.write, ItrIndex::rx);
  EXPECT_EQ(late.target_itr, kAdaptiveLatency | 2);
}

// ---- countdown -------------------------------------------------------------------------------

TEST(adaptive_itr, countdown_keeps_the_target_and_drops_counts_for_three_interrupts) {
  Config config;
  config.adaptive_tx = false;  // Tx static at 50: only Rx moves
  AdaptiveItr a(config, at_ns(0));
  Instant t = at_ns(0);
  const auto interrupt = [&](std::uint32_t packets) {
    t += microseconds(100);
    a.on_rx_cleaned(packets * 1500, packets);
    return a.on_poll_complete(t, true);
  };
  const Decision first = interrupt(300);
  EXPECT_EQ(first.write, ItrIndex::rx);
  EXPECT_EQ(first.target_itr, 118);
  EXPECT_EQ(a.state().itr_countdown, kCountdownStart);
  for (int i = 0; i < 3; ++i) {
    const Decision d = interrupt(10);  // would be a 2 us step if measured
    EXPECT_EQ(d.write, ItrIndex::none) << i;
    EXPECT_EQ(a.state().rx.target_itr, 118) << i;
    EXPECT_EQ(a.state().rx.total_packets, 0U) << i;
    EXPECT_EQ(a.state().itr_countdown, 2 - i) << i;
  }
  const Decision measured = interrupt(10);
  EXPECT_EQ(measured.write, ItrIndex::rx);
  EXPECT_EQ(measured.target_itr, 120);
  EXPECT_EQ(a.state().itr_countdown, kCountdownStart);
}

// ---- write priority --------------------------------------------------------------------------

TEST(adaptive_itr, rx_reduction_is_written_first) {
  QVector q = static_vector(10, 50, 8, 50);  // both want to go down
  const Decision d = update_enable_itr(q, kJiffies);
  EXPECT_EQ(d.write, ItrIndex::rx);
  EXPECT_EQ(d.target_itr, 10);
  EXPECT_EQ(q.rx.current_itr, 10);
  EXPECT_EQ(q.tx.current_itr, 50);  // Tx waits for the next interrupt
  EXPECT_EQ(q.itr_countdown, kCountdownStart);
}

TEST(adaptive_itr, tx_reduction_comes_second) {
  QVector q = static_vector(80, 50, 10, 50);  // Rx up by 30, Tx down
  const Decision d = update_enable_itr(q, kJiffies);
  EXPECT_EQ(d.write, ItrIndex::tx);
  EXPECT_EQ(q.tx.current_itr, 10);
  EXPECT_EQ(q.rx.current_itr, 50);
}

TEST(adaptive_itr, a_larger_rx_increase_beats_a_tx_increase) {
  QVector q = static_vector(80, 50, 60, 50);  // Rx +30, Tx +10
  EXPECT_EQ(update_enable_itr(q, kJiffies).write, ItrIndex::rx);
}

TEST(adaptive_itr, a_larger_tx_increase_beats_an_rx_increase) {
  QVector q = static_vector(60, 50, 80, 50);  // Rx +10, Tx +30
  EXPECT_EQ(update_enable_itr(q, kJiffies).write, ItrIndex::tx);
}

TEST(adaptive_itr, equal_increases_go_to_rx) {
  QVector q = static_vector(60, 50, 60, 50);
  EXPECT_EQ(update_enable_itr(q, kJiffies).write, ItrIndex::rx);
}

TEST(adaptive_itr, one_write_per_interrupt_leaves_the_other_change_for_the_next) {
  QVector q = static_vector(60, 50, 80, 50);
  EXPECT_EQ(update_enable_itr(q, kJiffies).write, ItrIndex::tx);
  EXPECT_EQ(update_enable_itr(q, kJiffies).write, ItrIndex::rx);
  const Decision idle = update_enable_itr(q, kJiffies);
  EXPECT_EQ(idle.write, ItrIndex::none);
  EXPECT_EQ(idle.target_itr, 0);
  EXPECT_EQ(idle.interval, Duration::zero());
  EXPECT_EQ(idle.dyn_ctln, buildreg_itr(ItrIndex::none, 0, false));
  EXPECT_EQ(q.itr_countdown, kCountdownStart - 1);
}

TEST(adaptive_itr, the_latency_flag_takes_part_in_the_priority_comparison) {
  // Rx wants 2 us latency, Tx 126 us latency, both from 50 us bulk. As u16 values 0x8002 is not
  // below 50, and Tx's increase (0x807E - 50) beats Rx's (0x8002 - 50): Tx is written first.
  QVector q = static_vector(kAdaptiveLatency | 2, 50, kAdaptiveLatency | 126, 50);
  const Decision d = update_enable_itr(q, kJiffies);
  EXPECT_EQ(d.write, ItrIndex::tx);
  EXPECT_EQ(d.target_itr, kAdaptiveLatency | 126);
  EXPECT_EQ(d.interval, microseconds(126));
  EXPECT_EQ(d.interval_field, 63);
}

// ---- register word ---------------------------------------------------------------------------

TEST(adaptive_itr, builds_the_pfint_dyn_ctln_word_as_i40e_buildreg_itr) {
  // INTENA | ITR_INDX << 3 | (usecs >> 1) << 5.
  EXPECT_EQ(buildreg_itr(ItrIndex::rx, 50, false), 0x1U | (25U << 5));
  // The latency flag falls outside the 12-bit INTERVAL field.
  EXPECT_EQ(buildreg_itr(ItrIndex::tx, kAdaptiveLatency | 126, false),
            0x1U | (1U << 3) | (63U << 5));
  // No interval change: ITR_INDX = 3 (I40E_ITR_NONE).
  EXPECT_EQ(buildreg_itr(ItrIndex::none, 0, false), 0x19U);
  // Forced software interrupt: SWINT_TRIG | SW_ITR_INDX_ENA | SW_ITR_INDX = 2.
  EXPECT_EQ(buildreg_itr(ItrIndex::none, 0, true), 0x19U | 0x4U | (1U << 24) | (2U << 25));
}

// ---- busy-poll exit (seed 000) ---------------------------------------------------------------

TEST(adaptive_itr, a_refused_completion_writes_nothing_and_keeps_the_countdown) {
  QVector q = static_vector(50, 50, 50, 50);
  q.itr_countdown = 2;
  const Decision d = napi_poll_done(q, kJiffies, false, true);
  EXPECT_FALSE(d.enabled);
  EXPECT_EQ(d.dyn_ctln, 0U);
  EXPECT_EQ(q.itr_countdown, 2);
  EXPECT_TRUE(q.in_busy_poll);
}

TEST(adaptive_itr, busy_poll_exit_forces_one_software_interrupt_through_itr2) {
  AdaptiveItr a(Config{}, at_ns(0));
  EXPECT_FALSE(a.on_poll_complete(at_ns(10'000), false).enabled);  // busy poller owns it
  EXPECT_TRUE(a.state().in_busy_poll);
  const Decision exit = a.on_poll_complete(at_ns(20'000), true);
  EXPECT_TRUE(exit.enabled);
  EXPECT_TRUE(exit.force_swint);
  EXPECT_NE(exit.dyn_ctln & kDynCtlnSwintTrigMask, 0U);
  EXPECT_NE(exit.dyn_ctln & kDynCtlnSwItrIndxEnaMask, 0U);
  EXPECT_EQ((exit.dyn_ctln & kDynCtlnSwItrIndxMask) >> kDynCtlnSwItrIndxShift,
            static_cast<std::uint32_t>(ItrIndex::sw));
  EXPECT_FALSE(a.state().in_busy_poll);
  EXPECT_FALSE(a.on_poll_complete(at_ns(30'000), true).force_swint);  // once only
  EXPECT_EQ(kSwItrInterval, microseconds(50));                        // 20K/s limit
}

TEST(adaptive_itr, without_the_fix_busy_poll_exit_never_forces_a_software_interrupt) {
  Config config;
  config.busy_poll_exit_swint = false;
  AdaptiveItr a(config, at_ns(0));
  EXPECT_FALSE(a.on_poll_complete(at_ns(10'000), false).enabled);
  EXPECT_FALSE(a.state().in_busy_poll);
  const Decision exit = a.on_poll_complete(at_ns(20'000), true);
  EXPECT_TRUE(exit.enabled);
  EXPECT_FALSE(exit.force_swint);
  EXPECT_EQ(exit.dyn_ctln & (kDynCtlnSwintTrigMask | kDynCtlnSwItrIndxEnaMask), 0U);
}

TEST(adaptive_itr, the_software_interrupt_rides_on_the_same_write_as_an_itr_change) {
  QVector q = static_vector(10, 50, 50, 50);
  q.in_busy_poll = true;
  const Decision d = update_enable_itr(q, kJiffies);
  EXPECT_EQ(d.write, ItrIndex::rx);
  EXPECT_TRUE(d.force_swint);
  EXPECT_EQ(d.dyn_ctln, 0x1U | (5U << 5) | 0x4U | (1U << 24) | (2U << 25));
}

// ---- configuration edge ----------------------------------------------------------------------

TEST(adaptive_itr, starts_from_the_ethtool_setting_without_a_mode_flag) {
  AdaptiveItr a(Config{}, at_ns(5'000'000));
  EXPECT_EQ(a.state().rx.itr_setting, kDynamic50);
  EXPECT_EQ(a.state().rx.target_itr, 50);
  EXPECT_EQ(a.state().rx.current_itr, 50);
  EXPECT_EQ(a.state().tx.target_itr, 50);
  EXPECT_EQ(a.state().rx.next_update, 6U);  // jiffy 5 + 1
  EXPECT_EQ(a.state().itr_countdown, 0);
}

TEST(adaptive_itr, rounds_odd_usecs_up_like_itr_reg_align) {
  Config config;
  config.rx_usecs = 51;
  config.adaptive_tx = false;
  config.tx_usecs = 7;
  AdaptiveItr a(config, at_ns(0));
  EXPECT_EQ(a.state().rx.itr_setting, 52 | kItrDynamic);
  EXPECT_EQ(a.state().rx.target_itr, 52);
  EXPECT_EQ(a.state().tx.itr_setting, 8);
}

TEST(adaptive_itr, a_static_setting_never_changes_and_keeps_its_counts) {
  Config config;
  config.adaptive_rx = false;
  config.adaptive_tx = false;
  config.rx_usecs = 20;
  AdaptiveItr a(config, at_ns(0));
  for (int i = 1; i <= 50; ++i) {
    a.on_rx_cleaned(300 * 1500, 300);
    const Decision d = a.on_poll_complete(at_ns(i * 10'000), true);
    EXPECT_EQ(d.write, ItrIndex::none);
  }
  EXPECT_EQ(a.state().rx.current_itr, 20);
  EXPECT_EQ(a.state().rx.total_packets, 50U * 300);  // i40e_update_itr returns before clearing
}

TEST(adaptive_itr, a_container_without_a_ring_is_ignored) {
  QVector q = adaptive_vector();
  q.rx.has_ring = false;
  clean(q.rx, 300, 1500);
  update_itr(q, Direction::rx, kJiffies);
  EXPECT_EQ(q.rx.target_itr, 50);
  EXPECT_EQ(q.rx.total_packets, 300U);
}

TEST(adaptive_itr, totals_wrap_at_32_bits) {
  AdaptiveItr a(Config{}, at_ns(0));
  a.on_rx_cleaned(0xFFFF'FFFFU, 1);
  a.on_rx_cleaned(2, 1);
  EXPECT_EQ(a.state().rx.total_bytes, 1U);
  EXPECT_EQ(a.state().rx.total_packets, 2U);
}

TEST(adaptive_itr, rejects_rx_usecs_above_8160) {
  Config config;
  config.rx_usecs = 8160;
  EXPECT_FALSE(validate(config));
  config.rx_usecs = 8161;
  const std::optional<Error> e = validate(config);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->key, "rx-usecs");
  EXPECT_NE(e->message.find("0-8160"), std::string::npos);
  const Expected<AdaptiveItr> created = AdaptiveItr::create(config, at_ns(0));
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().key, "rx-usecs");
}

TEST(adaptive_itr, rejects_tx_usecs_above_8160) {
  Config config;
  config.tx_usecs = 10000;
  const std::optional<Error> e = validate(config);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->key, "tx-usecs");
}

TEST(adaptive_itr, rejects_a_tick_that_is_not_positive) {
  Config config;
  config.tick = Duration::zero();
  std::optional<Error> e = validate(config);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->key, "tick");
  config.tick = nanoseconds(-1);
  e = validate(config);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->key, "tick");
  EXPECT_TRUE(AdaptiveItr::create(Config{}, at_ns(0)).ok());
}

// ---- traffic shapes, traced by hand through the kernel code ----------------------------------

// sockperf-like ping-pong: one 1000 B request in, one reply out per interrupt, 25 us apart. Both
// sides creep up in 2 us steps to 126 us bulk (one write per interrupt, three discarded
// interrupts after each). With Tx and Rx both at 126, Tx returns to latency mode (126 us), which
// lets Rx take the latency shortcut: 1000 B -> 26452 / 2 -> ceil(13226 / 512) * 2 = 52 us.
TEST(adaptive_itr, ping_pong_settles_with_rx_at_52_us_in_latency_mode) {
  AdaptiveItr a(Config{}, at_ns(0));
  Instant t = at_ns(0);
  for (int i = 0; i < 400; ++i) {
    t += microseconds(25);
    a.on_rx_cleaned(1000, 1);
    a.on_tx_cleaned(1000, 1);
    a.on_poll_complete(t, true);
  }
  EXPECT_EQ(a.state().rx.current_itr, kAdaptiveLatency | 52);
  EXPECT_EQ(a.state().tx.current_itr, kAdaptiveLatency | 126);
}

// A bulk stream: 300 full frames per interrupt on Rx, nothing on Tx. Rx goes to the bulk formula
// (118 us at 10G) at once; Tx creeps to its 126 us cap.
TEST(adaptive_itr, a_bulk_stream_settles_in_bulk_mode) {
  AdaptiveItr a(Config{}, at_ns(0));
  Instant t = at_ns(0);
  for (int i = 0; i < 400; ++i) {
    t += microseconds(100);
    a.on_rx_cleaned(300 * 1500, 300);
    a.on_poll_complete(t, true);
  }
  EXPECT_EQ(a.state().rx.current_itr, 118);
  EXPECT_EQ(a.state().tx.current_itr, 126);
}

}  // namespace
}  // namespace irqmod::adaptive_itr
