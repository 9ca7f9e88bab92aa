// The far ping. See ping.hpp.
#include "sim/far/ping.hpp"

namespace irqmod::sim {

PingSender::PingSender(World& world, Port& port, FarWire& wire, std::uint32_t first_tuple,
                       std::uint32_t tuples, std::uint32_t frame_bytes, std::uint64_t rate)
    : world_(world),
      port_(port),
      wire_(wire),
      first_tuple_(first_tuple),
      tuples_(tuples),
      frame_bytes_(frame_bytes),
      spacing_(Spacing::per_second(rate)) {
  endpoint_ = world_.engine.bind<&PingSender::on_event>(*this);
  timer_ = world_.engine.make_slot();
}

void PingSender::start() {
  world_.engine.arm(timer_, at_ns(0), endpoint_, 0);
}

PeerEndpoint PingSender::endpoint() {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet& request, std::int64_t arrival_ns) {
    static_cast<PingSender*>(self)->on_reply(request, arrival_ns);
  };
  e.lost = [](void* self, std::uint32_t) {
    if (auto& ping = static_cast<PingSender*>(self)->world_.report.ping) ++ping->lost;
  };
  e.self = this;
  e.answered = true;
  return e;
}

// The interval's timer: one request now, the next one an interval later.
void PingSender::on_event(const Event&) {
  const std::int64_t now_ns = ns_since_epoch(world_.now());
  const std::int64_t arrival_ns = wire_.send_sparse(now_ns * 1000, frame_bytes_) / 1000;
  if (in_flight_.full()) in_flight_.pop();  // the oldest was lost long ago
  in_flight_.push(Sent{arrival_ns, now_ns});
  port_.inject(Packet{arrival_ns, frame_bytes_, first_tuple_ + next_tuple_});
  if (++next_tuple_ == tuples_) next_tuple_ = 0;
  if (world_.report.ping) ++world_.report.ping->sent;
  next_ps_ += spacing_.next();
  world_.engine.arm(timer_, at_ns(next_ps_ / 1000), endpoint_, 0);
}

// The reply to the request that reached the host at request.arrival_ns: requests before it that
// are still listed were lost (counted by the books' endpoint).
void PingSender::on_reply(const Packet& request, std::int64_t arrival_ns) {
  while (!in_flight_.empty() && in_flight_.front().arrival_ns < request.arrival_ns)
    in_flight_.pop();
  if (in_flight_.empty() || in_flight_.front().arrival_ns != request.arrival_ns) return;
  if (world_.report.ping) world_.report.ping->rtt.record(arrival_ns - in_flight_.front().sent_ns);
  in_flight_.pop();
}

}  // namespace irqmod::sim
