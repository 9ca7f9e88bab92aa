// The frames the stack sends from softirq context on one core: a TCP sender's GSO skbs (sent when
// an ACK opens the window, tcp_ack -> tcp_data_snd_check -> tcp_write_xmit, or when the
// application wrote) and ICMP echo replies (icmp_echo answers in the receive softirq). It is a
// softirq-level job of the core, run after the work that queued them (the NET_RX pass that took
// the ACK or the echo request, as a tasklet runs after NET_RX in __do_softirq): its segment is
// charged the transmissions, and the frames go to the Tx queues at its end.
//
// Costs: cpu.tx-packet per skb handed to the IP layer (tcp_transmit_skb or icmp_reply, to the
// qdisc and the driver), and for an skb of several segments cpu.gso-segment per segment
// (skb_gso_segment's copy of the headers, the per-segment checksum and driver transmit: enetc
// has no TSO in 5.8).
//
// Left out, and said so: a write's transmissions are charged here as softirq time on the writer's
// core, where Linux charges them to the writing thread (tcp_push from tcp_sendmsg): the same core
// and the same time, another context kind.
#pragma once

#include <cstdint>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/core.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Stack;

struct SoftirqTxCosts {
  Distribution tx_packet{};    // cpu.tx-packet: per skb
  Distribution gso_segment{};  // cpu.gso-segment: per segment of a GSO skb
};

class SoftirqTx {
 public:
  SoftirqTx(World& world, Core& core, Stack& stack, SoftirqTxCosts costs);
  SoftirqTx(const SoftirqTx&) = delete;
  SoftirqTx& operator=(const SoftirqTx&) = delete;

  // A GSO skb of connection `tuple`: `segments` frames of `frame_bytes`.
  void add_skb(std::uint32_t tuple, std::uint32_t segments, std::uint32_t frame_bytes);
  // The echo reply to `request` (same size, same flow).
  void add_reply(const Packet& request);
  // A pure ACK (kTcpFrameOverhead bytes) for `segment`, on its flow.
  void add_ack(const Packet& segment);

  std::uint64_t skbs() const { return skbs_; }          // skbs sent
  std::uint64_t segments() const { return segments_; }  // frames they made
  std::uint64_t added() const { return added_; }        // frames given to it (Tx books)
  // Frames of the skbs still waiting for the pass (Tx books).
  std::uint64_t waiting() const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < items_.size(); ++i)
      n += items_[i].segments;
    return n;
  }

  // The job on its core.
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  struct Item {
    Packet frame;                // the frame (each segment of a GSO skb is one like it)
    std::uint32_t segments = 1;  // frames of the skb
  };
  void add(const Item& item);
  void on_event(const Event& event);

  World& world_;
  Core& core_;
  Stack& stack_;
  SoftirqTxCosts costs_;
  Ring<Item> items_{4096};
  std::size_t charged_ = 0;  // items the running segment is charged for
  bool queued_ = false;      // the job is on the core's stack, or about to be pushed
  EndpointId endpoint_{};
  SlotId push_{};
  std::uint64_t skbs_ = 0;
  std::uint64_t segments_ = 0;
  std::uint64_t added_ = 0;
};

}  // namespace irqmod::sim
