// The TCP receiver's ACK decision: quick-ACKs at the start, then an ACK per two full segments or
// per GRO skb, and the 40 ms delayed-ACK timer for what is left.
#include "sim/net/tcp_receiver.hpp"

#include <gtest/gtest.h>

namespace irqmod::sim {
namespace {

constexpr std::uint32_t kMss = 1448;

// Past the 16 quick-ACKs of a new connection.
TcpReceiver warmed() {
  TcpReceiver r(TcpReceiver::Config{});
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(r.on_data(at_ns(i), kMss), TcpReceiver::Ack::now) << i;
    r.on_ack_sent();
  }
  EXPECT_EQ(r.quick(), 0u);
  return r;
}

TEST(tcp_receiver, a_new_connection_acks_its_first_16_segments_at_once) {
  TcpReceiver r(TcpReceiver::Config{});
  EXPECT_EQ(r.quick(), 0u);
  EXPECT_EQ(r.on_data(at_ns(0), kMss), TcpReceiver::Ack::now);
  EXPECT_EQ(r.quick(), 16u);
  r.on_ack_sent();
  EXPECT_EQ(r.quick(), 15u);
  EXPECT_EQ(r.rcv_wup(), kMss);
  // A smaller quick-ACK allowance ends sooner.
  TcpReceiver::Config two;
  two.max_quickacks = 2;
  TcpReceiver s(two);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(s.on_data(at_ns(i), kMss), TcpReceiver::Ack::now);
    s.on_ack_sent();
  }
  EXPECT_EQ(s.on_data(at_ns(3), kMss), TcpReceiver::Ack::delayed);
}

TEST(tcp_receiver, one_segment_waits_and_the_second_is_acked_with_it) {
  TcpReceiver r = warmed();
  EXPECT_EQ(r.on_data(at_ns(1000), kMss), TcpReceiver::Ack::delayed);
  EXPECT_EQ(r.delack_at(), at_ns(1000) + milliseconds(40));
  EXPECT_EQ(r.on_data(at_ns(2000), kMss), TcpReceiver::Ack::now);  // 2 x 1448 > 1448
  r.on_ack_sent();
  EXPECT_EQ(r.delack_at(), std::nullopt);
  EXPECT_EQ(r.rcv_wup(), r.rcv_nxt());
  // 1000 segments one by one: an ACK every second one.
  const std::uint64_t before = r.acks();
  for (int i = 0; i < 1000; ++i) {
    if (r.on_data(at_ns(10'000 + i), kMss) == TcpReceiver::Ack::now) r.on_ack_sent();
  }
  EXPECT_EQ(r.acks() - before, 500u);
}

TEST(tcp_receiver, a_gro_skb_of_two_segments_or_more_is_acked_at_once) {
  TcpReceiver r = warmed();
  const std::uint64_t before = r.acks();
  // 100 polls of 23 frames each, merged into one skb per poll: one ACK per poll.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(r.on_data(at_ns(1'000'000 + i), 23 * kMss), TcpReceiver::Ack::now);
    r.on_ack_sent();
  }
  EXPECT_EQ(r.acks() - before, 100u);
  // A short skb alone waits for the timer.
  EXPECT_EQ(r.on_data(at_ns(2'000'000), 100), TcpReceiver::Ack::delayed);
}

TEST(tcp_receiver, the_delayed_ack_timer_acks_what_is_left_after_40_ms) {
  TcpReceiver r = warmed();
  EXPECT_EQ(r.on_data(at_ns(5'000), 100), TcpReceiver::Ack::delayed);
  EXPECT_FALSE(r.on_timer(at_ns(5'000) + milliseconds(39)));
  EXPECT_TRUE(r.delack_at().has_value());
  // Another short skb (110 B unacknowledged, less than a segment) does not move the timer; one
  // that makes it more than a full segment is acknowledged at once.
  EXPECT_EQ(r.on_data(at_ns(6'000), 10), TcpReceiver::Ack::delayed);
  EXPECT_EQ(r.delack_at(), at_ns(5'000) + milliseconds(40));
  EXPECT_TRUE(r.on_timer(at_ns(5'000) + milliseconds(40)));
  EXPECT_EQ(r.delack_at(), std::nullopt);
  r.on_ack_sent();
  EXPECT_EQ(r.on_data(at_ns(50'000'000), 1000), TcpReceiver::Ack::delayed);
  EXPECT_EQ(r.on_data(at_ns(50'000'001), 1000), TcpReceiver::Ack::now);  // 2000 > 1448
  r.on_ack_sent();
  // A timer with nothing to acknowledge sends nothing; a shorter timeout fires sooner.
  EXPECT_FALSE(r.on_timer(at_ns(1'000'000'000)));
  TcpReceiver::Config quick_timer;
  quick_timer.max_quickacks = 0;
  quick_timer.ack_timeout = milliseconds(4);
  TcpReceiver s(quick_timer);
  EXPECT_EQ(s.on_data(at_ns(0), kMss), TcpReceiver::Ack::delayed);
  EXPECT_EQ(s.delack_at(), at_ns(0) + milliseconds(4));
}

TEST(tcp_receiver, the_segment_size_sets_what_one_full_segment_is) {
  TcpReceiver::Config jumbo;
  jumbo.max_quickacks = 0;
  jumbo.rcv_mss = 8948;
  TcpReceiver r(jumbo);
  EXPECT_EQ(r.on_data(at_ns(0), kMss), TcpReceiver::Ack::delayed);
  EXPECT_EQ(r.on_data(at_ns(1), kMss), TcpReceiver::Ack::delayed);  // 2896 < 8948
  EXPECT_EQ(r.on_data(at_ns(2), 8000), TcpReceiver::Ack::now);
}

}  // namespace
}  // namespace irqmod::sim
