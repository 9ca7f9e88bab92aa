// The far TCP receiver. See tcp_sink.hpp.
#include "sim/far/tcp_sink.hpp"

#include <cassert>

namespace irqmod::sim {

TcpBulkReceiver::TcpBulkReceiver(World& world, Port& port, FarWire& wire,
                                 std::uint32_t first_ack_flow, std::vector<TcpReturnPath*> paths,
                                 TcpReceiver::Config config)
    : world_(world), port_(port), wire_(wire), mss_(config.rcv_mss) {
  endpoint_ = world_.engine.bind<&TcpBulkReceiver::on_event>(*this);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto index = static_cast<std::uint32_t>(i);
    Connection& c = connections_.emplace_back(
        Connection{this, index, first_ack_flow + index, paths[i], TcpReceiver(config)});
    c.delack = world_.engine.make_slot();
  }
}

PeerEndpoint TcpBulkReceiver::data_endpoint(std::size_t i) {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet&, std::int64_t arrival_ns) {
    auto* c = static_cast<Connection*>(self);
    c->owner->on_data(*c, arrival_ns);
  };
  // The host's Tx path dropped a segment: its sender sends it again (TcpSender::on_lost).
  e.lost = [](void* self, std::uint32_t) { ++static_cast<Connection*>(self)->path->lost_segments; };
  e.self = &connections_[i];
  return e;
}

// The host's Tx queue reports a segment when it goes on the wire, with the time its last bit
// arrives here: the receiver decides then (an event at that time, so that its ACK takes the wire
// in time order with the peer's other frames).
void TcpBulkReceiver::on_data(Connection& c, std::int64_t arrival_ns) {
  world_.engine.schedule(at_ns(arrival_ns), endpoint_, kArrival, c.index);
}

void TcpBulkReceiver::on_arrival(Connection& c) {
  if (c.receiver.on_data(world_.now(), mss_) == TcpReceiver::Ack::now) {
    send_ack(c, ns_since_epoch(world_.now()));
    return;
  }
  if (const auto due = c.receiver.delack_at();
      due && (!world_.engine.armed(c.delack) || world_.engine.deadline(c.delack) != *due)) {
    world_.engine.arm(c.delack, *due, endpoint_, kDelack, c.index);
  }
}

void TcpBulkReceiver::send_ack(Connection& c, std::int64_t at_ns) {
  const std::uint64_t acked = c.receiver.rcv_nxt();
  c.receiver.on_ack_sent();
  world_.engine.cancel(c.delack);
  const std::int64_t arrival_ns = wire_.send_sparse(at_ns * 1000, kTcpFrameOverhead) / 1000;
  if (!c.path->acks.push(TcpReturnPath::Stamp{arrival_ns, acked})) {
    world_.exceeded(Error{"traffic.window", "more than " + std::to_string(kTcpAcksInFlight) +
                                                " ACKs in flight on one connection, the model's "
                                                "limit; allowed: a smaller window"});
  }
  port_.inject(Packet{arrival_ns, kTcpFrameOverhead, c.ack_flow});
}

void TcpBulkReceiver::on_event(const Event& event) {
  Connection& c = connections_[event.payload];
  if (event.kind() == kArrival) {
    on_arrival(c);
    return;
  }
  // The delayed-ACK timer (tcp_delack_timer).
  if (!c.receiver.on_timer(world_.now())) return;
  send_ack(c, ns_since_epoch(world_.now()));
}

}  // namespace irqmod::sim
