// The senders on the far side of the link that expect answers, with sockperf's bookkeeping:
// latency is half the round trip (sockperf's default), measured from the request's first bit
// leaving the sender to the reply's last bit arriving; a lost message counts as dropped.
//
//   PingPongClient   sockperf ping-pong: one message in flight, the next sent when the reply
//                    arrives (paced to --mps), or at once when a message was lost (the model's
//                    sender learns of the loss from the books; a real client would wait for
//                    its receive timeout first). Over TCP (sockperf --tcp, seed 000) a request
//                    left unanswered is probed by the client's TCP instead: its tail loss probe
//                    (below) sends the request again on the same connection.
//   RequestSender    open-loop requests from a generator (the port carries them); it only
//                    records the answers.
//   ClosedLoopSender mutilate without -q (its MAX load): each connection keeps `depth` requests
//                    outstanding and sends the next one when an answer (or the news of a loss)
//                    comes back, the client's fixed part (traffic.client-delay) later.
//   ForwardReceiver  the tester's port behind a router's egress port (nic.ports = 2): it counts
//                    the forwarded frames as delivered, and their latency through the box, from
//                    the last bit reaching port 0 to the last bit leaving port 1 (RFC 1242's
//                    store-and-forward latency, plus the frame's own time on the egress wire).
//
// The sender costs nothing: it stands for a client on another machine.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/port.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// The client's TCP loss probe (net/ipv4/tcp_output.c tcp_schedule_loss_probe, 6.6+): with one
// segment in flight it fires usecs_to_jiffies(2 x SRTT + tcp_rto_min) after the send, or at the
// RTO if that comes first (SRTT + max(4 x RTTVAR, tcp_rto_min)); 1 s (TCP_TIMEOUT_INIT) before
// the first RTT sample (the model has no handshake, whose SYN would give a real client its first
// sample: a stall of the very first request waits longer), on the timer wheel (kernel/time/timer.c
// calc_wheel_index / calc_index): a timer `delta` jiffies ahead sits in level n (delta from
// 63 << 3(n-1) on) and fires at the level's next granularity step of 8^n jiffies, never early.
// SRTT is RFC 6298's (1/8 of each new sample), from exchanges that were not probed (Karn).
// The probe is the request again: when the request is still in the server (its descriptor
// stranded, or queued), the server's TCP takes the copy as a duplicate and sends an ACK at once
// (tcp_data_queue's retransmit case); when the server dropped it, the copy is the request.
// Left out: the RTO that follows an unanswered probe (the model probes again at the same PTO);
// a reply the host's Tx queue dropped counts as a lost request (the copy goes as the request
// itself, so the server's application answers it twice, where TCP would drop the copy and the
// server's own retransmission would resend the reply);
// the server's own loss probe for its previous reply (it would fire in the same 8 ms step), and
// pure ACKs (each side's data carries the ACK of the other's, --mps=max keeps the loop closed).
struct TcpProbeSettings {
  Duration tick{};                   // 1 / CONFIG_HZ of the client's kernel (traffic.peer-hz)
  Duration rto_min{};                // tcp_rto_min (traffic.rto-min)
  std::uint32_t first_probe_flow{};  // the connections' copies, one flow per 4-tuple
};

// The client host's time per exchange, counted in the RTT sockperf measures
// (traffic.peer-turnaround): sockperf takes its send time before the request goes down the client's
// stack and its receive time after the reply came up it, so the client's interrupt, softirq,
// wake-up and TCP send, and the switch, are all inside the RTT. The model draws it once per
// request, between sockperf's send and the request's first bit on the server's wire.
struct ClientTurnaround {
  Distribution time{};  // 0: the client's stack and the switch take no time
  Rng rng{0, 0};        // its own stream, so the other draws stay where they were
};

// When a timer armed at `now` to expire `delay` later fires on a wheel ticking every `tick`.
Instant timer_wheel_expiry(Instant now, Duration delay, Duration tick);

class PingPongClient {
 public:
  // Messages of `frame_bytes` through `port`, taking the 4-tuples first_tuple .. + tuples - 1 in
  // turn; `mps` 0 = --mps=max; each send is delayed by a draw of `jitter` (from `jitter_rng`),
  // outside the RTT; each request then reaches the wire a draw of `turnaround.time` later,
  // inside the RTT (the client host's own time per exchange). `tcp`: sockperf --tcp, with its
  // loss probe.
  PingPongClient(World& world, Port& port, std::uint32_t first_tuple, std::uint32_t tuples,
                 std::uint32_t frame_bytes, std::uint64_t mps, Distribution jitter, Rng jitter_rng,
                 std::optional<TcpProbeSettings> tcp = std::nullopt,
                 ClientTurnaround turnaround = {});
  PingPongClient(const PingPongClient&) = delete;
  PingPongClient& operator=(const PingPongClient&) = delete;

  // The first request, at time 0.
  void start() { send(Instant{}); }
  PeerEndpoint endpoint();
  // Over TCP: the flow of the requests' copies (the server's duplicate ACKs come back on it).
  PeerEndpoint probe_endpoint();

  std::uint64_t probes() const { return probes_; }  // loss probes sent
  Duration srtt() const { return nanoseconds(srtt_ns_); }

 private:
  void on_reply(std::int64_t arrival_ns);
  void on_lost();
  void send(Instant at);
  void arm_probe(std::int64_t from_ns);
  void on_event(const Event& event);

  World& world_;
  Port& port_;
  std::uint32_t first_tuple_;
  std::uint32_t tuples_;
  std::uint32_t next_tuple_ = 0;
  std::uint32_t frame_bytes_;
  std::uint64_t mps_;
  Distribution jitter_;
  Rng jitter_rng_;
  ClientTurnaround turnaround_;
  std::int64_t sent_ns_ = 0;       // when sockperf sent the request in flight (its txTime)
  std::int64_t next_slot_ns_ = 0;  // --mps pacing
  std::optional<TcpProbeSettings> tcp_;
  std::uint32_t tuple_ = 0;     // the request in flight's 4-tuple
  std::int64_t srtt_ns_ = 0;    // 0: no sample yet
  std::int64_t rttvar_ns_ = 0;  // RFC 6298's RTTVAR
  bool probed_ = false;         // the request in flight was probed
  bool lost_ = false;           // ... and the server dropped it
  std::uint64_t probes_ = 0;
  EndpointId endpoint_{};
  SlotId probe_slot_{};
};

class ForwardReceiver {
 public:
  explicit ForwardReceiver(World& world) : world_(world) {}
  PeerEndpoint endpoint();

 private:
  World& world_;
};

class RequestSender {
 public:
  // `round_trip`: report the round trip + `client_delay` (traffic.latency = "rtt"), else the
  // round trip / 2.
  RequestSender(World& world, const Link& link, bool round_trip = false,
                Duration client_delay = Duration::zero())
      : world_(world),
        link_(link),
        round_trip_(round_trip),
        client_delay_ns_(client_delay.count()) {}
  PeerEndpoint endpoint();

 private:
  World& world_;
  const Link& link_;  // the requests' wire, to find when each left the sender
  bool round_trip_;
  std::int64_t client_delay_ns_;
};

// mutilate's connections with a depth (mutilate.cc, Connection::drive_write_machine): each
// connection issues its requests at its own times (next_time += an inter-arrival draw: with -q,
// exponential gaps of mean connections / rate here, where mutilate draws fb_ia's generalised
// Pareto, so that the connections together are Poisson at `rate`), but never more than `depth`
// outstanding: a request due while the connection waits goes when an answer frees it, and the
// connection catches up on the times it missed (next_time is not reset). Rate 0 is mutilate
// without -q, its MAX: a closed loop, each answer releasing the next request at once. Connection
// c of `connections` is 4-tuple first_tuple + c. The reported latency is mutilate's, from the
// request's issue: the round trip + `client_delay`, the client host's and the switch's part,
// which also separates an answer from the request it releases. At rate 0 the connections start
// spread evenly over one client delay (mutilate opens them one after another), so that 560
// requests do not reach the wire in the same nanosecond.
class ClosedLoopSender {
 public:
  ClosedLoopSender(World& world, Port& port, std::uint32_t first_tuple, std::uint32_t connections,
                   std::uint32_t depth, std::uint64_t rate, std::uint32_t frame_bytes,
                   Duration client_delay, Rng rng);
  ClosedLoopSender(const ClosedLoopSender&) = delete;
  ClosedLoopSender& operator=(const ClosedLoopSender&) = delete;

  void start();
  PeerEndpoint endpoint();

 private:
  struct Connection {
    std::uint32_t outstanding = 0;  // requests issued (or due at a known time) and not answered
    std::int64_t next_ns = 0;       // when its next request is due (with a rate)
  };

  // Connection c issues what its depth allows, none before `earliest_ns`. Each request is put
  // on the wire now, at its future time: a busy loop that jumps to the next frame it knows of
  // (BusyLoop::iteration) must know of it (a request injected at its time by an event would
  // reach a loop already asleep in its jump, found only when the jump ends).
  void issue(std::uint32_t c, std::int64_t earliest_ns);
  // An answer (or a loss) for 4-tuple `flow`: the connection may issue again at `free_ns`.
  void on_answer(std::uint32_t flow, std::int64_t free_ns);

  World& world_;
  Port& port_;
  std::uint32_t first_tuple_;
  std::uint32_t depth_;
  std::uint64_t rate_;
  std::uint32_t frame_bytes_;
  std::int64_t client_delay_ns_;
  Rng rng_;
  double mean_gap_ns_ = 0;  // a connection's mean gap between requests (with a rate)
  std::vector<Connection> connections_;
};

}  // namespace irqmod::sim
