// sockperf's wire format, decoded and answered without any socket (issue 5 item 1).
//
// Every sockperf message starts with a 14-byte header in network byte order, as sockperf 3.7's
// MsgHeader (src/message.h, `#pragma pack(2)`, EFFECTIVE_SIZE = 8 + 2 + 4):
//   bytes 0..7   sequence number (u64)
//   bytes 8..9   flags (u16): 1 = sent by a client, 2 = pong requested, 4 = warm-up
//   bytes 10..13 total message length, header included (u32)
// A server answers a client's pong request by sending the same bytes back with the client flag
// cleared (sockperf's Server::handle_message: setServer(), reply of getLength() bytes). It never
// answers warm-up messages, messages without the pong flag (under-load and throughput modes send
// most or all of those) or messages that are not from a client.
//
// Over UDP a message is one datagram; over TCP messages follow each other in the byte stream and
// the length field frames them (StreamFramer below). Both paths are pure: bytes in, a verdict out.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace irqmod::rt::sockperf {

// Header size in bytes: sockperf's MsgHeader::EFFECTIVE_SIZE (u64 + u16 + u32).
inline constexpr std::size_t kHeaderSize = 14;
// Largest message, header included: sockperf's MAX_PAYLOAD_SIZE, the largest UDP payload over
// IPv4 (65535 - 20 IP - 8 UDP). sockperf's client refuses larger --msg-size values.
inline constexpr std::size_t kMaxMessageSize = 65507;

// Flag bits (sockperf's MsgHeader::MASK_CLIENT, MASK_PONG, MASK_WARMUP_MSG).
inline constexpr std::uint16_t kFlagClient = 1;
inline constexpr std::uint16_t kFlagPongRequest = 2;
inline constexpr std::uint16_t kFlagWarmup = 4;

struct Header {
  std::uint64_t sequence = 0;  // the client's sequence number, echoed in the reply
  std::uint16_t flags = 0;     // kFlag* bits
  std::uint32_t length = 0;    // bytes in the whole message, header included
};

// Reads the header from the first kHeaderSize bytes (precondition: bytes.size() >= kHeaderSize).
Header decode_header(std::span<const std::uint8_t> bytes);
// Writes `h` into the first kHeaderSize bytes (precondition: out.size() >= kHeaderSize).
void encode_header(const Header& h, std::span<std::uint8_t> out);

// Why a message was dropped without an answer because it is not a usable sockperf message.
enum class Reject : std::uint8_t {
  truncated,        // fewer bytes than the 14-byte header
  bad_length,       // length field below the header size
  oversized,        // length field or datagram above kMaxMessageSize
  length_mismatch,  // UDP: the length field is not the datagram's size
  not_client,       // the client flag is clear: a server's reply or not sockperf at all
  cut_off,          // TCP: the connection ended in the middle of a message
};
inline constexpr std::size_t kRejectReasons = 6;
// Stable lower-case names, used in the text and JSON statistics.
std::string_view reject_name(Reject r);

// What the server does with one received message.
enum class VerdictKind : std::uint8_t {
  answer,    // a pong request: send it back (reply_in_place has prepared it)
  warmup,    // a warm-up message: never answered
  no_reply,  // a valid message that asks for no pong (under-load filler, throughput mode)
  reject,    // not a usable sockperf message; see Verdict::reason
};

struct Verdict {
  VerdictKind kind = VerdictKind::reject;
  Reject reason = Reject::truncated;  // meaningful only for VerdictKind::reject
  Header header{};                    // decoded when the message had a whole header
};

// Classifies one complete message whose length field has already been checked against its size
// (a UDP datagram or a framed TCP message): warm-up, no-reply, not-client or answer.
Verdict classify(const Header& h);

// Classifies one UDP datagram of `size` bytes, of which `bytes` were received (a datagram larger
// than the receive buffer reports its real size through MSG_TRUNC, so size > bytes.size()).
Verdict classify_datagram(std::span<const std::uint8_t> bytes, std::size_t size);

// Turns a received pong request into its reply, in place: clears the client flag and keeps the
// sequence number, the other flags, the length and the payload (sockperf's setServer()).
void reply_in_place(std::span<std::uint8_t> message);

// Splits a TCP byte stream into sockperf messages by their length field, in a fixed buffer of
// kMaxMessageSize bytes (memory per connection is bounded whatever the peer sends).
//
//   auto space = framer.write_space();    // read(2) into it, then
//   framer.commit(n);
//   while ((f = framer.next()).kind == FrameKind::message) handle(f.message);
//   if (f.kind == FrameKind::bad_length) close the connection;
// A message span stays valid until the next call to next(), write_space() or commit().
class StreamFramer {
 public:
  enum class FrameKind : std::uint8_t {
    message,     // a whole message, header included, in Frame::message
    need_more,   // no whole message buffered yet
    bad_length,  // the length field is below the header size or above kMaxMessageSize
  };
  struct Frame {
    FrameKind kind = FrameKind::need_more;
    std::span<std::uint8_t> message{};
    Reject reason = Reject::bad_length;  // bad_length or oversized when kind == bad_length
  };

  // Free space after the buffered bytes; moves a partial message to the front first. Never empty
  // while the stream is healthy: a partial message is shorter than the buffer.
  std::span<std::uint8_t> write_space();
  // `n` bytes were written into the last write_space() (precondition: n <= its size).
  void commit(std::size_t n);
  // The next whole message, or why there is none.
  Frame next();
  // Bytes of a message begun but not finished (a peer that closes now cut one off).
  std::size_t partial_bytes() const { return end_ - begin_; }

 private:
  std::array<std::uint8_t, kMaxMessageSize> buffer_{};
  std::size_t begin_ = 0;  // first byte not yet framed
  std::size_t end_ = 0;    // one past the last received byte
};

}  // namespace irqmod::rt::sockperf
