// Stack receive and send paths. See stack.hpp.
#include "sim/host/stack.hpp"

#include <algorithm>

namespace irqmod::sim {

Stack::Stack(World& world, const Peers& peers, std::size_t tuples, std::size_t cores)
    : world_(world), peers_(peers), routes_(tuples), core_sockets_(cores, nullptr) {
  touched_.reserve(64);
}

void Stack::bind(std::uint32_t tuple, Socket& socket, bool incoming_cpu, std::uint32_t hash) {
  routes_[tuple] = Route{&socket, incoming_cpu, false, hash, routes_[tuple].tx_queue};
}

void Stack::bind_forward(std::uint32_t tuple, std::uint32_t hash) {
  routes_[tuple] = Route{nullptr, false, true, hash, routes_[tuple].tx_queue};
}

void Stack::bind_core(std::uint32_t core, Socket& socket) {
  if (!core_sockets_[core]) core_sockets_[core] = &socket;
}

void Stack::receive(const Packet& packet, std::uint32_t napi_id, std::uint32_t core) {
  if (backlogs_.empty()) {
    deliver(packet, napi_id, core);
  } else if (!backlogs_[core]->enqueue(packet, napi_id)) {
    world_.report.drops.add(DropReason::backlog_full);
    report_lost(peers_, packet.flow);
  }
}

void Stack::deliver(const Packet& packet, std::uint32_t napi_id, std::uint32_t core) {
  const Route& route = routes_[packet.flow];
  if (route.by_stack) {
    ++world_.report.delivered_packets;
    world_.report.delivered_bytes += packet.frame_bytes;
    if (route.echo) softirq_tx_[core]->add_reply(packet);
    if (route.dup_ack) softirq_tx_[core]->add_ack(packet);
    return;
  }
  if (route.forward) {
    ++tx_made_;
    pick_tx(egress_queues_, packet.flow, core).send_reply(packet);
    return;
  }
  Socket* socket = route.socket;
  if (route.incoming_cpu && core_sockets_[core]) socket = core_sockets_[core];
  if (!socket->deliver(packet)) {
    world_.report.drops.add(DropReason::socket_queue_full);
    report_lost(peers_, packet.flow);
    return;
  }
  socket->set_napi_id(napi_id);
  if (std::find(touched_.begin(), touched_.end(), socket) == touched_.end()) {
    touched_.push_back(socket);
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

StackWork Stack::plan(const Ring<Packet>& polled, std::size_t first, int taken, std::uint32_t core,
                      std::vector<std::uint32_t>& planned) {
  StackWork work;
  if (tcp_ && taken > 0) {
    const TcpHost::Work tcp = tcp_->plan(polled, first, world_.now(), core, planned);
    work.tcp_skbs = tcp.skbs;
    work.acks = tcp.acks;
  }
  if (forwarding() && !deferred()) {
    // `polled` holds this poll's frames only: the last poll's were delivered when it ended.
    for (std::size_t i = 0; i < polled.size(); ++i)
      work.forwarded += forwards(polled[i].flow) ? 1 : 0;
  }
  return work;
}

void Stack::end_poll_batch(std::vector<std::uint32_t>& planned) {
  if (!planned.empty()) tcp_->send_planned(planned);
  end_batch();
}

RxStack Stack::rx_endpoint() {
  return RxStack{[](void* self, const Ring<Packet>& polled, std::size_t first, int taken,
                    std::uint32_t core, std::vector<std::uint32_t>& planned) {
                   return static_cast<Stack*>(self)->plan(polled, first, taken, core, planned);
                 },
                 [](void* self, const Packet& packet, std::uint32_t napi_id, std::uint32_t core) {
                   static_cast<Stack*>(self)->receive(packet, napi_id, core);
                 },
                 [](void* self, std::vector<std::uint32_t>& planned) {
                   static_cast<Stack*>(self)->end_poll_batch(planned);
                 },
                 this};
}

bool Stack::send_reply(const Packet& request, std::uint32_t core, Socket* from) {
  if (device_.xmit) {
    ++tx_made_;
    Packet reply = request;  // the request's send time travels on (the client's round trip)
    reply.replied_ns = ns_since_epoch(world_.now());
    device_.xmit(device_.self, reply, core);
    return true;
  }
  if (from && !from->charge_send(request.frame_bytes)) {
    // sock_alloc_send_skb waits for memory: the queues that hold its frames must free them.
    for (TxQueue* queue : tx_queues_)
      queue->watch_releases();
    return false;
  }
  ++tx_made_;
  pick_tx(tx_queues_, request.flow, core)
      .send_reply(request, from ? from->send_owner() : SendOwner{});
  return true;
}

TxQueue& Stack::pick_tx(const std::vector<TxQueue*>& queues, std::uint32_t tuple,
                        std::uint32_t core) const {
  const auto n = static_cast<std::uint32_t>(queues.size());
  const Route& route = routes_[tuple];
  if (route.tx_queue >= 0) return *queues[static_cast<std::uint32_t>(route.tx_queue) % n];
  return *queues[xps_ && core < n ? core : route.hash % n];
}

}  // namespace irqmod::sim
