// The protocol stack, as far as the model needs it.
//
// Receive: a polled frame is looked up to its socket (__udp4_lib_lookup): the socket of the
// thread its flow names, or, for a flow delivered to the incoming CPU (SO_INCOMING_CPU in a
// SO_REUSEPORT group), the socket of a thread pinned to the core whose poll received it. The
// frame is queued there or dropped when the queue is full; after a poll's batch, each socket that
// got data wakes its waiter once.
//
// Send: netdev_pick_tx chooses the Tx queue: the one XPS maps to the sending core (i40e and ixgbe
// map queue i to the i-th CPU: i40e_config_xps_tx_ring, ixgbe_configure_tx_ring), else by the
// flow's hash (skb_tx_hash).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/far/peer.hpp"
#include "sim/host/socket.hpp"
#include "sim/nic/tx_queue.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Stack {
 public:
  // `tuples`: the flows' 4-tuples (Packet::flow); `cores`: the host's cores.
  Stack(World& world, const Peers& peers, std::size_t tuples, std::size_t cores);

  // Tuple `tuple`'s frames go to `socket`, or with `incoming_cpu` to the socket of a thread on
  // the receiving core when there is one. `hash`: the tuple's RSS hash (skb_tx_hash's input).
  void bind(std::uint32_t tuple, Socket& socket, bool incoming_cpu, std::uint32_t hash);
  // `socket`'s thread is pinned to `core`: it is that core's member of the reuseport group.
  void bind_core(std::uint32_t core, Socket& socket);
  // The Tx queues, by queue number.
  void set_tx_queues(std::vector<TxQueue*> queues) { tx_queues_ = std::move(queues); }

  // One frame of a poll's batch, cleaned by NAPI context `napi_id` on `core`.
  void receive(const Packet& packet, std::uint32_t napi_id, std::uint32_t core);
  // The batch is over: wake the waiters of the sockets that got data.
  void end_batch();

  // Sends the reply to `request` from a thread on `core`, charged to `from`'s send buffer; false
  // when it does not fit there (nothing is sent: the thread waits for `from`'s send waiter).
  bool send_reply(const Packet& request, std::uint32_t core, Socket* from = nullptr);

 private:
  struct Route {
    Socket* socket = nullptr;
    bool incoming_cpu = false;
    std::uint32_t hash = 0;
  };

  World& world_;
  const Peers& peers_;
  std::vector<Route> routes_;          // by tuple
  std::vector<Socket*> core_sockets_;  // by core: the reuseport group's member there, if any
  std::vector<Socket*> touched_;       // sockets that got data in this batch (reserved)
  std::vector<TxQueue*> tx_queues_;
};

}  // namespace irqmod::sim
