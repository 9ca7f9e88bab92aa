// The builder: a validated scenario becomes the components of one run, created and wired in a
// fixed order (so that ties between events break the same way every time), and the run's books.
//
// Order: cores and their NET_RX, the MSI-X table, the port (and a router's egress port), the
// stack and sockets, the Tx queues, the queue vectors (one per queue, each adding its MSI-X
// vector; then the egress port's Tx vectors), the applications, the peers; then the first events
// (timers of the queue vectors, the peers' first messages).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/app/server.hpp"
#include "sim/app/stream_writer.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/far/clients.hpp"
#include "sim/far/ping.hpp"
#include "sim/far/tcp_sender.hpp"
#include "sim/far/tcp_sink.hpp"
#include "sim/far/wire.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/stack.hpp"
#include "sim/irq/msix.hpp"
#include "sim/nic/mclgeti.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/port.hpp"
#include "sim/nic/queue_vector.hpp"
#include "sim/nic/rx_queue.hpp"
#include "sim/nic/tx_queue.hpp"
#include "sim/run_setup.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// Every component of a run: its cores and NET_RX (Machine), then the network host's own.
// Containers are deques: elements never move once built, so the references components hold to
// each other stay valid.
struct Host : Machine {
  explicit Host(World& w) : Machine(w) {}

  std::deque<Backlog> backlogs;  // by core (napi.rx-backlog)
  std::optional<MsixTable> msix;
  std::optional<Port> port;
  std::optional<Port> egress;  // nic.ports = 2: port 1, which only transmits forwarded frames
  Peers peers;                 // by flow
  std::optional<Stack> stack;
  std::optional<TcpHost> tcp;     // TCP connections' receive side (traffic.kind = "tcp-maerts")
  std::deque<TcpPath> tcp_paths;  // by connection
  std::deque<TcpReturnPath> tcp_return_paths;  // by connection the host sends on
  std::deque<SoftirqTx> softirq_tx;            // by core (a tcp-stream or ping flow)
  std::optional<FarWire> far_wire;             // the peer's side of port 0's link
  std::optional<Mclgeti> mclgeti;              // nic.refill = "mclgeti"
  std::deque<Socket> sockets;
  std::deque<RxQueue> rx_queues;
  std::deque<QueueVector> queue_vectors;  // by queue
  std::deque<TxQueue> tx_queues;
  std::vector<std::optional<std::uint32_t>>
      tx_vector_of_queue;             // by Tx queue: its completions' vector
  std::deque<TxQueue> egress_queues;  // port 1's Tx queues
  std::vector<std::optional<std::uint32_t>> egress_vector_of_queue;
  std::deque<Application> applications;
  std::deque<PingPongClient> ping_pong_clients;
  std::deque<RequestSender> request_senders;
  std::deque<ClosedLoopSender> closed_loop_senders;
  std::deque<ForwardReceiver> forward_receivers;
  std::deque<TcpBulkSender> tcp_senders;
  std::deque<TcpBulkReceiver> tcp_receivers;
  std::deque<StreamWriter> stream_writers;
  std::deque<PingSender> ping_senders;

  // Frames entered, delivered, dropped and in flight: the conservation check.
  Conservation books() const;
  // The frames the host sends: made (by the stack, and by its softirq transmitters: a frame
  // waiting there is made but not yet handed to a queue) = on the wire + dropped by a Tx queue
  // + waiting in a qdisc or a softirq transmitter.
  Conservation tx_books() const;
  // The per-queue counters of the report, at the end of the run.
  void fill_report() const;
};

// The kernel switches `scenario`'s `kernel` applies, for the report (every kind of run).
std::vector<KernelSetting> kernel_settings(const Scenario& scenario);

// Builds the components of `scenario` into `host`. Errors: a capture that cannot be loaded (key
// traffic.pcap), a setting the model does not cover (named by its key).
std::optional<Error> build(const Scenario& scenario, Host& host);

}  // namespace irqmod::sim
