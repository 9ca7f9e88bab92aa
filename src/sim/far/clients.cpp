// The answering peers. See clients.hpp.
#include "sim/far/clients.hpp"

#include <algorithm>

namespace irqmod::sim {

PingPongClient::PingPongClient(World& world, Port& port, std::uint32_t first_tuple,
                               std::uint32_t tuples, std::uint32_t frame_bytes, std::uint64_t mps,
                               Distribution jitter, Rng jitter_rng)
    : world_(world),
      port_(port),
      first_tuple_(first_tuple),
      tuples_(tuples),
      frame_bytes_(frame_bytes),
      mps_(mps),
      jitter_(jitter),
      jitter_rng_(jitter_rng) {}

PeerEndpoint PingPongClient::endpoint() {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet&, std::int64_t arrival_ns) {
    static_cast<PingPongClient*>(self)->on_reply(arrival_ns);
  };
  e.lost = [](void* self) { static_cast<PingPongClient*>(self)->on_lost(); };
  e.self = this;
  e.answered = true;
  return e;
}

void PingPongClient::send(Instant at) {
  // sockperf --mps: one request per 1/mps at most; 0 (max) sends on the reply.
  std::int64_t send_ns = ns_since_epoch(at);
  if (mps_ > 0) {
    send_ns = std::max(send_ns, next_slot_ns_);
    next_slot_ns_ = send_ns + 1'000'000'000 / static_cast<std::int64_t>(mps_);
  }
  send_ns += jitter_.draw(jitter_rng_).count();
  sent_ns_ = send_ns;
  const std::int64_t arrival_ns = send_ns + port_.link().reception_ps(frame_bytes_) / 1000;
  port_.inject(Packet{arrival_ns, frame_bytes_, first_tuple_ + next_tuple_});
  if (++next_tuple_ == tuples_) next_tuple_ = 0;
}

void PingPongClient::on_reply(std::int64_t arrival_ns) {
  world_.report.latency.record((arrival_ns - sent_ns_) / 2);
  send(std::max(world_.now(), at_ns(arrival_ns)));
}

// sockperf counts the message as dropped; the client then sends the next one.
void PingPongClient::on_lost() {
  ++world_.report.sockperf.dropped;
  send(world_.now());
}

PeerEndpoint ForwardReceiver::endpoint() {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet& frame, std::int64_t arrival_ns) {
    RunReport& report = static_cast<ForwardReceiver*>(self)->world_.report;
    ++report.delivered_packets;
    report.delivered_bytes += frame.frame_bytes;
    report.latency.record(arrival_ns - frame.arrival_ns);
  };
  // A frame lost in the box is in the books already (its drop reason); the tester only misses it.
  e.self = this;
  return e;
}

PeerEndpoint RequestSender::endpoint() {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet& request, std::int64_t arrival_ns) {
    auto* sender = static_cast<RequestSender*>(self);
    const std::int64_t sent_ns =
        request.arrival_ns - sender->link_.reception_ps(request.frame_bytes) / 1000;
    sender->world_.report.latency.record((arrival_ns - sent_ns) / 2);
  };
  e.lost = [](void* self) { ++static_cast<RequestSender*>(self)->world_.report.sockperf.dropped; };
  e.self = this;
  e.answered = true;
  return e;
}

}  // namespace irqmod::sim
