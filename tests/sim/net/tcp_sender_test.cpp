// TcpSender: when the host's bulk sender transmits, and when its writer may go on.
#include "sim/net/tcp_sender.hpp"

#include <gtest/gtest.h>

namespace irqmod::sim {
namespace {

constexpr std::uint32_t kMss = 1448;

TcpSender::Config config(std::uint32_t window_segments, std::uint32_t buffer_segments) {
  TcpSender::Config c;
  c.mss = kMss;
  c.window = window_segments * kMss;
  c.send_buffer = buffer_segments * kMss;
  return c;
}

// Sends every skb the sender allows now; returns the segments sent.
std::uint32_t drain(TcpSender& s) {
  std::uint32_t sent = 0;
  while (const std::uint32_t n = s.next_skb()) {
    s.on_sent(n);
    sent += n;
  }
  return sent;
}

TEST(tcp_sender, sends_no_more_than_the_window) {
  TcpSender s(config(30, 90));
  s.write(90 * kMss);
  EXPECT_EQ(drain(s), 30u);
  EXPECT_EQ(s.next_skb(), 0u);
  EXPECT_EQ(s.snd_nxt() - s.snd_una(), 30u * kMss);
}

TEST(tcp_sender, an_skb_is_at_most_64_kib_of_whole_segments) {
  TcpSender s(config(200, 400));
  s.write(200 * kMss);
  EXPECT_EQ(s.next_skb(), 65'536u / kMss);  // 45 segments: GSO_MAX_SIZE
  // Four of them; the last 20 segments are less than a third of the window: they wait.
  EXPECT_EQ(drain(s), 180u);
}

TEST(tcp_sender, a_partial_segment_waits_for_more_data) {
  TcpSender s(config(30, 90));
  s.write(kMss + 100);
  EXPECT_EQ(drain(s), 1u);
  s.write(kMss - 100);
  EXPECT_EQ(drain(s), 1u);
}

TEST(tcp_sender, defers_until_a_third_of_the_window_is_free) {
  TcpSender s(config(30, 90));
  s.write(90 * kMss);
  drain(s);
  // Two segments acknowledged: 2 of 30 free, less than a third: tcp_tso_should_defer holds.
  EXPECT_TRUE(s.on_ack(2 * kMss));
  EXPECT_EQ(s.next_skb(), 0u);
  EXPECT_TRUE(s.on_ack(9 * kMss));
  EXPECT_EQ(s.next_skb(), 0u);  // 9 free: 9 x 3 < 30
  EXPECT_TRUE(s.on_ack(10 * kMss));
  EXPECT_EQ(s.next_skb(), 10u);  // 10 free: a third of the window, sent as one skb
}

TEST(tcp_sender, old_and_repeated_acks_change_nothing) {
  TcpSender s(config(30, 90));
  s.write(90 * kMss);
  drain(s);
  EXPECT_TRUE(s.on_ack(12 * kMss));
  EXPECT_FALSE(s.on_ack(12 * kMss));
  EXPECT_FALSE(s.on_ack(5 * kMss));
  EXPECT_FALSE(s.on_ack(0));
  EXPECT_EQ(s.snd_una(), 12u * kMss);
  // An ACK beyond what was sent is taken as what was sent.
  EXPECT_TRUE(s.on_ack(1000 * kMss));
  EXPECT_EQ(s.snd_una(), s.snd_nxt());
}

TEST(tcp_sender, the_send_buffer_bounds_writes_and_acks_free_it) {
  TcpSender s(config(30, 60));
  EXPECT_EQ(s.room(), 60u * kMss);
  s.write(100 * kMss);  // takes what fits
  EXPECT_EQ(s.write_seq(), 60u * kMss);
  EXPECT_EQ(s.room(), 0u);
  drain(s);  // sending frees nothing: the data waits for its ACK
  EXPECT_EQ(s.room(), 0u);
  EXPECT_FALSE(s.writable());
  s.on_ack(19 * kMss);  // 41 of 60 queued: more than two thirds
  EXPECT_FALSE(s.writable());
  s.on_ack(20 * kMss);  // 40 of 60: sk_stream_wspace >= sk_stream_min_wspace
  EXPECT_TRUE(s.writable());
  EXPECT_EQ(s.room(), 20u * kMss);
}

TEST(tcp_sender, a_segment_lost_on_the_tx_path_is_sent_again) {
  TcpSender s(config(30, 30));
  s.write(30 * kMss);
  EXPECT_EQ(drain(s), 30u);
  s.on_lost();
  EXPECT_TRUE(s.on_ack(10 * kMss));
  // The window counts it out of flight, and no new data is left: the resend is all there is.
  EXPECT_EQ(s.next_skb(), 1u);
  s.on_sent(1);
  EXPECT_EQ(s.snd_nxt(), 30u * kMss);
  EXPECT_EQ(s.next_skb(), 0u);
}

}  // namespace
}  // namespace irqmod::sim
