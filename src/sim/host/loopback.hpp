// The loopback device (drivers/net/loopback.c, Linux 6.18; docs/research/veth-loopback.md §4):
// loopback_xmit hands the frame to __netif_rx, which queues it on the *sending* core's backlog
// (enqueue_to_backlog(skb, smp_processor_id())) and schedules that core's backlog NAPI; the
// softirq then runs process_backlog (weight_p = 64 per poll, no GRO, one frame at a time) on that
// core, at the end of the sender's send (local_bh_enable). Frames through the backlog carry no
// NAPI id (skb->napi_id shares a union with sender_cpu, an invalid id), so a socket that received
// them has none and busy polling does nothing for it (sk_busy_loop and epoll skip invalid ids).
// A full backlog (net.core.netdev_max_backlog) drops the frame (softnet_stat's second column).
#pragma once

#include <cstdint>
#include <vector>

#include "irqmod/sim/traffic.hpp"
#include "sim/host/backlog.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Loopback {
 public:
  // `backlogs`: every core's backlog, by core; `peers`: who hears of a dropped frame.
  Loopback(World& world, std::vector<Backlog*> backlogs, const Peers& peers)
      : world_(world), backlogs_(std::move(backlogs)), peers_(peers) {}

  // loopback_xmit on `core`, the frame for backlog target `target` (the stack of the
  // receiving socket). False when the backlog was full and the frame dropped.
  bool xmit(const Packet& packet, std::uint32_t core, std::uint8_t target) {
    if (backlogs_[core]->enqueue(packet, 0, target)) {
      ++sent_;
      return true;
    }
    ++dropped_;
    world_.report.drops.add(DropReason::backlog_full);
    report_lost(peers_, packet.flow);
    return false;
  }

  std::uint64_t sent() const { return sent_; }        // frames queued on a backlog
  std::uint64_t dropped() const { return dropped_; }  // refused by a full backlog

 private:
  World& world_;
  std::vector<Backlog*> backlogs_;
  const Peers& peers_;
  std::uint64_t sent_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace irqmod::sim
