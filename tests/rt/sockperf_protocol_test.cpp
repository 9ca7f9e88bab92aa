// Unit tests for the sockperf wire format: header layout, the answer rule, datagram checks and
// TCP framing, all without sockets.
#include "irqmod/rt/sockperf_protocol.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace irqmod::rt::sockperf {
namespace {

std::vector<std::uint8_t> message(std::uint64_t seq, std::uint16_t flags, std::uint32_t length,
                                  std::size_t size) {
  std::vector<std::uint8_t> m(std::max(size, kHeaderSize), 0xAB);
  encode_header(Header{seq, flags, length}, m);
  m.resize(size);  // a truncated message keeps the first bytes of its header
  return m;
}

std::vector<std::uint8_t> message(std::uint64_t seq, std::uint16_t flags, std::uint32_t size) {
  return message(seq, flags, size, size);
}

constexpr std::uint16_t kPing = kFlagClient | kFlagPongRequest;

TEST(sockperf_protocol, header_is_fourteen_bytes_in_network_order) {
  const auto m = message(0x0102030405060708ULL, 0x0A0B, 0x0C0D0E0F, 14);
  const std::vector<std::uint8_t> want = {1, 2,    3,    4,    5,    6,    7,
                                          8, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F};
  EXPECT_EQ(m, want);
  const Header h = decode_header(m);
  EXPECT_EQ(h.sequence, 0x0102030405060708ULL);
  EXPECT_EQ(h.flags, 0x0A0B);
  EXPECT_EQ(h.length, 0x0C0D0E0FU);
}

TEST(sockperf_protocol, a_pong_request_is_answered_with_its_sequence_and_no_client_flag) {
  auto m = message(42, kPing, 64);
  const Verdict v = classify_datagram(m, m.size());
  ASSERT_EQ(v.kind, VerdictKind::answer);
  reply_in_place(m);
  const Header h = decode_header(m);
  EXPECT_EQ(h.sequence, 42U);
  EXPECT_EQ(h.flags, kFlagPongRequest);
  EXPECT_EQ(h.length, 64U);
  EXPECT_EQ(m.back(), 0xAB);  // payload untouched
}

TEST(sockperf_protocol, warmup_messages_are_never_answered_even_with_the_pong_flag) {
  const auto m = message(1, kPing | kFlagWarmup, 64);
  EXPECT_EQ(classify_datagram(m, m.size()).kind, VerdictKind::warmup);
}

TEST(sockperf_protocol, only_pong_requests_are_answered) {
  const auto m = message(7, kFlagClient, 64);
  EXPECT_EQ(classify_datagram(m, m.size()).kind, VerdictKind::no_reply);
}

TEST(sockperf_protocol, a_reply_from_a_server_is_rejected_as_not_client) {
  const auto m = message(7, kFlagPongRequest, 64);
  const Verdict v = classify_datagram(m, m.size());
  EXPECT_EQ(v.kind, VerdictKind::reject);
  EXPECT_EQ(v.reason, Reject::not_client);
}

TEST(sockperf_protocol, datagrams_are_checked_against_their_length_field) {
  const auto short_one = message(1, kPing, 14, 13);
  EXPECT_EQ(classify_datagram(short_one, 13).reason, Reject::truncated);
  const auto bad = message(1, kPing, 13, 20);
  EXPECT_EQ(classify_datagram(bad, 20).reason, Reject::bad_length);
  const auto big_field = message(1, kPing, kMaxMessageSize + 1, 20);
  EXPECT_EQ(classify_datagram(big_field, 20).reason, Reject::oversized);
  const auto mismatch = message(1, kPing, 64, 63);
  EXPECT_EQ(classify_datagram(mismatch, 63).reason, Reject::length_mismatch);
  // A datagram larger than the buffer: MSG_TRUNC reports its real size.
  const auto cut = message(1, kPing, 100, 100);
  EXPECT_EQ(classify_datagram(cut, kMaxMessageSize + 10).reason, Reject::oversized);
  EXPECT_EQ(classify_datagram({}, 0).reason, Reject::truncated);
}

TEST(sockperf_protocol, the_largest_message_is_accepted) {
  const auto m = message(9, kPing, kMaxMessageSize);
  EXPECT_EQ(classify_datagram(m, m.size()).kind, VerdictKind::answer);
}

TEST(sockperf_protocol, every_reject_reason_has_a_distinct_name) {
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < kRejectReasons; ++i)
    names.push_back(reject_name(static_cast<Reject>(i)));
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = i + 1; j < names.size(); ++j)
      EXPECT_NE(names[i], names[j]);
}

// Feeds `stream` to a framer in pieces of the given sizes (cycled); returns the framed messages'
// sequence numbers, or stops at the first bad length.
struct FrameLog {
  std::vector<std::uint64_t> sequences;
  bool bad = false;
  Reject reason = Reject::truncated;
  std::size_t partial = 0;
};

FrameLog frame(const std::vector<std::uint8_t>& stream, const std::vector<std::size_t>& pieces) {
  StreamFramer framer;
  FrameLog log;
  std::size_t at = 0;
  for (std::size_t i = 0; at < stream.size() && !log.bad; ++i) {
    const auto space = framer.write_space();
    EXPECT_FALSE(space.empty());
    std::size_t n = std::min({pieces[i % pieces.size()], space.size(), stream.size() - at});
    std::copy_n(stream.begin() + static_cast<std::ptrdiff_t>(at), n, space.begin());
    framer.commit(n);
    at += n;
    for (;;) {
      const auto f = framer.next();
      if (f.kind == StreamFramer::FrameKind::need_more) break;
      if (f.kind == StreamFramer::FrameKind::bad_length) {
        log.bad = true;
        log.reason = f.reason;
        break;
      }
      EXPECT_EQ(f.message.size(), decode_header(f.message).length);
      log.sequences.push_back(decode_header(f.message).sequence);
    }
  }
  log.partial = framer.partial_bytes();
  return log;
}

TEST(stream_framer, frames_back_to_back_messages_whatever_the_read_sizes) {
  std::vector<std::uint8_t> stream;
  std::vector<std::uint64_t> want;
  std::mt19937 rng(5);  // fixed seed
  for (std::uint64_t seq = 0; seq < 200; ++seq) {
    const auto size = static_cast<std::uint32_t>(14 + rng() % 2000);
    const auto m = message(seq, kPing, size);
    stream.insert(stream.end(), m.begin(), m.end());
    want.push_back(seq);
  }
  for (const std::vector<std::size_t>& pieces :
       std::vector<std::vector<std::size_t>>{{1}, {13, 1, 7}, {14}, {4096}, {65536}}) {
    const FrameLog log = frame(stream, pieces);
    EXPECT_FALSE(log.bad);
    EXPECT_EQ(log.sequences, want);
    EXPECT_EQ(log.partial, 0U);
  }
}

TEST(stream_framer, frames_maximum_size_messages_in_its_bounded_buffer) {
  std::vector<std::uint8_t> stream;
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    const auto m = message(seq, kPing, kMaxMessageSize);
    stream.insert(stream.end(), m.begin(), m.end());
  }
  const FrameLog log = frame(stream, {1000, 65536, 3});
  EXPECT_EQ(log.sequences, (std::vector<std::uint64_t>{0, 1, 2}));
}

TEST(stream_framer, a_bad_length_stops_the_stream) {
  auto stream = message(1, kPing, 20);
  const auto bad = message(2, kPing, 3, 20);
  stream.insert(stream.end(), bad.begin(), bad.end());
  const FrameLog log = frame(stream, {7});
  EXPECT_EQ(log.sequences, (std::vector<std::uint64_t>{1}));
  EXPECT_TRUE(log.bad);
  EXPECT_EQ(log.reason, Reject::bad_length);

  const auto huge = message(3, kPing, 1u << 20, 20);
  const FrameLog log2 = frame(huge, {20});
  EXPECT_TRUE(log2.bad);
  EXPECT_EQ(log2.reason, Reject::oversized);
}

TEST(stream_framer, reports_a_message_cut_off_mid_way) {
  const auto m = message(1, kPing, 100);
  const FrameLog log = frame(std::vector<std::uint8_t>(m.begin(), m.begin() + 60), {25});
  EXPECT_TRUE(log.sequences.empty());
  EXPECT_EQ(log.partial, 60U);
}

}  // namespace
}  // namespace irqmod::rt::sockperf
