// A NIC port: the receive side of the link (the peer's frames, serialised on the wire, written
// back after nic.dma-delay) and its transmit wire back to the peer. Frames are not events: the
// port lands every frame that has arrived up to the time of whatever event is handled next, in
// arrival order, each into its queue, and with nic.tx-interrupts the Tx completions written back
// meanwhile, in time order with them. It schedules an event at the next write-back only while a
// vector must react to it (armed with nothing due), and one per single frame a peer sends (a
// ping-pong request), which is landed at its write-back.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/sim/link.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/nic/arrivals.hpp"
#include "sim/nic/queue_vector.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Port {
 public:
  Port(World& world, std::uint64_t link_bps, Duration dma_delay);
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  // The generators whose frames arrive on this port (the builder adds them, then start()).
  LinkArrivals& arrivals() { return arrivals_; }
  void start() {
    if (!arrivals_.empty()) arrivals_.start();
  }
  // The Rx queues' vectors by queue, and each 4-tuple's queue (RSS or a flow rule).
  void set_queues(std::vector<QueueVector*> queues, std::vector<std::uint16_t> queue_of_tuple) {
    queues_ = std::move(queues);
    queue_of_tuple_ = std::move(queue_of_tuple);
  }
  // A Tx queue whose completions interrupt `vector` (nic.tx-interrupts): its write-backs are
  // landed like arrivals.
  void add_tx_completions(TxQueue& queue, QueueVector& vector) {
    tx_.push_back(TxCompletions{&queue, &vector});
  }

  // A single frame a peer sends (its last bit reaches the port at packet.arrival_ns): it is
  // written back after the DMA delay, with an event of its own.
  void inject(const Packet& packet);

  // Lands every frame written back up to `until`.
  void land(Instant until);
  // When the next frame is written back (Instant::max() when none will be).
  Instant next_writeback() const;
  // After every event: an event at the next write-back while a queue must react to it.
  void update_watch();

  const Link& link() const { return link_; }
  Link& tx_wire() { return tx_wire_; }
  Duration dma_delay() const { return dma_delay_; }
  LazyArrivals lazy_arrivals();

 private:
  void on_event(const Event& event);
  void land_merged(Instant until);
  Instant next_tx_writeback() const;
  QueueVector& queue_of(const Packet& p) { return *queues_[queue_of_tuple_[p.flow]]; }

  World& world_;
  Link link_;     // peer -> port
  Link tx_wire_;  // port -> peer
  Duration dma_delay_;
  LinkArrivals arrivals_;
  std::vector<QueueVector*> queues_;
  std::vector<std::uint16_t> queue_of_tuple_;
  struct TxCompletions {
    TxQueue* queue;
    QueueVector* vector;
  };
  std::vector<TxCompletions> tx_;
  struct Injected {
    Packet packet;
    Instant writeback;
    bool pending = false;
  };
  std::vector<Injected> injected_;         // single frames in flight; slots are reused
  std::vector<std::uint32_t> free_slots_;  // injected_'s slots not pending
  EndpointId endpoint_{};
  SlotId watch_{};
};

}  // namespace irqmod::sim
