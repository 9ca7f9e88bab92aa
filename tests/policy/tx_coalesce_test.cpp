// Unit tests for Tx coalescing from link speed: wire time, the timeout, ethtool values, the
// precomputed table and every rejection of plan().
#include "irqmod/policy/tx_coalesce.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace irqmod::tx_coalesce {
namespace {

constexpr std::uint64_t kGbps = 1'000'000'000;

// ---- wire time -------------------------------------------------------------------------------

TEST(tx_coalesce, minimum_frame_at_10_gbits_is_67_2_ns_and_14_88_mpps) {
  EXPECT_EQ(wire_bits(64), 672U) << "64 B + 8 B preamble/SFD + 12 B inter-frame gap";
  EXPECT_EQ(wire_time_ps(10 * kGbps, 64), Picoseconds{67'200});
  EXPECT_EQ(wire_time(10 * kGbps, 64), nanoseconds(67)) << "67.2 ns rounds down";
  EXPECT_EQ(frames_per_second(10 * kGbps, 64), 14'880'952U);
}

TEST(tx_coalesce, minimum_frame_at_40_gbits_is_59_52_mpps_as_in_the_design_note) {
  EXPECT_EQ(frames_per_second(40 * kGbps, 64), 59'523'809U);
  EXPECT_EQ(wire_time_ps(40 * kGbps, 64), Picoseconds{16'800});
}

TEST(tx_coalesce, full_size_frame_of_a_1500_byte_mtu_at_1_gbits_is_12_304_us) {
  EXPECT_EQ(frame_bytes_for_mtu(1500), 1518U);
  EXPECT_EQ(frame_bytes_for_mtu(1500), kMaxStandardFrameBytes);
  EXPECT_EQ(wire_time(1 * kGbps, frame_bytes_for_mtu(1500)), nanoseconds(12'304));
  EXPECT_EQ(frames_per_second(1 * kGbps, 1518), 81'274U);
}

// ---- timeout ---------------------------------------------------------------------------------

TEST(tx_coalesce, usable_frames_keep_the_reserve_and_round_down) {
  EXPECT_EQ(usable_frames(256), 128U);
  EXPECT_EQ(usable_frames(255), 127U);
  EXPECT_EQ(usable_frames(256, 0), 256U);
  EXPECT_EQ(usable_frames(256, 75), 64U);
  EXPECT_EQ(usable_frames(1), 0U);
}

TEST(tx_coalesce, timeout_multiplies_the_exact_wire_time_and_rounds_once) {
  // 128 x 67.2 ns = 8601.6 ns; 128 x the rounded 67 ns would be 8576 ns.
  EXPECT_EQ(tx_timeout(10 * kGbps, 256, 64), nanoseconds(8'601));
  // 128 x 12304 ns at 1 Gbit/s.
  EXPECT_EQ(tx_timeout(1 * kGbps, 256, 1518), nanoseconds(1'574'912));
  EXPECT_EQ(tx_timeout(1 * kGbps, 256, 1518, 0), nanoseconds(3'149'824));
}

TEST(tx_coalesce, tx_usecs_rounds_down_and_sub_microsecond_timeouts_give_zero) {
  EXPECT_EQ(tx_usecs(nanoseconds(1'574'912)), 1574U);
  EXPECT_EQ(tx_usecs(nanoseconds(999)), 0U);
  EXPECT_EQ(tx_usecs(nanoseconds(1000)), 1U);
}

TEST(tx_coalesce, plan_reports_ethtool_values_and_what_they_came_from) {
  const auto r = plan(TxConfig{1 * kGbps, 256, 1518, 50});
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ(r->wire_time, nanoseconds(12'304));
  EXPECT_EQ(r->usable_frames, 128U);
  EXPECT_EQ(r->timeout, nanoseconds(1'574'912));
  EXPECT_EQ(r->tx_usecs, 1574U);
  EXPECT_EQ(r->tx_frames, 128U);
}

TEST(tx_coalesce, faster_links_and_smaller_frames_give_shorter_timeouts) {
  EXPECT_LT(tx_timeout(25 * kGbps, 1024, 1518), tx_timeout(10 * kGbps, 1024, 1518));
  EXPECT_LT(tx_timeout(10 * kGbps, 1024, 64), tx_timeout(10 * kGbps, 1024, 1518));
  EXPECT_LT(tx_timeout(10 * kGbps, 512, 1518), tx_timeout(10 * kGbps, 1024, 1518));
}

// ---- the table -------------------------------------------------------------------------------

TEST(tx_coalesce, table_covers_10_mbits_to_100_gbits) {
  ASSERT_EQ(kTable.size(), 10U);
  EXPECT_EQ(kTable.front().link_bps, 10'000'000U);
  EXPECT_EQ(kTable.back().link_bps, 100 * kGbps);
  for (const TxCoalesce& row : kTable)
    EXPECT_EQ(row.tx_frames, 128U) << row.link_bps;
}

TEST(tx_coalesce, table_timeouts_fall_strictly_as_speed_rises) {
  for (std::size_t i = 1; i < kTable.size(); ++i) {
    EXPECT_GT(kTable[i].link_bps, kTable[i - 1].link_bps) << i;
    EXPECT_LT(kTable[i].timeout, kTable[i - 1].timeout) << i;
    EXPECT_LT(kTable[i].wire_time, kTable[i - 1].wire_time) << i;
    EXPECT_GT(kTable[i].frames_per_second, kTable[i - 1].frames_per_second) << i;
    EXPECT_LE(kTable[i].tx_usecs, kTable[i - 1].tx_usecs) << i;
  }
}

TEST(tx_coalesce, table_values_are_the_documented_ones) {
  static_assert(kTable[2].tx_usecs == 1574);  // built at compile time
  const std::uint32_t expected_usecs[] = {157'491, 15'749, 1'574, 629, 314, 157, 62, 39, 31, 15};
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    EXPECT_EQ(kTable[i].tx_usecs, expected_usecs[i]) << kTable[i].link_bps;
    const auto checked = plan(TxConfig{kTable[i].link_bps, kReferenceQueueFrames, 1518, 50});
    ASSERT_TRUE(checked.ok());
    EXPECT_EQ(*checked, kTable[i]) << "the table is plan() at each speed";
  }
  EXPECT_EQ(kTable[3].timeout, nanoseconds(629'964)) << "2.5 Gbit/s: 128 x 4921.6 ns";
}

TEST(tx_coalesce, find_in_table_matches_exact_speeds_only) {
  const TxCoalesce* row = find_in_table(2'500'000'000);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->link_bps, 2'500'000'000U);
  EXPECT_EQ(find_in_table(200 * kGbps), nullptr);
  EXPECT_EQ(find_in_table(0), nullptr);
}

TEST(tx_coalesce, timeout_never_exceeds_the_time_the_usable_frames_take_on_the_wire) {
  for (const std::uint64_t speed : kTableSpeeds) {
    for (const std::uint32_t frame : {64U, 512U, 1518U, 9216U}) {
      for (const std::uint32_t queue : {2U, 64U, 256U, 4096U, 65536U}) {
        const Duration t = tx_timeout(speed, queue, frame);
        const std::uint64_t frames = usable_frames(queue);
        // t <= frames x bits / speed < t + 1 ns, in integers: t x speed <= frames x bits x 1e9.
        const std::uint64_t exact = frames * wire_bits(frame) * 1'000'000'000;
        EXPECT_LE(static_cast<std::uint64_t>(t.count()) * speed, exact);
        EXPECT_GT((static_cast<std::uint64_t>(t.count()) + 1) * speed, exact);
      }
    }
  }
}

// ---- rejections ------------------------------------------------------------------------------

TEST(tx_coalesce, plan_rejects_a_link_speed_of_zero_or_out_of_range) {
  for (const std::uint64_t bad : {std::uint64_t{0}, std::uint64_t{9'999'999}, 801 * kGbps}) {
    const auto r = plan(TxConfig{bad, 256, 1518, 50});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().key, "link-speed");
  }
  EXPECT_TRUE(plan(TxConfig{kMinLinkBps, 256, 1518, 50}).ok());
  EXPECT_TRUE(plan(TxConfig{kMaxLinkBps, 256, 1518, 50}).ok());
}

TEST(tx_coalesce, plan_rejects_an_empty_or_oversized_queue) {
  for (const std::uint32_t bad : {0U, 65537U}) {
    const auto r = plan(TxConfig{kGbps, bad, 1518, 50});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().key, "tx-ring");
  }
  EXPECT_TRUE(plan(TxConfig{kGbps, 65536, 9216, 0}).ok());
}

TEST(tx_coalesce, plan_rejects_frames_below_64_or_above_9216_bytes) {
  for (const std::uint32_t bad : {0U, 63U, 9217U}) {
    const auto r = plan(TxConfig{kGbps, 256, bad, 50});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().key, "frame-bytes");
    EXPECT_NE(r.error().message.find("64"), std::string::npos);
  }
  EXPECT_TRUE(plan(TxConfig{kGbps, 256, 64, 50}).ok());
  EXPECT_TRUE(plan(TxConfig{kGbps, 256, 9216, 50}).ok());
}

TEST(tx_coalesce, plan_rejects_a_reserve_of_the_whole_queue) {
  const auto r = plan(TxConfig{kGbps, 256, 1518, 100});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().key, "reserve-percent");
  EXPECT_TRUE(plan(TxConfig{kGbps, 256, 1518, 99}).ok());
}

TEST(tx_coalesce, plan_rejects_a_queue_whose_reserve_leaves_nothing_to_coalesce) {
  const auto r = plan(TxConfig{kGbps, 1, 1518, 50});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().key, "tx-ring");
  EXPECT_NE(r.error().message.find("no frame"), std::string::npos) << r.error().message;
  EXPECT_TRUE(plan(TxConfig{kGbps, 2, 1518, 50}).ok());
}

}  // namespace
}  // namespace irqmod::tx_coalesce
