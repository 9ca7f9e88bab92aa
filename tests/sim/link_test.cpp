// The link: wire time with preamble, SFD and inter-frame gap; serialisation; exact line rate.
#include "irqmod/sim/link.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint64_t k10G = 10'000'000'000;
constexpr std::uint64_t k40G = 40'000'000'000;

TEST(link, a_64_byte_frame_holds_10g_for_67_2_ns_and_arrives_after_57_6_ns) {
  const Link link(k10G);
  EXPECT_EQ(link.occupancy_ps(64), 67'200);  // (64 + 8 + 12) B x 8 / 10 Gbit/s
  EXPECT_EQ(link.reception_ps(64), 57'600);  // (64 + 8) B x 8: the IFG comes after the FCS
  EXPECT_EQ(link.occupancy_ps(1518), 1'230'400);
}

TEST(link, frames_queue_behind_each_other_on_the_wire) {
  Link link(k10G);
  EXPECT_EQ(link.transmit(0, 64), 57'600);
  EXPECT_EQ(link.transmit(0, 64), 67'200 + 57'600);  // offered together: waits for the first
  EXPECT_EQ(link.transmit(1'000'000, 64), 1'000'000 + 57'600);  // wire idle again
  EXPECT_EQ(link.frames(), 3u);
  EXPECT_EQ(link.bytes(), 192u);
}

TEST(link, back_to_back_64_byte_frames_are_14_88_mpps_at_10g_without_drift) {
  // Every frame offered at 0: the link alone paces them. Frame k arrives at k x 67.2 + 57.6 ns,
  // so by 100 ms floor((1e8 - 57.6) / 67.2) + 1 = 1 488 095 frames have arrived.
  ArrivalStream stream(ConstantRate(Spacing::fixed(0), 64), Link(k10G), Rng(1));
  std::uint64_t count = 0;
  std::int64_t millionth = 0;
  std::int64_t last = 0;
  stream.take_until(at_ns(100'000'000), [&](const Packet& p) {
    ++count;
    if (count == 1'000'000) millionth = p.arrival_ns;
    ASSERT_GE(p.arrival_ns, last);
    last = p.arrival_ns;
  });
  EXPECT_EQ(count, 1'488'095u);
  EXPECT_EQ(millionth, 67'199'990);  // 999 999 x 67.2 + 57.6 = 67 199 990.4 ns, rounded down
  EXPECT_EQ(tx_coalesce::frames_per_second(k10G, 64), 14'880'952u);
}

TEST(link, line_rate_at_40g_is_59_52_mpps) {
  const Link link(k40G);
  EXPECT_EQ(link.occupancy_ps(64), 16'800);
  EXPECT_EQ(tx_coalesce::frames_per_second(k40G, 64), 59'523'809u);
}

TEST(link, create_refuses_speeds_outside_ethtools_range) {
  EXPECT_TRUE(Link::create(10'000'000).ok());
  EXPECT_TRUE(Link::create(800'000'000'000).ok());
  const auto slow = Link::create(9'999'999);
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().key, "link.speed");
  EXPECT_NE(slow.error().message.find("10 Mbit/s to 800 Gbit/s"), std::string::npos);
  EXPECT_FALSE(Link::create(800'000'000'001).ok());
}

}  // namespace
}  // namespace irqmod::sim
