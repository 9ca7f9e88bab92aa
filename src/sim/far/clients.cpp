// The answering peers. See clients.hpp.
#include "sim/far/clients.hpp"

#include <algorithm>

namespace irqmod::sim {

Instant timer_wheel_expiry(Instant now, Duration delay, Duration tick) {
  // jiffies + usecs_to_jiffies(delay): the jiffy now, and the delay rounded up to whole jiffies.
  const std::int64_t t = tick.count();
  const std::int64_t now_j = ns_since_epoch(now) / t;
  const std::int64_t delta = (delay.count() + t - 1) / t;
  const std::int64_t expires = now_j + delta;
  // LVL_START(n) = 63 << 3(n - 1), LVL_SHIFT(n) = 3n; nine levels (LVL_DEPTH for HZ > 100).
  // WHEEL_TIMEOUT_CUTOFF, which caps timers beyond the last level, is not modelled.
  int level = 0;
  while (level < 8 && delta >= (std::int64_t{63} << (3 * level)))
    ++level;
  const int shift = 3 * level;
  return at_ns((((expires >> shift) + 1) << shift) * t);
}

PingPongClient::PingPongClient(World& world, Port& port, std::uint32_t first_tuple,
                               std::uint32_t tuples, std::uint32_t frame_bytes, std::uint64_t mps,
                               Distribution jitter, Rng jitter_rng,
                               std::optional<TcpProbeSettings> tcp, ClientTurnaround turnaround)
    : world_(world),
      port_(port),
      first_tuple_(first_tuple),
      tuples_(tuples),
      frame_bytes_(frame_bytes),
      mps_(mps),
      jitter_(jitter),
      jitter_rng_(jitter_rng),
      turnaround_(turnaround),
      tcp_(tcp) {
  if (tcp_) {
    endpoint_ = world_.engine.bind<&PingPongClient::on_event>(*this);
    probe_slot_ = world_.engine.make_slot();
  }
}

PeerEndpoint PingPongClient::endpoint() {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet&, std::int64_t arrival_ns) {
    static_cast<PingPongClient*>(self)->on_reply(arrival_ns);
  };
  e.lost = [](void* self, std::uint32_t) { static_cast<PingPongClient*>(self)->on_lost(); };
  e.self = this;
  e.answered = true;
  return e;
}

// The server's duplicate ACKs: nothing for the client to do (its request is still answered).
PeerEndpoint PingPongClient::probe_endpoint() {
  PeerEndpoint e;
  e.self = this;
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
  // The client's stack and the switch: sockperf's clock is already running.
  const std::int64_t wire_ns = send_ns + turnaround_.time.draw(turnaround_.rng).count();
  tuple_ = first_tuple_ + next_tuple_;
  const std::int64_t arrival_ns = wire_ns + port_.link().reception_ps(frame_bytes_) / 1000;
  port_.inject(Packet{arrival_ns, frame_bytes_, tuple_});
  if (++next_tuple_ == tuples_) next_tuple_ = 0;
  if (tcp_) {
    probed_ = false;
    lost_ = false;
    arm_probe(wire_ns);  // tcp_write_xmit arms it as the segment goes out
  }
}

void PingPongClient::arm_probe(std::int64_t from_ns) {
  // tcp_schedule_loss_probe: 2 x SRTT + tcp_rto_min, but never past the RTO (rto_delta_us): SRTT
  // + RTTVAR with RTTVAR at least tcp_rto_min (tcp_rtt_estimator's mdev_max, __tcp_set_rto).
  Duration pto = seconds(1);
  if (srtt_ns_ > 0) {
    const Duration rto =
        nanoseconds(srtt_ns_) + std::max(nanoseconds(4 * rttvar_ns_), tcp_->rto_min);
    pto = std::min(nanoseconds(2 * srtt_ns_) + tcp_->rto_min, rto);
  }
  world_.engine.arm(probe_slot_, timer_wheel_expiry(at_ns(from_ns), pto, tcp_->tick), endpoint_, 0);
}

// The loss probe fired with the request unanswered: the request again, as a copy the server
// holds already, or as the request itself when the server dropped it.
void PingPongClient::on_event(const Event&) {
  ++probes_;
  ++world_.report.tcp_loss_probes;
  probed_ = true;
  const std::uint32_t flow = lost_ ? tuple_ : tcp_->first_probe_flow + (tuple_ - first_tuple_);
  lost_ = false;
  const std::int64_t now_ns = ns_since_epoch(world_.now());
  port_.inject(Packet{now_ns + port_.link().reception_ps(frame_bytes_) / 1000, frame_bytes_, flow});
  arm_probe(now_ns);
}

void PingPongClient::on_reply(std::int64_t arrival_ns) {
  const std::int64_t rtt = arrival_ns - sent_ns_;
  world_.report.latency.record(rtt / 2);
  if (tcp_) {
    world_.engine.cancel(probe_slot_);
    if (probed_) {
      ++world_.report.probe_answers;  // Karn: the probe's copy makes this RTT ambiguous for SRTT
    } else {
      // RFC 6298: the first sample sets SRTT and RTTVAR = R / 2; later ones move SRTT by 1/8
      // and RTTVAR by 1/4 of the difference.
      if (srtt_ns_ == 0) {
        srtt_ns_ = rtt;
        rttvar_ns_ = rtt / 2;
      } else {
        const std::int64_t error = rtt - srtt_ns_;
        rttvar_ns_ += ((error < 0 ? -error : error) - rttvar_ns_) / 4;
        srtt_ns_ += error / 8;
      }
    }
  }
  send(std::max(world_.now(), at_ns(arrival_ns)));
}

// sockperf counts the message as dropped; the client then sends the next one. Over TCP the
// loss probe sends it again instead (and sockperf sees no loss).
void PingPongClient::on_lost() {
  if (tcp_) {
    lost_ = true;
    return;
  }
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
    const std::int64_t rtt_ns = arrival_ns - sent_ns;
    sender->world_.report.latency.record(sender->round_trip_ ? rtt_ns + sender->client_delay_ns_
                                                             : rtt_ns / 2);
  };
  e.lost = [](void* self, std::uint32_t) {
    ++static_cast<RequestSender*>(self)->world_.report.sockperf.dropped;
  };
  e.self = this;
  e.answered = true;
  return e;
}

ClosedLoopSender::ClosedLoopSender(World& world, Port& port, std::uint32_t first_tuple,
                                   std::uint32_t connections, std::uint32_t depth,
                                   std::uint64_t rate, std::uint32_t frame_bytes,
                                   Duration client_delay, Rng rng)
    : world_(world),
      port_(port),
      first_tuple_(first_tuple),
      depth_(depth),
      rate_(rate),
      frame_bytes_(frame_bytes),
      client_delay_ns_(client_delay.count()),
      rng_(rng),
      connections_(connections) {
  if (rate_ > 0) mean_gap_ns_ = 1e9 * connections / static_cast<double>(rate_);
}

void ClosedLoopSender::start() {
  const auto n = static_cast<std::uint32_t>(connections_.size());
  for (std::uint32_t c = 0; c < n; ++c) {
    if (rate_ > 0) {
      connections_[c].next_ns = static_cast<std::int64_t>(rng_.exponential(mean_gap_ns_));
      issue(c, 0);
    } else {
      issue(c, static_cast<std::int64_t>(c) * (client_delay_ns_ / n));
    }
  }
}

void ClosedLoopSender::issue(std::uint32_t c, std::int64_t earliest_ns) {
  Connection& conn = connections_[c];
  for (; conn.outstanding < depth_; ++conn.outstanding) {
    std::int64_t wire_ns = earliest_ns;
    if (rate_ > 0) {
      // Due at next_ns, or held until now when it came due while the depth was full; the
      // connection then catches up on its schedule (mutilate's next_time += the next gap).
      wire_ns = std::max(conn.next_ns, earliest_ns);
      conn.next_ns += static_cast<std::int64_t>(rng_.exponential(mean_gap_ns_));
    }
    port_.inject(Packet{wire_ns + port_.link().reception_ps(frame_bytes_) / 1000, frame_bytes_,
                        first_tuple_ + c});
  }
}

void ClosedLoopSender::on_answer(std::uint32_t flow, std::int64_t free_ns) {
  const std::uint32_t c = flow - first_tuple_;
  --connections_[c].outstanding;
  issue(c, free_ns);
}

PeerEndpoint ClosedLoopSender::endpoint() {
  PeerEndpoint e;
  e.reply = [](void* self, const Packet& request, std::int64_t arrival_ns) {
    auto* sender = static_cast<ClosedLoopSender*>(self);
    const std::int64_t sent_ns =
        request.arrival_ns - sender->port_.link().reception_ps(request.frame_bytes) / 1000;
    sender->world_.report.latency.record(arrival_ns - sent_ns + sender->client_delay_ns_);
    sender->on_answer(request.flow, arrival_ns + sender->client_delay_ns_);
  };
  // mutilate has no loss of its own (TCP retransmits); the model's lost request is counted and
  // frees its place on the connection, which then goes on as after an answer.
  e.lost = [](void* self, std::uint32_t flow) {
    auto* sender = static_cast<ClosedLoopSender*>(self);
    ++sender->world_.report.sockperf.dropped;
    sender->on_answer(flow, ns_since_epoch(sender->world_.now()) + sender->client_delay_ns_);
  };
  e.self = this;
  e.answered = true;
  return e;
}

}  // namespace irqmod::sim
