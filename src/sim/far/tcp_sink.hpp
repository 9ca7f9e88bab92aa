// The far end of netperf's TCP_STREAM (the host sends): netserver's receiving connections, on a
// Linux box. Each data frame is one skb there (the peer's own NIC and GRO are not modelled) and
// TcpReceiver decides the ACK: at once for every second full segment (or a quick-ACK), else by the
// 40 ms delayed-ACK timer. An ACK is a 70-byte frame on the peer's side of the wire (a sparse
// flow: FarWire), reaching the host's port like any frame; its value goes on the
// connection's return path. The far end reads everything at once: its window never closes.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/far/wire.hpp"
#include "sim/net/tcp_path.hpp"
#include "sim/net/tcp_receiver.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/port.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class TcpBulkReceiver {
 public:
  // Connection i acknowledges on flow first_ack_flow + i, whose values go on paths[i]; its data
  // frames reach it through data_endpoint(i).
  TcpBulkReceiver(World& world, Port& port, FarWire& wire, std::uint32_t first_ack_flow,
                  std::vector<TcpReturnPath*> paths, TcpReceiver::Config config);
  TcpBulkReceiver(const TcpBulkReceiver&) = delete;
  TcpBulkReceiver& operator=(const TcpBulkReceiver&) = delete;

  // Connection i's data frames (their arrivals, and the host's drops of them).
  PeerEndpoint data_endpoint(std::size_t i);
  // Connection i's ACK frames: a drop at the host needs nothing (the next ACK covers it).
  static PeerEndpoint ack_endpoint() { return PeerEndpoint{}; }

  const TcpReceiver& receiver(std::size_t i) const { return connections_[i].receiver; }

 private:
  struct Connection {
    TcpBulkReceiver* owner = nullptr;
    std::uint32_t index = 0;
    std::uint32_t ack_flow = 0;
    TcpReturnPath* path = nullptr;
    TcpReceiver receiver;
    SlotId delack{};
  };
  enum Kind : std::uint16_t { kDelack, kArrival };
  void on_data(Connection& c, std::int64_t arrival_ns);
  void on_arrival(Connection& c);
  void send_ack(Connection& c, std::int64_t at_ns);
  void on_event(const Event& event);

  World& world_;
  Port& port_;
  FarWire& wire_;
  std::deque<Connection> connections_;
  std::uint32_t mss_;
  EndpointId endpoint_{};
};

}  // namespace irqmod::sim
