// The Tx ring. See tx_queue.hpp.
#include "sim/nic/tx_queue.hpp"

namespace irqmod::sim {

TxQueue::TxQueue(World& world, std::uint32_t descriptors, Link& wire, const Peers& peers)
    : world_(world), ring_(descriptors), wire_(wire), peers_(peers) {}

void TxQueue::send_reply(const Packet& request) {
  const std::int64_t now_ns = ns_since_epoch(world_.now());
  while (!ring_.empty() && ring_.front() <= now_ns)
    ring_.pop();
  if (ring_.full()) {
    world_.report.drops.add(DropReason::tx_ring_full);
    report_lost(peers_, request.flow);
    return;
  }
  const std::int64_t peer_ps = wire_.transmit(now_ns * 1000, request.frame_bytes);
  ring_.push(wire_.free_at_ps() / 1000);
  ++sent_;
  const PeerEndpoint& peer = peers_[request.flow];
  if (peer.reply) peer.reply(peer.self, request, peer_ps / 1000);
}

}  // namespace irqmod::sim
