// Stack receive path. See stack.hpp.
#include "sim/host/stack.hpp"

#include <algorithm>

namespace irqmod::sim {

Stack::Stack(World& world, const Peers& peers, std::size_t flows)
    : world_(world), peers_(peers), socket_of_(flows, nullptr) {
  touched_.reserve(flows);
}

void Stack::receive(const Packet& packet, std::uint32_t napi_id) {
  Socket& socket = *socket_of_[packet.flow];
  if (!socket.deliver(packet)) {
    world_.report.drops.add(DropReason::socket_queue_full);
    report_lost(peers_, packet.flow);
    return;
  }
  socket.set_napi_id(napi_id);
  if (std::find(touched_.begin(), touched_.end(), &socket) == touched_.end()) {
    touched_.push_back(&socket);
  }
}

void Stack::end_batch() {
  // Waking can run the waiter's code, which may poll again: take the list first.
  while (!touched_.empty()) {
    Socket* socket = touched_.back();
    touched_.pop_back();
    socket->notify();
  }
}

}  // namespace irqmod::sim
