// Scenario -> components. See builder.hpp.
#include "sim/builder.hpp"

#include <string>

#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {

Conservation Host::books() const {
  Conservation books;
  for (const RxQueue& rx : rx_queues) {
    books.entered += rx.arrived();
    books.in_flight += rx.size();
  }
  for (const QueueVector& q : queue_vectors)
    books.in_flight += static_cast<std::uint64_t>(q.polled());
  for (const Socket& socket : sockets)
    books.in_flight += socket.size();
  books.delivered = world.report.delivered_packets;
  // Replies lost on the Tx ring were delivered first; conservation counts received frames.
  books.dropped = world.report.drops.total() - world.report.drops.count(DropReason::tx_ring_full);
  return books;
}

namespace {

// Settings the model does not cover, refused by name rather than ignored.
std::optional<Error> unsupported(const Scenario& s) {
  const NicSection& nic = s.nic;
  if (nic.queues != 1) {
    return Error{"nic.queues", "the simulator models one queue and its vector; got " +
                                   std::to_string(nic.queues) + "; allowed: 1"};
  }
  const NicSection defaults = default_scenario().nic;
  if (nic.moderation != Moderation::adaptive_itr) {
    // Only i40e's adaptive ITR reads the Tx setting (its Tx container); Tx completion
    // interrupts are not modelled, so anywhere else the keys would do nothing.
    const char* key = nic.tx_usecs != defaults.tx_usecs     ? "nic.tx-usecs"
                      : nic.tx_frames != defaults.tx_frames ? "nic.tx-frames"
                                                            : nullptr;
    if (key) {
      return Error{key,
                   "Tx completion interrupts are not modelled, so this would change "
                   "nothing; allowed: the default (tx-usecs " +
                       std::to_string(defaults.tx_usecs) + ", tx-frames " +
                       std::to_string(defaults.tx_frames) +
                       "), or moderation = \"adaptive-itr\", whose ITR reads it"};
    }
  }
  // Keys of the simulator's second shape that the model does not run yet: refused by name.
  const Scenario d = default_scenario();
  const std::pair<bool, const char*> pending[] = {
      {!s.flows.empty(), "flow"},
      {!s.threads.empty(), "thread"},
      {nic.vectors != d.nic.vectors, "nic.vectors"},
      {nic.tx_interrupts, "nic.tx-interrupts"},
      {nic.refill != d.nic.refill, "nic.refill"},
      {s.cpu.app_wait == Wait::adaptive_poll, "cpu.app-wait"},
      {s.traffic.flows != 1, "traffic.flows"},
      {s.traffic.deliver_to != d.traffic.deliver_to, "traffic.deliver-to"},
      {s.cpu.irq_cores != d.cpu.irq_cores, "cpu.irq-cores"},
  };
  for (const auto& [set, key] : pending) {
    if (set) return Error{key, "not modelled yet; allowed: its default"};
  }
  const bool busy = s.napi.busy_read > Duration::zero() || s.napi.busy_poll > Duration::zero();
  if (busy && s.cpu.busy_poll_iteration <= Duration::zero()) {
    return Error{"cpu.busy-poll-iteration",
                 "busy polling (napi.busy_read / napi.busy_poll) needs the cost of one poll of "
                 "the queue; allowed: a duration above 0 ns"};
  }
  return std::nullopt;
}

// The load of [traffic] as a stream on the port's link (constant, Poisson, on-off, pcap and the
// requests of request-response).
Expected<ArrivalStream> make_stream(const Scenario& s, const Link& link, std::uint32_t flow) {
  const TrafficSection& t = s.traffic;
  const std::uint32_t size =
      t.kind == TrafficKind::request_response ? udp_frame_bytes(t.msg_size) : t.size;
  const Rng rng(s.scenario.seed, 1);
  const auto spacing = [&] {
    return t.rate > 0 ? Spacing::per_second(t.rate) : Spacing::fixed(link.occupancy_ps(size));
  };
  switch (t.kind) {
    case TrafficKind::constant:
      return ArrivalStream(ConstantRate(spacing(), size), link, rng, flow);
    case TrafficKind::request_response:
    case TrafficKind::poisson:
      return ArrivalStream(Poisson(t.rate, size), link, rng, flow);
    case TrafficKind::on_off:
      return ArrivalStream(
          OnOff(spacing(), size, t.on_time.count() * 1000, t.off_time.count() * 1000), link, rng,
          flow);
    case TrafficKind::pcap: {
      auto trace = load_pcap(t.pcap);
      if (!trace) return Error{"traffic.pcap", trace.error().what()};
      return ArrivalStream(
          TraceReplay(std::make_shared<const Trace>(std::move(trace.value())), t.pcap_loop), link,
          rng, flow);
    }
    case TrafficKind::ping_pong:
      break;
  }
  return Error{"traffic.kind", "not a stream"};
}

}  // namespace

std::optional<Error> build(const Scenario& s, Host& host) {
  if (auto e = unsupported(s)) return e;
  World& world = host.world;
  const CpuSection& cpu = s.cpu;
  RunReport& report = world.report;
  report.scenario = s.scenario.name;
  report.seed = s.scenario.seed;
  report.sim_time = s.scenario.duration;
  report.interrupts = InterruptCounters(s.nic.queues);
  report.cpu = CpuTime(cpu.cores);

  // Cores and their NET_RX softirq.
  const NetRx::Budget budget{static_cast<int>(s.napi.netdev_budget), s.napi.netdev_budget_usecs};
  for (std::uint32_t c = 0; c < cpu.cores; ++c)
    host.cores.emplace_back(world, c);
  std::vector<NetRx*> net_rx;
  for (Core& core : host.cores) {
    host.net_rx.emplace_back(core, budget, s.nic.queues);
    net_rx.push_back(&host.net_rx.back());
  }
  host.msix.emplace(world, cpu.irq_entry + cpu.irq_handler);
  host.port.emplace(world, s.link.speed_bps, s.nic.dma_delay);

  // The stack, one socket per application thread, the flows' sockets.
  constexpr std::size_t kFlows = 1;
  host.peers.resize(kFlows);
  host.stack.emplace(world, host.peers, kFlows);
  Socket& socket = host.sockets.emplace_back();
  host.stack->bind(0, socket);

  // The queues and their vectors.
  const PollCosts costs{cpu.napi_poll, cpu.rx_packet, cpu.irq_entry};
  RxQueue& rx = host.rx_queues.emplace_back(s.nic.rx_ring, s.nic.refill_delay);
  const std::vector<std::uint32_t> irq_cores = parse_cpu_list(cpu.irq_cores).value();
  host.queue_vectors.emplace_back(world, s, 0, rx, *host.msix, host.cores[irq_cores[0]], net_rx,
                                  *host.stack, host.peers, host.port->lazy_arrivals(), costs);
  std::vector<QueueVector*> queues;
  for (QueueVector& q : host.queue_vectors)
    queues.push_back(&q);
  host.port->set_queues(queues);
  TxQueue& tx = host.tx_queues.emplace_back(world, s.nic.tx_ring, host.port->tx_wire(), host.peers);

  // The application thread.
  const bool busy_read = s.napi.busy_read > Duration::zero();
  const Application::Wait wait = !busy_read && s.napi.busy_poll > Duration::zero()
                                     ? Application::Wait::epoll
                                     : Application::Wait::recv;
  BusyPollSettings busy;
  busy.usecs =
      static_cast<std::uint32_t>((busy_read ? s.napi.busy_read : s.napi.busy_poll).count() / 1000);
  busy.prefer = s.napi.prefer_busy_poll;
  busy.budget = static_cast<int>(s.napi.busy_poll_budget);
  busy.iteration = cpu.busy_poll_iteration;
  const ApplicationCosts app_costs{cpu.syscall, cpu.app_message, cpu.tx_packet, cpu.wakeup,
                                   cpu.context_switch};
  host.applications.emplace_back(world, host.cores[cpu.app_core], socket, queues, tx, host.peers,
                                 wait, busy, app_costs);

  // The peer.
  const TrafficSection& t = s.traffic;
  switch (t.kind) {
    case TrafficKind::ping_pong: {
      PingPongClient& client = host.ping_pong_clients.emplace_back(
          world, *host.port, 0, udp_frame_bytes(t.msg_size), t.mps);
      host.peers[0] = client.endpoint();
      client.start();
      break;
    }
    case TrafficKind::request_response:
      host.peers[0] = host.request_senders.emplace_back(world, host.port->link()).endpoint();
      [[fallthrough]];
    default: {
      auto stream = make_stream(s, host.port->link(), 0);
      if (!stream) return stream.error();
      host.port->add_stream(std::move(stream.value()));
      break;
    }
  }
  return std::nullopt;
}

}  // namespace irqmod::sim
