// One TCP connection of the model, as both ends share it: the host's receive side (net/) sends
// ACKs whose values the far sender reads here, in the order they were sent. A pure ACK frame
// carries no payload; the model keeps its acknowledgement number beside the frame instead of
// in it (Packet has no sequence field): the host pushes it as it sends the frame, the far end
// takes it when the frame arrives, and a frame dropped as it is sent (the newest) takes it back
// (cumulative ACKs: a lost one is made good by the next).
#pragma once

#include <cstdint>

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

}  // namespace irqmod::sim
