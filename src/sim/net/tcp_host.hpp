// The host's TCP receive side: per connection (4-tuple) its TcpReceiver, the path its ACKs take
// back to the sender, and its delayed-ACK timer.
//
// GRO (napi_gro_receive, net/ipv4/tcp_offload.c): within one poll, a run of in-order frames of
// one connection becomes one skb, up to 45 segments (skb_gro_receive refuses past 64 KiB); the
// poll's end flushes it (napi_complete_done -> napi_gro_flush). TCP then sees one skb and decides
// once whether to acknowledge (TcpReceiver).
//
// The stack hands a poll's frames over twice: when the poll takes them (plan: GRO and the ACK
// decisions, so that the poll's CPU time includes the TCP work and the ACKs' transmission), and
// when the poll ends (send_planned: the ACKs decided then leave by the stack's Tx path). A
// delayed ACK leaves when its timer fires, from the core that last received for the connection;
// its CPU time (a timer softirq and one transmission) is not charged.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/net/tcp_path.hpp"
#include "sim/net/tcp_receiver.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Stack;

// skb_gro_receive: an skb stops growing at 64 KiB, 45 segments of 1448 bytes.
inline constexpr std::uint32_t kGroMaxBytes = 65'536;

class TcpHost {
 public:
  TcpHost(World& world, Stack& stack, std::size_t tuples);
  TcpHost(const TcpHost&) = delete;
  TcpHost& operator=(const TcpHost&) = delete;

  // Tuple `tuple` is a connection whose ACKs are frames of flow `ack_flow` on `path`.
  void add(std::uint32_t tuple, std::uint32_t ack_flow, TcpPath& path, TcpReceiver::Config config);
  bool carries(std::uint32_t tuple) const { return index_[tuple] >= 0; }

  struct Work {
    int skbs = 0;  // GRO skbs handed to TCP
    int acks = 0;  // ACKs they make
  };
  // A poll on `core` took `frames` (its frames from `first` on): GRO and the ACK decisions. The
  // connections that decided to acknowledge are appended to `planned`.
  Work plan(const Ring<Packet>& frames, std::size_t first, Instant now, std::uint32_t core,
            std::vector<std::uint32_t>& planned);
  // The poll ended: the ACKs planned for these connections leave now.
  void send_planned(std::vector<std::uint32_t>& planned);

  const TcpReceiver& receiver(std::uint32_t tuple) const {
    return connections_[static_cast<std::size_t>(index_[tuple])].receiver;
  }

 private:
  struct Connection {
    std::uint32_t tuple = 0;
    std::uint32_t ack_flow = 0;
    TcpPath* path = nullptr;
    TcpReceiver receiver;
    Ring<std::uint64_t> planned{64};  // acknowledged bytes of the ACKs decided, not yet sent
    std::uint32_t core = 0;           // the core that last received for it
    SlotId delack{};
  };
  void skb(Connection& c, std::uint32_t bytes, Instant now, std::vector<std::uint32_t>& planned,
           Work& work);
  void send_ack(Connection& c, std::uint64_t acked);
  void on_event(const Event& event);

  World& world_;
  Stack& stack_;
  std::vector<std::int32_t> index_;  // by tuple: its connection, or -1
  std::deque<Connection> connections_;
  EndpointId endpoint_{};
};

}  // namespace irqmod::sim
