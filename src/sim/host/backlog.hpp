// A core's receive backlog (napi.rx-backlog): the driver's poll hands each frame to a per-core
// queue instead of to the stack, and the stack's work runs later, in the backlog's own poll.
//   Linux:   netif_rx() enqueues to softnet_data.input_pkt_queue (at most
//            net.core.netdev_max_backlog frames, else the softnet "dropped" counter) and
//            schedules the backlog NAPI context, whose poll (process_backlog) runs the stack.
//   OpenBSD: ether_input() enqueues to ipintrq (IFQ_MAXLEN = 256, else ipintrq drops) and
//            schedules the IP soft interrupt, whose ipintr() runs ip_input / ip_forward. The
//            device interrupt is re-enabled as soon as the driver's part is done, so it can come
//            back while softnet still works: what seed 004's storm needs.
// The backlog is a NAPI context of its core's poll list (NET_RX polls it like a device's), with
// the weight of napi.weight. Its CPU time is the stack's work that the device poll left out: the
// route lookup and output of a forwarded frame (cpu.forward); behind a NIC (napi.rx-backlog) a
// frame for a local socket costs nothing more here (cpu.rx-packet charged the whole receive path
// in the device poll). Behind loopback (host/loopback.hpp), whose netif_rx is the device's whole
// receive side, the poll pays process_backlog's fixed part and the receive stack per frame.
#pragma once

#include <cstdint>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Stack;

// What a backlog poll costs.
struct BacklogCosts {
  Distribution poll{};     // process_backlog's fixed part (loopback: cpu.backlog-poll)
  Distribution packet{};   // per frame: the receive stack (loopback: cpu.rx-packet)
  Distribution forward{};  // per frame routed out of the other port (cpu.forward)
};

class Backlog {
 public:
  // `capacity`: napi.netdev_max_backlog; `weight`: frames per poll.
  Backlog(World& world, NetRx& net_rx, Stack& stack, std::uint32_t capacity, int weight,
          BacklogCosts costs);
  Backlog(const Backlog&) = delete;
  Backlog& operator=(const Backlog&) = delete;

  // Another stack its frames may go up (loopback between two namespaces' sockets): its index
  // for enqueue(). The constructor's stack is 0.
  std::uint8_t add_target(Stack& stack) {
    targets_.push_back(&stack);
    return static_cast<std::uint8_t>(targets_.size() - 1);
  }
  // A frame the device poll of NAPI context `napi_id` took (0: none, netif_rx from a software
  // device), for stack `target`: queued, and the backlog scheduled; false when the queue is full
  // (the caller drops it).
  bool enqueue(const Packet& packet, std::uint32_t napi_id, std::uint8_t target = 0);
  std::size_t size() const { return queue_.size(); }

  // ---- NAPI as net_rx_action sees it ----
  bool take(const Core& core) const { return scheduled_ && core.index() == net_rx_.core().index(); }
  Duration poll_begin(Core& core);
  int poll_end(Core& core);

 private:
  static const NapiOps kNapiOps;
  NapiRef napi_ref() { return NapiRef{&kNapiOps, this}; }

  struct Queued {
    Packet packet;
    std::uint32_t napi_id = 0;  // the device context that received it (sk_napi_id)
    std::uint8_t target = 0;    // the stack it goes up
  };
  World& world_;
  NetRx& net_rx_;
  std::vector<Stack*> targets_;
  Ring<Queued> queue_;
  int weight_;
  BacklogCosts costs_;
  bool scheduled_ = false;
  int polling_ = 0;  // frames the running poll took
};

}  // namespace irqmod::sim
