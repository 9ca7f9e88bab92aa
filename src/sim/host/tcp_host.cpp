// The host's TCP connections, both sides. See tcp_host.hpp.
#include "sim/host/tcp_host.hpp"

#include <cassert>

#include "sim/host/socket.hpp"
#include "sim/host/stack.hpp"

namespace irqmod::sim {

TcpHost::TcpHost(World& world, Stack& stack, std::size_t flows)
    : world_(world), stack_(stack), index_(flows, -1), sender_of_flow_(flows, -1) {
  endpoint_ = world_.engine.bind<&TcpHost::on_event>(*this);
}

void TcpHost::add(std::uint32_t tuple, std::uint32_t ack_flow, TcpPath& path,
                  TcpReceiver::Config config) {
  index_[tuple] = static_cast<std::int32_t>(connections_.size());
  Connection& c =
      connections_.emplace_back(Connection{tuple, ack_flow, &path, TcpReceiver(config)});
  c.delack = world_.engine.make_slot();
}

TcpHost::Work TcpHost::plan(const Ring<Packet>& frames, std::size_t first, Instant now,
                            std::uint32_t core, std::vector<std::uint32_t>& planned) {
  Work work;
  Connection* run = nullptr;  // the skb GRO is building
  std::uint32_t run_bytes = 0;
  const auto flush = [&] {
    if (run) skb(*run, run_bytes, now, planned, work);
    run = nullptr;
    run_bytes = 0;
  };
  for (std::size_t i = first; i < frames.size(); ++i) {
    const Packet& p = frames[i];
    if (const std::int32_t sender = sender_of_flow_[p.flow]; sender >= 0) {
      flush();
      ++work.skbs;
      ack(senders_[static_cast<std::size_t>(sender)], p, core);
      continue;
    }
    if (!carries(p.flow)) {
      flush();
      continue;
    }
    Connection& c = connections_[static_cast<std::size_t>(index_[p.flow])];
    c.core = core;
    const std::uint32_t payload = p.frame_bytes - kTcpFrameOverhead;
    if (run != &c || run_bytes + payload > kGroMaxBytes) flush();
    run = &c;
    run_bytes += payload;
  }
  flush();
  return work;
}

std::uint32_t TcpHost::add_sender(std::uint32_t tuple, std::uint32_t ack_flow, TcpReturnPath& path,
                                  TcpSender::Config config) {
  const auto n = static_cast<std::uint32_t>(senders_.size());
  sender_of_flow_[ack_flow] = static_cast<std::int32_t>(n);
  senders_.emplace_back(SendConnection{tuple, &path, TcpSender(config)});
  return n;
}

void TcpHost::set_writer(std::uint32_t sender, Waiter writer) {
  senders_[sender].wake_writer = writer.wake;
  senders_[sender].writer = writer.self;
}

void TcpHost::write(std::uint32_t sender, std::uint64_t bytes, std::uint32_t core) {
  SendConnection& c = senders_[sender];
  c.sender.write(bytes);
  transmit(c, core);
}

// tcp_ack: the segments it acknowledges leave the send buffer; tcp_data_snd_check sends what the
// window now allows; sk_stream_write_space wakes a blocked writer.
void TcpHost::ack(SendConnection& c, const Packet& frame, std::uint32_t core) {
  for (; c.path->lost_segments > 0; --c.path->lost_segments)
    c.sender.on_lost();
  if (const auto acked = c.path->take(frame.arrival_ns)) {
    const std::uint64_t before = c.sender.snd_una();
    if (c.sender.on_ack(*acked) && world_.report.tcp) {
      world_.report.tcp->sent_bytes += c.sender.snd_una() - before;
    }
  }
  transmit(c, core);
  if (c.writer_blocked && c.wake_writer && c.sender.writable()) {
    c.writer_blocked = false;
    c.wake_writer(c.writer);
  }
}

void TcpHost::transmit(SendConnection& c, std::uint32_t core) {
  const std::uint32_t frame = c.sender.config().mss + kTcpFrameOverhead;
  while (const std::uint32_t segments = c.sender.next_skb()) {
    c.sender.on_sent(segments);
    stack_.softirq_tx(core).add_skb(c.tuple, segments, frame);
  }
}

void TcpHost::skb(Connection& c, std::uint32_t bytes, Instant now,
                  std::vector<std::uint32_t>& planned, Work& work) {
  ++work.skbs;
  if (world_.report.tcp) world_.report.tcp->received_bytes += bytes;
  if (c.receiver.on_data(now, bytes) == TcpReceiver::Ack::now) {
    if (c.planned.empty()) planned.push_back(c.tuple);
    [[maybe_unused]] const bool kept = c.planned.push(c.receiver.rcv_nxt());
    assert(kept && "more ACKs decided in one poll than a connection holds");
    c.receiver.on_ack_sent();
    world_.engine.cancel(c.delack);
    ++work.acks;
    return;
  }
  if (const auto at = c.receiver.delack_at();
      at && (!world_.engine.armed(c.delack) || world_.engine.deadline(c.delack) != *at)) {
    world_.engine.arm(c.delack, *at, endpoint_, 0, static_cast<std::uint64_t>(index_[c.tuple]));
  }
}

void TcpHost::send_planned(std::vector<std::uint32_t>& planned) {
  for (const std::uint32_t tuple : planned) {
    Connection& c = connections_[static_cast<std::size_t>(index_[tuple])];
    while (!c.planned.empty()) {
      send_ack(c, c.planned.front());
      c.planned.pop();
    }
  }
  planned.clear();
}

void TcpHost::send_ack(Connection& c, std::uint64_t acked) {
  if (!c.path->acks.push(acked)) {
    world_.exceeded(Error{"traffic.window", "more than " + std::to_string(kTcpAcksInFlight) +
                                                " ACKs in flight on one connection, the model's "
                                                "limit; allowed: a smaller window"});
  }
  stack_.send_frame(c.tuple, Packet{ns_since_epoch(world_.now()), kTcpFrameOverhead, c.ack_flow},
                    c.core);
}

// The delayed-ACK timer (tcp_delack_timer): what is left unacknowledged goes now.
void TcpHost::on_event(const Event& event) {
  Connection& c = connections_[event.payload];
  if (!c.receiver.on_timer(world_.now())) return;
  const std::uint64_t acked = c.receiver.rcv_nxt();
  c.receiver.on_ack_sent();
  send_ack(c, acked);
}

}  // namespace irqmod::sim
