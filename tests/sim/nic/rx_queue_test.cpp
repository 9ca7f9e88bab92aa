// The Rx descriptor ring: drops when full or out of buffers, polls taking frames in order up to
// their budget, buffers coming back after the refill delay, and the counters.
#include "sim/nic/rx_queue.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {
namespace {

Instant at_us(std::int64_t n) {
  return Instant{microseconds(n)};
}

// Frame i arrives at i ns, with a size that tells frames apart.
Packet frame(std::int64_t i) {
  return Packet{i, static_cast<std::uint32_t>(64 + i), 0};
}

std::vector<std::int64_t> arrivals(const Ring<Packet>& ring) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < ring.size(); ++i)
    out.push_back(ring[i].arrival_ns);
  return out;
}

TEST(rx_queue, takes_frames_until_the_ring_is_full_then_drops_them_as_ring_full) {
  RxQueue q(4, Duration::zero());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(q.free_descriptors(), static_cast<std::uint32_t>(4 - i));
    EXPECT_TRUE(q.land(frame(i), at_us(0)).taken) << "frame " << i;
  }
  const RxQueue::Landing fifth = q.land(frame(4), at_us(0));
  EXPECT_FALSE(fifth.taken);
  EXPECT_EQ(fifth.reason, DropReason::rx_ring_full);
  EXPECT_EQ(q.size(), 4U);
  EXPECT_EQ(q.capacity(), 4U);
  EXPECT_EQ(q.free_descriptors(), 0U);
  EXPECT_EQ(q.newest().arrival_ns, 3);
}

TEST(rx_queue, counts_every_frame_offered_including_drops) {
  RxQueue q(2, Duration::zero());
  for (int i = 0; i < 5; ++i)
    q.land(frame(i), at_us(0));
  EXPECT_EQ(q.arrived(), 5U);
  EXPECT_EQ(q.size(), 2U);
}

TEST(rx_queue, take_moves_at_most_the_budget_from_the_head_in_order) {
  RxQueue q(8, Duration::zero());
  for (int i = 0; i < 5; ++i)
    q.land(frame(i), at_us(0));
  Ring<Packet> out(16);
  EXPECT_EQ(q.take(3, at_us(1), out), 3);
  EXPECT_EQ(arrivals(out), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(q.size(), 2U);
  EXPECT_EQ(q.take(64, at_us(2), out), 2);
  EXPECT_EQ(arrivals(out), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(q.take(64, at_us(3), out), 0);
  EXPECT_EQ(q.size(), 0U);
}

TEST(rx_queue, frees_descriptors_at_once_without_a_refill_delay) {
  RxQueue q(4, Duration::zero());
  for (int i = 0; i < 4; ++i)
    q.land(frame(i), at_us(0));
  Ring<Packet> out(4);
  q.take(3, at_us(1), out);
  EXPECT_EQ(q.free_descriptors(), 3U);
  for (int i = 4; i < 7; ++i)
    EXPECT_TRUE(q.land(frame(i), at_us(1)).taken);
}

TEST(rx_queue, drops_as_no_buffer_while_cleaned_descriptors_wait_for_their_refill) {
  RxQueue q(4, microseconds(10));
  for (int i = 0; i < 4; ++i)
    q.land(frame(i), at_us(0));
  Ring<Packet> out(4);
  EXPECT_EQ(q.take(4, at_us(1), out), 4);
  EXPECT_EQ(q.size(), 0U);
  EXPECT_EQ(q.free_descriptors(), 0U);  // four descriptors, no buffer behind any
  const RxQueue::Landing early = q.land(frame(4), at_us(5));
  EXPECT_FALSE(early.taken);
  EXPECT_EQ(early.reason, DropReason::rx_no_buffer);
  const RxQueue::Landing just_before = q.land(frame(5), at_us(11) - nanoseconds(1));
  EXPECT_FALSE(just_before.taken);
  EXPECT_EQ(just_before.reason, DropReason::rx_no_buffer);
  EXPECT_TRUE(q.land(frame(6), at_us(11)).taken);  // the buffers are back 10 us after the poll
  EXPECT_EQ(q.free_descriptors(), 3U);
  EXPECT_EQ(q.arrived(), 7U);
}

TEST(rx_queue, returns_the_buffers_of_each_poll_after_its_own_delay) {
  RxQueue q(4, microseconds(10));
  for (int i = 0; i < 4; ++i)
    q.land(frame(i), at_us(0));
  Ring<Packet> out(4);
  q.take(2, at_us(1), out);  // back at 11 us
  q.take(2, at_us(3), out);  // back at 13 us
  EXPECT_TRUE(q.land(frame(4), at_us(12)).taken);
  EXPECT_TRUE(q.land(frame(5), at_us(12)).taken);
  EXPECT_EQ(q.land(frame(6), at_us(12)).reason, DropReason::rx_no_buffer);
  EXPECT_EQ(q.free_descriptors(), 0U);
  EXPECT_TRUE(q.land(frame(7), at_us(13)).taken);
  EXPECT_EQ(q.free_descriptors(), 1U);
  EXPECT_EQ(q.size(), 3U);
}

TEST(rx_queue, drops_as_ring_full_again_once_the_buffers_are_back_and_the_ring_fills) {
  RxQueue q(4, microseconds(10));
  for (int i = 0; i < 4; ++i)
    q.land(frame(i), at_us(0));
  Ring<Packet> out(4);
  q.take(1, at_us(1), out);
  q.land(frame(4), at_us(2));  // refused: its descriptor waits for a buffer
  EXPECT_EQ(q.land(frame(5), at_us(2)).reason, DropReason::rx_no_buffer);
  EXPECT_TRUE(q.land(frame(6), at_us(20)).taken);
  EXPECT_EQ(q.land(frame(7), at_us(20)).reason, DropReason::rx_ring_full);
}

}  // namespace
}  // namespace irqmod::sim
