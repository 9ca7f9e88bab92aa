// What the far side of the link is, as the host sees it: each flow's sender, reached through an
// endpoint bound at set-up. The NIC and the stack do not know whether a flow's sender is a
// generator (which wants nothing back), an open-loop requester or a ping-pong client.
#pragma once

#include <cstdint>
#include <vector>

#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {

struct PeerEndpoint {
  // A reply to `request` reached the sender at `arrival_ns` (its last bit).
  void (*reply)(void* self, const Packet& request, std::int64_t arrival_ns) = nullptr;
  // A message of the flow was lost on the way (a full ring, a full socket queue). The books of
  // the run record it here, once per frame; the sender decides what it means.
  void (*lost)(void* self, std::uint32_t flow) = nullptr;
  void* self = nullptr;
  bool answered = false;  // the host's application answers this flow's messages
};

// One endpoint per flow, indexed by Packet::flow.
using Peers = std::vector<PeerEndpoint>;

inline void report_lost(const Peers& peers, std::uint32_t flow) {
  const PeerEndpoint& peer = peers[flow];
  if (peer.lost) peer.lost(peer.self, flow);
}

}  // namespace irqmod::sim
