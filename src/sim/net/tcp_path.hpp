// One TCP connection of the model, as both ends share it: the host's receive side (net/) sends
// ACKs whose values the far sender reads here, in the order they were sent. A pure ACK frame
// carries no payload; the model keeps its acknowledgement number beside the frame instead of
// in it (Packet has no sequence field): the host pushes it as it sends the frame, the far end
// takes it when the frame arrives, and a frame dropped as it is sent (the newest) takes it back
// (cumulative ACKs: a lost one is made good by the next).
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/sim/ring.hpp"

namespace irqmod::sim {

// 14 Ethernet + 20 IP + 32 TCP (timestamps) + 4 FCS: a pure ACK; a data frame adds its payload.
inline constexpr std::uint32_t kTcpFrameOverhead = 70;

// ACK frames one connection may have in flight: more than a Tx ring and its qdisc hold.
inline constexpr std::size_t kTcpAcksInFlight = 4096;

struct TcpPath {
  explicit TcpPath(std::size_t acks_in_flight) : acks(acks_in_flight) {}
  Ring<std::uint64_t> acks;  // acknowledged bytes of each ACK frame in flight, oldest first
};

// The other direction (the host sends, traffic.kind = "tcp-stream"): the far receiver's ACK
// frames reach the host's port, and frames can be lost there (a full Rx ring) with no word to the
// far end, so each ACK's value is kept with the time its frame reaches the port: the host takes
// the value of the frame it processes and drops the older ones, lost on the way (cumulative
// ACKs). The far end counts the data segments the host's Tx path dropped, for the host's sender
// to send again.
struct TcpReturnPath {
  struct Stamp {
    std::int64_t arrival_ns = 0;  // the ACK frame's last bit at the host's port
    std::uint64_t acked = 0;      // its acknowledgement: bytes received in order
  };
  explicit TcpReturnPath(std::size_t acks_in_flight) : acks(acks_in_flight) {}

  // The value of the ACK frame that reached the port at `arrival_ns`; older ones are dropped.
  std::optional<std::uint64_t> take(std::int64_t arrival_ns) {
    std::optional<std::uint64_t> value;
    while (!acks.empty() && acks.front().arrival_ns <= arrival_ns) {
      value = acks.front().acked;
      acks.pop();
    }
    return value;
  }

  Ring<Stamp> acks;                 // ACK frames on the way, oldest first
  std::uint64_t lost_segments = 0;  // data segments the host's Tx path dropped, not yet resent
};

}  // namespace irqmod::sim
