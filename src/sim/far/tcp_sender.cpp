// The far TCP bulk sender. See tcp_sender.hpp.
#include "sim/far/tcp_sender.hpp"

#include <algorithm>

namespace irqmod::sim {

TcpBulkSender::TcpBulkSender(World& world, Port& port, Link& wire, std::uint32_t first_tuple,
                             std::vector<TcpPath*> paths, std::uint32_t mss, std::uint32_t window)
    : world_(world), port_(port), wire_(wire), mss_(mss), window_(window) {
  connections_.resize(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i)
    connections_[i] = Connection{this, first_tuple + static_cast<std::uint32_t>(i), paths[i]};
}

void TcpBulkSender::start() {
  // Interleaved: one segment per connection in turn while any window has room.
  bool more = true;
  while (more) {
    more = false;
    for (Connection& c : connections_) {
      if (in_flight(c) + mss_ <= window_) {
        send(c, 0);
        more = true;
      }
    }
  }
}

void TcpBulkSender::send(Connection& c, std::int64_t now_ns) {
  const std::uint32_t frame = mss_ + kTcpFrameOverhead;
  const std::int64_t arrival_ps = wire_.transmit(now_ns * 1000, frame);
  port_.inject(Packet{arrival_ps / 1000, frame, c.tuple});
  c.sent_bytes += mss_;
  ++sent_;
}

void TcpBulkSender::fill(Connection& c, std::int64_t now_ns) {
  while (in_flight(c) + mss_ <= window_)
    send(c, now_ns);
}

void TcpBulkSender::on_ack(Connection& c, std::int64_t arrival_ns) {
  if (!c.path->acks.empty()) {
    c.acked_bytes = std::max(c.acked_bytes, c.path->acks.front());
    c.path->acks.pop();
  }
  fill(c, arrival_ns);
}

PeerEndpoint TcpBulkSender::data_endpoint(std::size_t i) {
  PeerEndpoint e;
  // The host dropped a segment: sent again at once (free recovery, see the header).
  e.lost = [](void* self, std::uint32_t) {
    auto* c = static_cast<Connection*>(self);
    c->lost_bytes += c->owner->mss_;
    c->owner->fill(*c, ns_since_epoch(c->owner->world_.now()));
  };
  e.self = &connections_[i];
  return e;
}

PeerEndpoint TcpBulkSender::ack_endpoint(std::size_t i) {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet&, std::int64_t arrival_ns) {
    auto* c = static_cast<Connection*>(self);
    c->owner->on_ack(*c, arrival_ns);
  };
  // A lost ACK (a full Tx queue drops it as it is sent, so it is the newest): its value goes, the
  // next ACK covers it.
  e.lost = [](void* self, std::uint32_t) {
    auto* c = static_cast<Connection*>(self);
    if (!c->path->acks.empty()) c->path->acks.pop_back();
  };
  e.self = &connections_[i];
  return e;
}

}  // namespace irqmod::sim
