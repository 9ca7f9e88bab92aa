// The Tx queue. See tx_queue.hpp.
#include "sim/nic/tx_queue.hpp"

#include <algorithm>

namespace irqmod::sim {

TxQueue::TxQueue(World& world, std::uint32_t index, std::uint32_t descriptors,
                 std::uint32_t qdisc_packets, bool interrupts, Duration dma_delay, Link& wire,
                 const Peers& peers, bool forwarding)
    : world_(world),
      index_(index),
      interrupts_(interrupts),
      forwarding_(forwarding),
      dma_delay_(dma_delay),
      // Without Tx interrupts the qdisc's frames can go on the wire at once: it is a FIFO behind
      // the ring's frames, and a descriptor frees exactly when the frame before it has left.
      ring_(interrupts ? descriptors : descriptors + qdisc_packets),
      qdisc_(std::max<std::uint32_t>(qdisc_packets, 1)),
      qdisc_capacity_(qdisc_packets),
      wire_(wire),
      peers_(peers) {
  endpoint_ = world_.engine.bind<&TxQueue::on_event>(*this);
  release_watch_ = world_.engine.make_slot();
}

// Without Tx interrupts a descriptor is free once its frame has left the wire.
void TxQueue::release_sent(std::int64_t now_ns) {
  if (interrupts_) return;
  while (!ring_.empty() && ring_.front().done_ns <= now_ns) {
    free_frame(ring_.front());
    ring_.pop();
  }
}

void TxQueue::watch_releases() {
  if (interrupts_ || ring_.empty()) return;
  world_.engine.arm(release_watch_, std::max(at_ns(ring_.front().done_ns), world_.now()), endpoint_,
                    1);
}

// The head frame left the wire while a sender waited: free what has left; keep watching while
// frames are in flight (a woken sender may block again on the next ones).
void TxQueue::on_event(const Event&) {
  release_sent(ns_since_epoch(world_.now()));
  watch_releases();
}

void TxQueue::put_on_ring(const Packet& request, SendOwner owner) {
  const std::int64_t now_ns = ns_since_epoch(world_.now());
  const std::int64_t peer_ps = wire_.transmit(now_ns * 1000, request.frame_bytes);
  const std::int64_t left_ns = wire_.free_at_ps() / 1000;
  ring_.push(
      Frame{interrupts_ ? left_ns + dma_delay_.count() : left_ns, request.frame_bytes, owner});
  ++sent_;
  const PeerEndpoint& peer = peers_[request.flow];
  if (peer.reply) peer.reply(peer.self, request, peer_ps / 1000);
}

void TxQueue::send_reply(const Packet& request, SendOwner owner) {
  release_sent(ns_since_epoch(world_.now()));
  if (!ring_.full() && qdisc_.empty()) {
    put_on_ring(request,
                owner);  // without interrupts: a descriptor, or the qdisc ahead of the wire
    return;
  }
  if (interrupts_ && qdisc_.size() < qdisc_capacity_) {
    qdisc_.push(Waiting{request, owner});  // waits for a clean to free a descriptor
    return;
  }
  owner.release_send(request.frame_bytes);  // the qdisc frees the skb it drops
  ++dropped_;
  world_.report.drops.add(forwarding_            ? DropReason::egress_queue_full
                          : qdisc_capacity_ == 0 ? DropReason::tx_ring_full
                                                 : DropReason::qdisc_full);
  report_lost(peers_, request.flow);
}

std::optional<Instant> TxQueue::land_next(Instant until) {
  if (written_back_ == ring_.size()) return std::nullopt;
  const std::int64_t at = ring_[written_back_].done_ns;
  if (at > ns_since_epoch(until)) return std::nullopt;
  ++written_back_;
  return at_ns(at);
}

Instant TxQueue::next_writeback() const {
  if (!interrupts_ || written_back_ == ring_.size()) return Instant::max();
  return at_ns(ring_[written_back_].done_ns);
}

TxQueue::Cleaned TxQueue::clean() {
  Cleaned cleaned;
  const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(written_back_, kTxCleanLimit));
  for (std::uint32_t i = 0; i < n; ++i) {
    cleaned.bytes += ring_.front().frame_bytes;
    free_frame(ring_.front());
    ring_.pop();
  }
  written_back_ -= n;
  cleaned.frames = n;
  cleaned.finished = written_back_ == 0;
  while (!qdisc_.empty() && !ring_.full()) {
    put_on_ring(qdisc_.front().request, qdisc_.front().owner);
    qdisc_.pop();
  }
  return cleaned;
}

}  // namespace irqmod::sim
