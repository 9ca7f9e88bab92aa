// ping on the far side: ICMP echo requests at a fixed interval (ping -i), whatever the replies do,
// on the peer's side of the wire (a sparse flow: FarWire); the host's stack answers
// each in its receive softirq (icmp_echo). It records each round trip as ping prints it: from
// the request's send to the reply's last bit back, in PingReport.
#pragma once

#include <cstdint>

#include "irqmod/sim/ring.hpp"
#include "sim/far/wire.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/port.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class PingSender {
 public:
  // `rate` requests per second of `frame_bytes` each, taking the 4-tuples first_tuple .. +
  // tuples - 1 in turn; the first at time 0.
  PingSender(World& world, Port& port, FarWire& wire, std::uint32_t first_tuple,
             std::uint32_t tuples, std::uint32_t frame_bytes, std::uint64_t rate);
  PingSender(const PingSender&) = delete;
  PingSender& operator=(const PingSender&) = delete;

  void start();
  PeerEndpoint endpoint();

 private:
  struct Sent {
    std::int64_t arrival_ns = 0;  // the request's last bit at the host's port
    std::int64_t sent_ns = 0;     // when ping sent it
  };
  void on_event(const Event& event);
  void on_reply(const Packet& request, std::int64_t arrival_ns);

  World& world_;
  Port& port_;
  FarWire& wire_;
  std::uint32_t first_tuple_;
  std::uint32_t tuples_;
  std::uint32_t next_tuple_ = 0;
  std::uint32_t frame_bytes_;
  Spacing spacing_;
  std::int64_t next_ps_ = 0;  // the next request's send time
  Ring<Sent> in_flight_{4096};
  EndpointId endpoint_{};
  SlotId timer_{};
};

}  // namespace irqmod::sim
