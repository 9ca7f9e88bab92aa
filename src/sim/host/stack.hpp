// The protocol stack, as far as the model needs it.
//
// Receive: a polled frame is looked up to its socket (__udp4_lib_lookup): the socket of the
// thread its flow names, or, for a flow delivered to the incoming CPU (SO_INCOMING_CPU in a
// SO_REUSEPORT group), the socket of a thread pinned to the core whose poll received it. The
// frame is queued there or dropped when the queue is full; after a poll's batch, each socket that
// got data wakes its waiter once.
//
// Forward (nic.ports = 2, traffic.forward): a frame of a routed flow is not looked up to a socket
// but sent out of the egress port's Tx queue at once, in the poll that received it (ip_forward
// to the driver's xmit, all in the receiving context as on Linux and OpenBSD); its CPU time is
// the poll's (cpu.forward). The flow's peer is then the receiver behind the egress port.
//
// Taken by the stack itself: the ACKs of the host's own TCP senders (TcpHost handles them in the
// poll; the frame ends there) and ICMP echo requests, answered from the softirq (icmp_echo) by the
// receiving core's SoftirqTx.
//
// Send: netdev_pick_tx chooses the Tx queue: the one XPS maps to the sending core (i40e and ixgbe
// map queue i to the i-th CPU: i40e_config_xps_tx_ring, ixgbe_configure_tx_ring), else by the
// flow's hash (skb_tx_hash).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/host/backlog.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/softirq_tx.hpp"
#include "sim/host/tcp_host.hpp"
#include "sim/napi/device.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/ring_clean.hpp"
#include "sim/nic/tx_queue.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// A software device's transmit (veth's or loopback's xmit), which the stack uses instead of Tx
// queues when one is set: the frame, and the core whose send it is part of. False when the
// device dropped it.
struct DeviceXmit {
  bool (*xmit)(void* self, const Packet& frame, std::uint32_t core) = nullptr;
  void* self = nullptr;
};

class Stack {
 public:
  // `tuples`: the flows' 4-tuples (Packet::flow); `cores`: the host's cores.
  Stack(World& world, const Peers& peers, std::size_t tuples, std::size_t cores);

  // Tuple `tuple`'s frames go to `socket`, or with `incoming_cpu` to the socket of a thread on
  // the receiving core when there is one. `hash`: the tuple's RSS hash (skb_tx_hash's input).
  void bind(std::uint32_t tuple, Socket& socket, bool incoming_cpu, std::uint32_t hash);
  // Tuple `tuple` is routed out of the egress port (its frames reach no socket).
  void bind_forward(std::uint32_t tuple, std::uint32_t hash);
  bool forwards(std::uint32_t tuple) const { return routes_[tuple].forward; }
  // Tuple `tuple`'s frames end in the stack: TCP ACKs for the host's senders, or (`echo`) ICMP
  // echo requests, each answered by the receiving core's SoftirqTx.
  // `hash`: the tuple's hash, which picks the replies' Tx queue (skb_tx_hash).
  void bind_stack(std::uint32_t tuple, bool echo, std::uint32_t hash) {
    routes_[tuple] = Route{nullptr, false, false, hash, routes_[tuple].tx_queue, true, echo};
  }
  // `tuple` carries copies of a TCP connection's segments the socket has already (a client's
  // loss probes): TCP drops each and acknowledges at once (tcp_data_queue: a retransmit forces
  // an immediate ACK), from the receiving core's SoftirqTx.
  void bind_duplicates(std::uint32_t tuple, std::uint32_t hash) {
    bind_stack(tuple, false, hash);
    routes_[tuple].dup_ack = true;
  }
  // The cores' softirq transmitters, by core (set when a flow needs them).
  void set_softirq_tx(std::vector<SoftirqTx*> tx) { softirq_tx_ = std::move(tx); }
  SoftirqTx& softirq_tx(std::uint32_t core) { return *softirq_tx_[core]; }
  bool forwarding() const { return !egress_queues_.empty(); }
  // `socket`'s thread is pinned to `core`: it is that core's member of the reuseport group.
  void bind_core(std::uint32_t core, Socket& socket);
  // The Tx queues, by queue number; `xps`: queue i belongs to core i (nic.xps).
  void set_tx_queues(std::vector<TxQueue*> queues, bool xps = true) {
    tx_queues_ = std::move(queues);
    xps_ = xps;
  }
  // Tuple `tuple` leaves by Tx queue `queue` whatever the core (traffic.tx-steering = "queue").
  void pin_tx_queue(std::uint32_t tuple, std::uint32_t queue) {
    routes_[tuple].tx_queue = static_cast<std::int32_t>(queue);
  }
  // Frames leave through `xmit` (a software device) instead of Tx queues.
  void set_device_xmit(DeviceXmit xmit) { device_ = xmit; }
  // The egress port's Tx queues (nic.ports = 2), by queue number.
  void set_egress_queues(std::vector<TxQueue*> queues) { egress_queues_ = std::move(queues); }

  // One frame of a poll's batch, cleaned by NAPI context `napi_id` on `core`: up the stack now,
  // or (napi.rx-backlog) onto the core's backlog, dropped when it is full.
  void receive(const Packet& packet, std::uint32_t napi_id, std::uint32_t core);
  // Up the stack: routed out of the egress port, or queued on its socket.
  void deliver(const Packet& packet, std::uint32_t napi_id, std::uint32_t core);
  // The cores' backlogs (napi.rx-backlog), by core.
  void set_backlogs(std::vector<Backlog*> backlogs) { backlogs_ = std::move(backlogs); }
  bool deferred() const { return !backlogs_.empty(); }
  // The batch is over: wake the waiters of the sockets that got data.
  void end_batch();

  // The device's side of a poll (RxStack, the endpoint the driver's clean holds): the stack's
  // work on the frames a poll took, planned as it takes them (TCP's GRO skbs and ACK decisions,
  // the frames routed out); each frame up the stack; the batch's end (the planned ACKs, then the
  // waiters).
  StackWork plan(const Ring<Packet>& polled, std::size_t first, int taken, std::uint32_t core,
                 std::vector<std::uint32_t>& planned);
  void end_poll_batch(std::vector<std::uint32_t>& planned);
  RxStack rx_endpoint();

  // The host's TCP connections (traffic.kind = "tcp-maerts"), or none.
  void set_tcp(TcpHost* tcp) { tcp_ = tcp; }
  TcpHost* tcp() { return tcp_; }
  // A frame the stack makes itself (a TCP ACK of connection `tuple`) leaves from `core`.
  void send_frame(std::uint32_t tuple, const Packet& frame, std::uint32_t core) {
    ++tx_made_;
    if (device_.xmit) {
      device_.xmit(device_.self, frame, core);
      return;
    }
    pick_tx(tx_queues_, tuple, core).send_reply(frame);
  }
  // Frames the stack handed to the Tx queues (replies, its own frames, forwarded ones): the Tx
  // books' entries.
  std::uint64_t tx_made() const { return tx_made_; }

  // Sends the reply to `request` from a thread on `core`, charged to `from`'s send buffer; false
  // when it does not fit there (nothing is sent: the thread waits for `from`'s send waiter).
  // Through a software device the send buffer is not charged (the model frees a frame when the
  // device has taken it, so it cannot fill).
  bool send_reply(const Packet& request, std::uint32_t core, Socket* from = nullptr);

 private:
  struct Route {
    Socket* socket = nullptr;
    bool incoming_cpu = false;
    bool forward = false;
    std::uint32_t hash = 0;
    std::int32_t tx_queue = -1;  // pinned Tx queue, or -1 (netdev_pick_tx)
    bool by_stack = false;       // the frame ends in the stack (bind_stack)
    bool echo = false;           // ... and is answered (an ICMP echo request)
    bool dup_ack = false;        // ... or acknowledged (a TCP segment received twice)
  };
  // netdev_pick_tx among `queues`: XPS maps queue i to core i, else the flow's hash.
  TxQueue& pick_tx(const std::vector<TxQueue*>& queues, std::uint32_t tuple,
                   std::uint32_t core) const;

  World& world_;
  const Peers& peers_;
  std::uint64_t tx_made_ = 0;
  std::vector<Route> routes_;          // by tuple
  std::vector<Socket*> core_sockets_;  // by core: the reuseport group's member there, if any
  std::vector<Socket*> touched_;       // sockets that got data in this batch (reserved)
  std::vector<TxQueue*> tx_queues_;
  bool xps_ = true;
  std::vector<TxQueue*> egress_queues_;
  DeviceXmit device_{};
  std::vector<Backlog*> backlogs_;
  TcpHost* tcp_ = nullptr;
  std::vector<SoftirqTx*> softirq_tx_;  // by core
};

}  // namespace irqmod::sim
