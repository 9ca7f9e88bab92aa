// The far end of netperf's TCP_MAERTS (the host receives): a bulk TCP sender per connection,
// window-limited and clocked by ACKs. It puts a segment of traffic.mss bytes on the wire
// whenever less than traffic.window bytes are unacknowledged; the connections share the wire
// (frames leave one after the other at the link's rate) and each frame reaches the host's port
// as a single frame with its own write-back event.
//
// Left out, and said where it matters: congestion control (the window is the only limit, as
// for a flow that has left slow start on a clean link), SACK, pacing, TSO on the sender (its
// segments leave back to back anyway) and PSH boundaries (GRO merges every in-order run).
// Loss: a segment the host drops is sent again at once, as if recovery were free (issue 11
// models retransmission timers).
#pragma once

#include <cstdint>
#include <vector>

#include "irqmod/sim/link.hpp"
#include "sim/net/tcp_path.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/port.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class TcpBulkSender {
 public:
  // Connections on 4-tuples first_tuple .. + paths.size() - 1, each with its shared path;
  // `wire`: the peer's side of the link, shared with the peer's other senders.
  TcpBulkSender(World& world, Port& port, Link& wire, std::uint32_t first_tuple,
                std::vector<TcpPath*> paths, std::uint32_t mss, std::uint32_t window);
  TcpBulkSender(const TcpBulkSender&) = delete;
  TcpBulkSender& operator=(const TcpBulkSender&) = delete;

  // Every connection fills its window at time 0, interleaved.
  void start();
  // Connection i's endpoints: its data (the host's drops of it) and its ACKs (arrivals, drops).
  PeerEndpoint data_endpoint(std::size_t i);
  PeerEndpoint ack_endpoint(std::size_t i);

  std::uint64_t segments_sent() const { return sent_; }

 private:
  struct Connection {
    TcpBulkSender* owner = nullptr;
    std::uint32_t tuple = 0;
    TcpPath* path = nullptr;
    std::uint64_t sent_bytes = 0;   // put on the wire, resends included
    std::uint64_t lost_bytes = 0;   // dropped by the host (to be sent again)
    std::uint64_t acked_bytes = 0;  // snd_una
  };
  std::uint64_t in_flight(const Connection& c) const {
    return c.sent_bytes - c.lost_bytes - c.acked_bytes;
  }
  void fill(Connection& c, std::int64_t now_ns);
  void send(Connection& c, std::int64_t now_ns);
  void on_ack(Connection& c, std::int64_t arrival_ns);

  World& world_;
  Port& port_;
  Link& wire_;  // peer -> host, shared by the connections and the peer's other senders
  std::vector<Connection> connections_;
  std::uint32_t mss_;
  std::uint32_t window_;
  std::uint64_t sent_ = 0;
};

}  // namespace irqmod::sim
