// A Tx queue: the qdisc in front of it (txqueuelen packets, pfifo-like) and its descriptor ring on
// the wire back to the peer, which every Tx queue of the port shares (frames leave one after
// the other). A frame takes a descriptor and goes on the wire at once (the wire queues it behind
// the frames before), or waits in the qdisc while the ring is full (netif_tx_stop_queue), or is
// dropped when the qdisc is full too (qdisc_full; tx_ring_full with txqueuelen 0).
//
// When a descriptor is free again depends on nic.tx-interrupts:
//   off  when its frame has left the wire: nothing to clean (the first simulator's rule); the
//        qdisc then only lengthens the queue on the wire
//   on   when the NAPI poll of its vector has cleaned it: the descriptor is written back after
//        its frame left the wire (+ nic.dma-delay), which is a Tx cause of the vector under Tx
//        moderation; the poll cleans up to I40E_DEFAULT_IRQ_WORK = 256 completions (not counted
//        against the NAPI budget, as i40e_napi_poll, ixgbe_poll and enetc_poll do), frees their
//        descriptors and moves frames waiting in the qdisc onto the ring (netif_tx_wake_queue)
#pragma once

#include <cstdint>

#include "irqmod/sim/link.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// i40e's vsi->work_limit: I40E_DEFAULT_IRQ_WORK = 256 Tx completions per poll (ixgbe's
// IXGBE_DEFAULT_TX_WORK is 256 too).
inline constexpr std::uint32_t kTxCleanLimit = 256;

// The send buffer a frame is charged to (a socket's sk_wmem_alloc), told when the Tx path frees
// the frame (its completion, or a drop): an endpoint, so that the queue knows no socket.
struct SendOwner {
  void (*release)(void* self, std::uint32_t frame_bytes) = nullptr;
  void* self = nullptr;
  void release_send(std::uint32_t frame_bytes) const {
    if (self) release(self, frame_bytes);
  }
};

class TxQueue {
 public:
  // `forwarding`: the queue of a router's egress port (nic.ports = 2), whose drops are
  // egress_queue_full: the frame was received, not sent by an application.
  TxQueue(World& world, std::uint32_t index, std::uint32_t descriptors, std::uint32_t qdisc_packets,
          bool interrupts, Duration dma_delay, Link& wire, const Peers& peers,
          bool forwarding = false);

  std::uint32_t index() const { return index_; }

  // Sends the reply to `request` (same size, same flow) now; the peer gets it when its last bit
  // arrives. A full ring and qdisc drop it and the flow's peer hears of the loss. `owner`: the
  // send buffer the frame is charged to, released when the Tx path frees it.
  void send_reply(const Packet& request, SendOwner owner = {});

  // A sender waits for frames to be freed: without Tx interrupts the queue frees them when they
  // leave the wire, which then needs an event (with interrupts, NAPI's clean frees them).
  void watch_releases();

  // ---- completions (nic.tx-interrupts) ----
  bool interrupts() const { return interrupts_; }
  // The next descriptor written back at or before `until`, one at a time: its time, or none.
  std::optional<Instant> land_next(Instant until);
  // When the next descriptor is written back (Instant::max() when none is in flight).
  Instant next_writeback() const;
  struct Cleaned {
    std::uint32_t frames = 0;  // completions cleaned
    std::uint32_t bytes = 0;   // their frame bytes
    bool finished = true;      // no written-back completion left behind (the work limit)
  };
  // Completions written back and not cleaned yet.
  std::size_t written_back() const { return written_back_; }
  // Cleans up to kTxCleanLimit written-back completions now (the poll's Tx part).
  Cleaned clean();

  std::uint64_t sent() const { return sent_; }          // frames put on the wire
  std::size_t queued() const { return qdisc_.size(); }  // frames waiting in the qdisc
  std::uint64_t dropped() const { return dropped_; }    // frames the qdisc had no room for

 private:
  struct Frame {
    std::int64_t done_ns = 0;  // off: its last bit left the wire; on: its write-back
    std::uint32_t frame_bytes = 0;
    SendOwner owner{};  // whose send buffer it is charged to
  };
  struct Waiting {
    Packet request;
    SendOwner owner{};
  };
  void release_sent(std::int64_t now_ns);
  void put_on_ring(const Packet& request, SendOwner owner);
  static void free_frame(const Frame& frame) { frame.owner.release_send(frame.frame_bytes); }
  void on_event(const Event& event);

  World& world_;
  std::uint32_t index_;
  bool interrupts_;
  bool forwarding_;
  Duration dma_delay_;
  Ring<Frame> ring_;                  // descriptors in use, oldest first
  std::size_t written_back_ = 0;      // of them, the oldest ones written back and not yet cleaned
  Ring<Waiting> qdisc_;               // frames waiting for a descriptor
  std::uint32_t qdisc_capacity_ = 0;  // txqueuelen
  Link& wire_;
  const Peers& peers_;
  std::uint64_t sent_ = 0;
  std::uint64_t dropped_ = 0;
  EndpointId endpoint_{};
  SlotId release_watch_{};  // the head frame leaves the wire while a sender waits
};

}  // namespace irqmod::sim
