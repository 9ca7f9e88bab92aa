// A Tx descriptor ring on the wire back to the peer. A frame takes a descriptor until its last
// bit has left the wire (the descriptor is free then: Tx completions are not cleaned by the CPU in
// this mode), or is dropped (tx_ring_full) when none is free. The wire is shared by every Tx
// queue of the port: frames leave one after the other.
#pragma once

#include <cstdint>

#include "irqmod/sim/link.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/far/peer.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class TxQueue {
 public:
  TxQueue(World& world, std::uint32_t descriptors, Link& wire, const Peers& peers);

  // Sends the reply to `request` (same size, same flow) now; the peer gets it when its last bit
  // arrives. A full ring drops it and the flow's peer hears of the loss.
  void send_reply(const Packet& request);

  std::uint64_t sent() const { return sent_; }  // frames put on the wire
 private:
  World& world_;
  Ring<std::int64_t> ring_;  // frames on the ring: when each has left the wire, ns
  Link& wire_;
  const Peers& peers_;
  std::uint64_t sent_ = 0;
};

}  // namespace irqmod::sim
