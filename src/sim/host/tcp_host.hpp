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
//
// The send side (traffic.kind = "tcp-stream"): per connection a TcpSender, fed by its writer (the
// application thread) and clocked by the peer's ACKs. An ACK frame is an skb of its own (GRO
// merges no segment without payload: tcp_gro_receive flushes when len - 1 >= mss), handled in the
// poll that took it (cpu.tcp-skb, as every skb TCP sees); what the window then lets out is handed
// to the receiving core's SoftirqTx as GSO skbs, and a writer blocked on the send buffer is woken
// once it is writable again.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/host/socket.hpp"
#include "sim/net/tcp_path.hpp"
#include "sim/net/tcp_receiver.hpp"
#include "sim/net/tcp_sender.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Stack;

// skb_gro_receive: an skb stops growing at 64 KiB, 45 segments of 1448 bytes.
inline constexpr std::uint32_t kGroMaxBytes = 65'536;

class TcpHost {
 public:
  // `flows`: every flow number a frame may carry (4-tuples and ACK flows).
  TcpHost(World& world, Stack& stack, std::size_t flows);
  TcpHost(const TcpHost&) = delete;
  TcpHost& operator=(const TcpHost&) = delete;

  // Tuple `tuple` is a connection whose ACKs are frames of flow `ack_flow` on `path`.
  void add(std::uint32_t tuple, std::uint32_t ack_flow, TcpPath& path, TcpReceiver::Config config);
  bool carries(std::uint32_t tuple) const { return index_[tuple] >= 0; }

  // Tuple `tuple` is a connection the host sends on; the peer's ACKs for it are frames of flow
  // `ack_flow`, their values on `path`. Returns the sender's number (for write and the writer).
  std::uint32_t add_sender(std::uint32_t tuple, std::uint32_t ack_flow, TcpReturnPath& path,
                           TcpSender::Config config);
  // The application thread of sender `sender`, woken when a blocked write may go on.
  void set_writer(std::uint32_t sender, Waiter writer);
  // Sender `sender`'s room in its send buffer.
  std::uint64_t room(std::uint32_t sender) const { return senders_[sender].sender.room(); }
  // The writer of `sender`, running on `core`, queued `bytes` (at most room()); what the window
  // allows leaves at once, from that core.
  void write(std::uint32_t sender, std::uint64_t bytes, std::uint32_t core);
  // The writer found no room: it waits to be woken.
  void block_writer(std::uint32_t sender) { senders_[sender].writer_blocked = true; }
  const TcpSender& sender(std::uint32_t sender) const { return senders_[sender].sender; }

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
  struct SendConnection {
    std::uint32_t tuple = 0;
    TcpReturnPath* path = nullptr;
    TcpSender sender;
    void (*wake_writer)(void* self) = nullptr;
    void* writer = nullptr;
    bool writer_blocked = false;
  };
  void skb(Connection& c, std::uint32_t bytes, Instant now, std::vector<std::uint32_t>& planned,
           Work& work);
  void ack(SendConnection& c, const Packet& frame, std::uint32_t core);
  void transmit(SendConnection& c, std::uint32_t core);
  void send_ack(Connection& c, std::uint64_t acked);
  void on_event(const Event& event);

  World& world_;
  Stack& stack_;
  std::vector<std::int32_t> index_;  // by tuple: its connection, or -1
  std::deque<Connection> connections_;
  std::vector<std::int32_t> sender_of_flow_;  // by flow: the sender whose ACKs it carries, or -1
  std::deque<SendConnection> senders_;
  EndpointId endpoint_{};
};

}  // namespace irqmod::sim
