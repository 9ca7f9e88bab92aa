// The senders on the far side of the link that expect answers, with sockperf's bookkeeping:
// latency is half the round trip (sockperf's default), measured from the request's first bit
// leaving the sender to the reply's last bit arriving; a lost message counts as dropped.
//
//   PingPongClient   sockperf ping-pong: one message in flight, the next sent when the reply
//                    arrives (paced to --mps), or at once when a message was lost (the model's
//                    sender learns of the loss from the books; a real client would wait for
//                    its receive timeout first).
//   RequestSender    open-loop requests from a generator (the port carries them); it only
//                    records the answers.
//   ForwardReceiver  the tester's port behind a router's egress port (nic.ports = 2): it counts
//                    the forwarded frames as delivered, and their latency through the box, from
//                    the last bit reaching port 0 to the last bit leaving port 1 (RFC 1242's
//                    store-and-forward latency, plus the frame's own time on the egress wire).
//
// The sender costs nothing: it stands for a client on another machine.
#pragma once

#include <cstdint>

#include "irqmod/sim/distribution.hpp"
#include "sim/far/peer.hpp"
#include "sim/nic/port.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class PingPongClient {
 public:
  // Messages of `frame_bytes` through `port`, taking the 4-tuples first_tuple .. + tuples - 1 in
  // turn; `mps` 0 = --mps=max; each send is delayed by a draw of `jitter` (from `jitter_rng`).
  PingPongClient(World& world, Port& port, std::uint32_t first_tuple, std::uint32_t tuples,
                 std::uint32_t frame_bytes, std::uint64_t mps, Distribution jitter, Rng jitter_rng);

  // The first request, at time 0.
  void start() { send(Instant{}); }
  PeerEndpoint endpoint();

 private:
  void on_reply(std::int64_t arrival_ns);
  void on_lost();
  void send(Instant at);

  World& world_;
  Port& port_;
  std::uint32_t first_tuple_;
  std::uint32_t tuples_;
  std::uint32_t next_tuple_ = 0;
  std::uint32_t frame_bytes_;
  std::uint64_t mps_;
  Distribution jitter_;
  Rng jitter_rng_;
  std::int64_t sent_ns_ = 0;       // when the request in flight left the client
  std::int64_t next_slot_ns_ = 0;  // --mps pacing
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
  RequestSender(World& world, const Link& link) : world_(world), link_(link) {}
  PeerEndpoint endpoint();

 private:
  World& world_;
  const Link& link_;  // the requests' wire, to find when each left the sender
};

}  // namespace irqmod::sim
