// The receive side of the protocol stack, as far as the model needs it: a polled frame is looked
// up to its flow's socket (__udp4_lib_lookup) and queued there, or dropped when the socket's
// queue is full; after a poll's batch, each socket that got data wakes its waiter once.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/far/peer.hpp"
#include "sim/host/socket.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Stack {
 public:
  Stack(World& world, const Peers& peers, std::size_t flows);

  // Flow `flow`'s frames go to `socket`.
  void bind(std::uint32_t flow, Socket& socket) { socket_of_[flow] = &socket; }

  // One frame of a poll's batch, cleaned by the NAPI context `napi_id`.
  void receive(const Packet& packet, std::uint32_t napi_id);
  // The batch is over: wake the waiters of the sockets that got data.
  void end_batch();

 private:
  World& world_;
  const Peers& peers_;
  std::vector<Socket*> socket_of_;  // by flow
  std::vector<Socket*> touched_;    // sockets that got data in this batch (reserved at set-up)
};

}  // namespace irqmod::sim
