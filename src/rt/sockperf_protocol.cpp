// sockperf header decoding, the answer rule and TCP framing; no sockets here.
#include "irqmod/rt/sockperf_protocol.hpp"

#include <cassert>
#include <cstring>

namespace irqmod::rt::sockperf {
namespace {

// Byte offsets of the header fields (sockperf's MsgHeader under #pragma pack(2)).
constexpr std::size_t kSequenceOffset = 0;
constexpr std::size_t kFlagsOffset = 8;
constexpr std::size_t kLengthOffset = 10;

// Big-endian (network order) reads and writes, one byte at a time: no alignment assumed.
template <typename T>
T load_be(const std::uint8_t* p) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v = static_cast<T>((v << 8) | p[i]);
  return v;
}

template <typename T>
void store_be(T v, std::uint8_t* p) {
  for (std::size_t i = sizeof(T); i-- > 0;) {
    p[i] = static_cast<std::uint8_t>(v & 0xFF);
    v = static_cast<T>(v >> 8);
  }
}

Verdict rejected(Reject reason, const Header& h = {}) {
  return Verdict{VerdictKind::reject, reason, h};
}

}  // namespace

Header decode_header(std::span<const std::uint8_t> bytes) {
  assert(bytes.size() >= kHeaderSize);
  return Header{load_be<std::uint64_t>(bytes.data() + kSequenceOffset),
                load_be<std::uint16_t>(bytes.data() + kFlagsOffset),
                load_be<std::uint32_t>(bytes.data() + kLengthOffset)};
}

void encode_header(const Header& h, std::span<std::uint8_t> out) {
  assert(out.size() >= kHeaderSize);
  store_be(h.sequence, out.data() + kSequenceOffset);
  store_be(h.flags, out.data() + kFlagsOffset);
  store_be(h.length, out.data() + kLengthOffset);
}

std::string_view reject_name(Reject r) {
  switch (r) {
    case Reject::truncated:
      return "truncated";
    case Reject::bad_length:
      return "bad_length";
    case Reject::oversized:
      return "oversized";
    case Reject::length_mismatch:
      return "length_mismatch";
    case Reject::not_client:
      return "not_client";
    case Reject::cut_off:
      return "cut_off";
  }
  return "unknown";
}

Verdict classify(const Header& h) {
  if ((h.flags & kFlagClient) == 0) return rejected(Reject::not_client, h);
  // sockperf's server tests warm-up before the pong flag: warm-up messages carry both.
  if ((h.flags & kFlagWarmup) != 0) return Verdict{VerdictKind::warmup, Reject::truncated, h};
  if ((h.flags & kFlagPongRequest) == 0)
    return Verdict{VerdictKind::no_reply, Reject::truncated, h};
  return Verdict{VerdictKind::answer, Reject::truncated, h};
}

Verdict classify_datagram(std::span<const std::uint8_t> bytes, std::size_t size) {
  if (size > kMaxMessageSize) return rejected(Reject::oversized);
  if (size < kHeaderSize || bytes.size() < kHeaderSize) return rejected(Reject::truncated);
  const Header h = decode_header(bytes);
  if (h.length < kHeaderSize) return rejected(Reject::bad_length, h);
  if (h.length > kMaxMessageSize) return rejected(Reject::oversized, h);
  if (h.length != size || bytes.size() != size) return rejected(Reject::length_mismatch, h);
  return classify(h);
}

void reply_in_place(std::span<std::uint8_t> message) {
  assert(message.size() >= kHeaderSize);
  std::uint8_t* flags = message.data() + kFlagsOffset;
  store_be(static_cast<std::uint16_t>(load_be<std::uint16_t>(flags) & ~kFlagClient), flags);
}

std::span<std::uint8_t> StreamFramer::write_space() {
  if (begin_ > 0) {
    // Keep only the unframed tail, at the front, so the rest of the buffer is free.
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  return std::span<std::uint8_t>(buffer_).subspan(end_);
}

void StreamFramer::commit(std::size_t n) {
  assert(n <= buffer_.size() - end_);
  end_ += n;
}

StreamFramer::Frame StreamFramer::next() {
  const std::size_t buffered = end_ - begin_;
  if (buffered < kHeaderSize) return Frame{};
  const Header h = decode_header(std::span<const std::uint8_t>(buffer_).subspan(begin_));
  if (h.length < kHeaderSize) return Frame{FrameKind::bad_length, {}, Reject::bad_length};
  if (h.length > kMaxMessageSize) return Frame{FrameKind::bad_length, {}, Reject::oversized};
  if (buffered < h.length) return Frame{};
  const auto message = std::span<std::uint8_t>(buffer_).subspan(begin_, h.length);
  begin_ += h.length;
  if (begin_ == end_) begin_ = end_ = 0;  // all framed: the next read starts at the front
  return Frame{FrameKind::message, message, Reject::bad_length};
}

}  // namespace irqmod::rt::sockperf
