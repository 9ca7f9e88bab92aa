// Scenario -> components. See builder.hpp.
#include "sim/builder.hpp"

#include <string>

#include "irqmod/napi/kernel.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/nic/rss.hpp"
#include "sim/policy_config.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim {

Conservation Host::books() const {
  Conservation books;
  for (const RxQueue& rx : rx_queues) {
    books.entered += rx.arrived();
    books.in_flight += rx.size();
  }
  for (const QueueVector& q : queue_vectors)
    books.in_flight += static_cast<std::uint64_t>(q.clean().polled());
  for (const Socket& socket : sockets)
    books.in_flight += socket.size();
  for (const TxQueue& queue : egress_queues)
    books.in_flight += queue.queued();  // forwarded frames waiting in port 1's qdisc
  for (const Backlog& backlog : backlogs)
    books.in_flight += backlog.size();  // frames waiting for the stack
  books.delivered = world.report.delivered_packets;
  // Replies lost on the Tx ring were delivered first; conservation counts received frames.
  const DropCounters& drops = world.report.drops;
  books.dropped =
      drops.total() - drops.count(DropReason::tx_ring_full) - drops.count(DropReason::qdisc_full);
  return books;
}

Conservation Host::tx_books() const {
  Conservation books;
  books.entered = stack ? stack->tx_made() : 0;
  for (const SoftirqTx& tx : softirq_tx) {
    books.entered += tx.added() - tx.segments();  // made there, not handed to the stack yet
    books.in_flight += tx.waiting();
  }
  for (const std::deque<TxQueue>* queues : {&tx_queues, &egress_queues}) {
    for (const TxQueue& queue : *queues) {
      books.delivered += queue.sent();
      books.dropped += queue.dropped();
      books.in_flight += queue.queued();
    }
  }
  return books;
}

namespace {

// Flow entry `entry`'s generator (constant, Poisson, on-off, pcap and the requests of
// request-response). Error: a capture that cannot be loaded.
Expected<Generator> make_generator(const TrafficSection& t, const Link& link,
                                   const std::string& key_prefix) {
  const std::uint32_t size =
      t.kind == TrafficKind::request_response ? udp_frame_bytes(t.msg_size) : t.size;
  const auto spacing = [&] {
    return t.rate > 0 ? Spacing::per_second(t.rate) : Spacing::fixed(link.occupancy_ps(size));
  };
  switch (t.kind) {
    case TrafficKind::constant:
      return Generator(ConstantRate(spacing(), size));
    case TrafficKind::request_response:
    case TrafficKind::poisson:
      return Generator(Poisson(t.rate, size));
    case TrafficKind::on_off:
      return Generator(OnOff(spacing(), size, t.on_time.count() * 1000, t.off_time.count() * 1000));
    case TrafficKind::pcap: {
      auto trace = load_pcap(t.pcap);
      if (!trace) return Error{key_prefix + "pcap", trace.error().what()};
      return Generator(
          TraceReplay(std::make_shared<const Trace>(std::move(trace.value())), t.pcap_loop));
    }
    case TrafficKind::ping_pong:
    case TrafficKind::tcp_maerts:
    case TrafficKind::tcp_stream:
    case TrafficKind::ping:
      break;
  }
  return Error{key_prefix + "kind", "not a generator"};
}

std::string key_prefix(std::size_t entry) {
  return entry == 0 ? "traffic." : "flow." + std::to_string(entry) + ".";
}

Application::Wait wait_of(Wait wait) {
  switch (wait) {
    case Wait::epoll:
      return Application::Wait::epoll;
    case Wait::adaptive_poll:
      return Application::Wait::adaptive_poll;
    case Wait::spin:
      return Application::Wait::spin;
    case Wait::recv:
      break;
  }
  return Application::Wait::recv;
}

}  // namespace

// The kernel switches in effect, for the report: each one the model applies, with its value and
// whether the scenario set it against the kernel's (an explicit key wins over `kernel`).
std::vector<KernelSetting> kernel_settings(const Scenario& s) {
  std::vector<KernelSetting> settings;
  const auto version = napi::parse_kernel_version(s.kernel);
  if (!version) return settings;  // checked when the scenario was loaded
  for (const napi::KernelBehaviour& b : napi::kernel_behaviours()) {
    if (b.kind != napi::BehaviourKind::switch_value ||
        !napi::applies_to_driver(b, to_string(s.nic.driver)) ||
        (!b.when.empty() && !kernel_condition_holds(b.when, s)))
      continue;
    const KeySpec* spec = find_key(b.key);
    if (!spec) continue;
    const Value value = spec->binding.load(s, 0);
    const auto matches = [&](std::string_view text) {
      const auto parsed = detail::parse_text(*spec, text);
      return parsed.ok() && parsed.value() == value;
    };
    KernelSetting k{std::string(b.key),
                    "",
                    napi::has_commit(b, *version),
                    !matches(napi::value_on(b, *version)),
                    std::string(b.commit),
                    std::string(b.title),
                    napi::to_string(b.release)};
    k.value = matches(b.after) ? b.after : matches(b.before) ? b.before : "another value";
    settings.push_back(std::move(k));
  }
  return settings;
}

std::optional<Error> build(const Scenario& s, Host& host) {
  World& world = host.world;
  const CpuSection& cpu = s.cpu;
  const NicSection& nic = s.nic;
  const bool router = nic.ports == 2;
  // Port 0's vectors, then (a router with Tx interrupts) one per Tx queue of port 1.
  const std::uint32_t vectors =
      nic.queues * (nic.tx_interrupts && nic.vectors == VectorLayout::separate ? 2 : 1) +
      (router && nic.tx_interrupts ? nic.queues : 0);
  // Cores and their NET_RX softirq; a core's poll list holds the device contexts and its own
  // backlog. A network host's cores pay the idle exit (cpu.wakeup-idle).
  start_run(host, s, vectors);
  for (Core& core : host.cores) {
    core.set_idle_exit(idle_exit(s));
    core.set_wakeup_ipi(s.cpu.wakeup_ipi);
    core.set_waker_wakeup(waker_wakeup(s));
    core.set_noise(host_noise(s), Rng(s.scenario.seed, stream::kNoise + core.index()));
  }
  std::vector<NetRx*> net_rx = add_net_rx(host, s, vectors + (s.napi.rx_backlog ? 1 : 0));
  RunReport& report = world.report;
  report.kernel = s.kernel;
  report.kernel_driver = std::string(to_string(s.nic.driver));
  if (!s.kernel.empty()) report.kernel_settings = kernel_settings(s);
  host.msix.emplace(world, cpu.irq_entry, cpu.irq_handler);
  host.port.emplace(world, s.link.speed_bps, nic.dma_delay);
  if (router) host.egress.emplace(world, s.link.speed_bps, nic.dma_delay);

  // The flows' 4-tuples: each entry's `flows` of them, numbered in entry order.
  std::vector<std::uint32_t> first_tuple(s.flow_count());
  std::uint32_t tuples = 0;
  for (std::size_t e = 0; e < s.flow_count(); ++e) {
    first_tuple[e] = tuples;
    tuples += s.flow(e).flows;
  }
  // TCP connections add a flow each for their ACKs, numbered after the tuples: those the host
  // sends (tcp-maerts), then those it receives (tcp-stream).
  std::uint32_t tcp_connections = 0;
  std::uint32_t stream_connections = 0;
  std::uint32_t probe_flows = 0;  // a TCP ping-pong's connections: their loss probes' copies
  bool softirq_tx = false;        // a flow whose frames the stack sends from softirq context
  for (std::size_t e = 0; e < s.flow_count(); ++e) {
    const TrafficKind kind = s.flow(e).kind;
    const bool tcp_ping_pong =
        kind == TrafficKind::ping_pong && s.flow(e).protocol == Protocol::tcp;
    if (kind == TrafficKind::tcp_maerts) tcp_connections += s.flow(e).flows;
    if (kind == TrafficKind::tcp_stream) stream_connections += s.flow(e).flows;
    if (tcp_ping_pong) probe_flows += s.flow(e).flows;
    softirq_tx =
        softirq_tx || kind == TrafficKind::tcp_stream || kind == TrafficKind::ping || tcp_ping_pong;
  }
  const std::uint32_t flows = tuples + tcp_connections + stream_connections + probe_flows;
  host.peers.resize(flows);
  host.stack.emplace(world, host.peers, flows, cpu.cores);
  if (tcp_connections + stream_connections > 0) {
    host.tcp.emplace(world, *host.stack, flows);
    host.stack->set_tcp(&*host.tcp);
  }
  if (softirq_tx) {
    std::vector<SoftirqTx*> by_core;
    for (Core& core : host.cores) {
      by_core.push_back(&host.softirq_tx.emplace_back(
          world, core, *host.stack, SoftirqTxCosts{cpu.tx_packet, cpu.gso_segment}));
    }
    host.stack->set_softirq_tx(std::move(by_core));
  }
  if (stream_connections > 0) report.tcp.emplace();
  if (s.napi.rx_backlog) {
    std::vector<Backlog*> backlogs;
    for (NetRx& n : host.net_rx) {
      backlogs.push_back(&host.backlogs.emplace_back(world, n, *host.stack, s.napi.max_backlog,
                                                     static_cast<int>(s.napi.weight),
                                                     BacklogCosts{{}, {}, cpu.forward}));
    }
    host.stack->set_backlogs(std::move(backlogs));
  }

  // One socket per application thread; a thread's core makes it that core's reuseport member.
  std::vector<std::uint32_t> thread_core{cpu.app_core};
  std::vector<Wait> thread_wait{cpu.app_wait};
  for (const ThreadSection& t : s.threads) {
    thread_core.push_back(t.core);
    thread_wait.push_back(t.wait);
  }
  for (std::size_t t = 0; t < thread_core.size(); ++t) {
    host.stack->bind_core(thread_core[t], host.sockets.emplace_back());
  }

  // RSS: the key netdev_rss_key_fill would draw at boot, the default indirection table.
  Rng key_rng(s.scenario.seed, stream::kRssKey);
  const RssKey key = random_rss_key(key_rng);
  const IndirectionTable table(nic.rss_table, nic.queues);
  std::vector<std::uint16_t> queue_of_tuple(flows);
  std::uint32_t next_stream_ack = tuples + tcp_connections;
  std::uint32_t next_probe_flow = tuples + tcp_connections + stream_connections;
  std::vector<std::uint32_t> first_probe_flow(s.flow_count());
  for (std::size_t e = 0; e < s.flow_count(); ++e) {
    const TrafficSection& t = s.flow(e);
    for (std::uint32_t i = 0; i < t.flows; ++i) {
      const std::uint32_t tuple = first_tuple[e] + i;
      const std::uint32_t hash = rss_hash_4tuple(key, benchmark_flow(tuple));
      queue_of_tuple[tuple] = static_cast<std::uint16_t>(
          t.steering == Steering::queue ? t.queue : table.queue_of(hash));
      if (t.kind == TrafficKind::tcp_stream) {
        // The connection's ACKs come in on its own 4-tuple: the same Rx queue.
        const std::uint32_t ack_flow = next_stream_ack++;
        queue_of_tuple[ack_flow] = queue_of_tuple[tuple];
        host.stack->bind_stack(ack_flow, false, hash);
      }
      if (t.kind == TrafficKind::ping_pong && t.protocol == Protocol::tcp) {
        // The loss probes' copies: the same connection, so the same Rx queue and Tx queue.
        const std::uint32_t probe = next_probe_flow++;
        if (i == 0) first_probe_flow[e] = probe;
        queue_of_tuple[probe] = queue_of_tuple[tuple];
        host.stack->bind_duplicates(probe, hash);
        if (t.tx_steering == TxSteering::queue) host.stack->pin_tx_queue(probe, t.tx_queue);
      }
      if (t.kind == TrafficKind::ping) {
        host.stack->bind_stack(tuple, true, hash);
      } else if (t.forward) {
        host.stack->bind_forward(tuple, hash);
      } else {
        host.stack->bind(tuple, host.sockets[t.thread], t.deliver_to == DeliverTo::incoming_cpu,
                         hash);
      }
      if (t.tx_steering == TxSteering::queue) host.stack->pin_tx_queue(tuple, t.tx_queue);
    }
  }

  // The queues and their vectors. Vector q serves queue pair q (its Tx completions too, with
  // nic.tx-interrupts); with nic.vectors = "separate" and Tx interrupts, vectors Q..2Q-1 serve
  // the Tx queues. Vector v interrupts the (v mod n)-th core of cpu.irq-cores.
  const std::vector<std::uint32_t> irq_cores = parse_cpu_list(cpu.irq_cores).value();
  Mclgeti* mclgeti = nullptr;
  if (nic.refill == Refill::mclgeti) {
    host.mclgeti.emplace(
        world, host.cores[0],
        Mclgeti::Settings{nic.mclgeti_lwm, nic.mclgeti_hwm == 0 ? nic.rx_ring : nic.mclgeti_hwm,
                          cpu.hz});
    mclgeti = &*host.mclgeti;
  }
  const bool separate = nic.tx_interrupts && nic.vectors == VectorLayout::separate;
  std::vector<TxQueue*> tx_queues;
  const std::uint32_t tx_count = nic.tx_queues == 0 ? nic.queues : nic.tx_queues;
  for (std::uint32_t q = 0; q < tx_count; ++q) {
    tx_queues.push_back(&host.tx_queues.emplace_back(world, q, nic.tx_ring, nic.tx_queue_len,
                                                     nic.tx_interrupts, nic.dma_delay,
                                                     host.port->tx_wire(), host.peers));
  }
  host.stack->set_tx_queues(tx_queues, nic.xps);
  // `queue`: the queue pair whose per-NAPI settings (napi.queue.N) the vector's context takes;
  // port 1's vectors belong to another device and take the device-wide ones.
  const auto add_vector = [&](RxQueue* rx, TxQueue* tx, Port& port,
                              std::optional<std::uint32_t> queue) -> QueueVector& {
    const auto v = static_cast<std::uint32_t>(host.queue_vectors.size());
    Core& irq_core = host.cores[irq_cores[v % irq_cores.size()]];
    QueueVectorConfig config = queue_vector_config(s, queue);
    config.clean.refill.mclgeti = mclgeti;
    QueueVector& vector = host.queue_vectors.emplace_back(
        world, config, v, rx, tx, *host.msix, irq_core, net_rx, host.stack->rx_endpoint(),
        host.peers, port.lazy_arrivals(), Rng(s.scenario.seed, stream::kRefill + v));
    if (tx) port.add_tx_completions(*tx, vector);
    return vector;
  };
  std::vector<QueueVector*> rx_vectors;
  for (std::uint32_t q = 0; q < nic.queues; ++q) {
    RxQueue& rx =
        host.rx_queues.emplace_back(nic.rx_ring, nic.refill_delay, nic.refill != Refill::delay);
    if (mclgeti) {
      // ixgbe_init's first ixgbe_rxfill: as many clusters as the initial watermark allows.
      rx.start_without_buffers();
      std::uint32_t given = 0;
      while (given < nic.rx_ring && mclgeti->allocate())
        ++given;
      rx.refill(given, at_ns(0));
    }
    TxQueue* tx = nic.tx_interrupts && !separate ? tx_queues[q] : nullptr;
    rx_vectors.push_back(&add_vector(&rx, tx, *host.port, q));
    host.tx_vector_of_queue.push_back(tx ? std::optional<std::uint32_t>(q) : std::nullopt);
  }
  if (separate) {
    for (std::uint32_t q = 0; q < nic.queues; ++q)
      host.tx_vector_of_queue[q] = add_vector(nullptr, tx_queues[q], *host.port, q).index();
  }
  // Tx queues beyond the pairs: queue t is served by vector t mod nic.queues (enetc_alloc_msix).
  for (std::uint32_t t = nic.queues; t < tx_count; ++t) {
    std::optional<std::uint32_t> vector;
    if (nic.tx_interrupts) {
      QueueVector& v = *rx_vectors[t % nic.queues];
      v.add_tx(*tx_queues[t]);
      host.port->add_tx_completions(*tx_queues[t], v);
      vector = v.index();
    }
    host.tx_vector_of_queue.push_back(vector);
  }
  if (router) {
    // Port 1 has the same queues; its Rx side carries nothing, its Tx completions raise vectors
    // of their own (the driver's vectors of the second interface).
    std::vector<TxQueue*> egress;
    for (std::uint32_t q = 0; q < nic.queues; ++q) {
      egress.push_back(&host.egress_queues.emplace_back(world, q, nic.tx_ring, nic.tx_queue_len,
                                                        nic.tx_interrupts, nic.dma_delay,
                                                        host.egress->tx_wire(), host.peers, true));
    }
    for (std::uint32_t q = 0; q < nic.queues; ++q) {
      host.egress_vector_of_queue.push_back(
          nic.tx_interrupts
              ? std::optional<std::uint32_t>(
                    add_vector(nullptr, egress[q], *host.egress, std::nullopt).index())
              : std::nullopt);
    }
    host.stack->set_egress_queues(std::move(egress));
  }
  host.port->set_queues(rx_vectors, std::move(queue_of_tuple));
  std::vector<NapiInstance*> napis;  // every vector's NAPI instance, by NAPI id - 1
  for (QueueVector& v : host.queue_vectors)
    napis.push_back(&v.napi());

  // The application threads.
  const ApplicationCosts app_costs{cpu.syscall,        cpu.app_message, cpu.tx_packet,  cpu.wakeup,
                                   cpu.context_switch, cpu.epoll_wait,  cpu.recv_empty, {}};
  for (std::size_t t = 0; t < thread_core.size(); ++t) {
    const Application::Wait wait = wait_of(thread_wait[t]);
    BusyPollSettings busy;
    // recv busy-polls for net.core.busy_read (sk_busy_loop), epoll_wait for net.core.busy_poll.
    busy.usecs = static_cast<std::uint32_t>(
        (wait == Application::Wait::epoll ? s.napi.busy_poll : s.napi.busy_read).count() / 1000);
    busy.prefer = s.napi.prefer_busy_poll;
    busy.prefer_starts_loop = wait == Application::Wait::epoll && s.napi.epoll_prefer_busy_loop;
    busy.budget = static_cast<int>(s.napi.busy_poll_budget);
    busy.iteration = cpu.busy_poll_iteration;
    host.applications.emplace_back(world, host.cores[thread_core[t]], host.sockets[t], napis,
                                   *host.stack, host.peers, wait, busy, app_costs);
    // cpu.epoll-timeout is thread 0's (irqmod serve's one loop).
    if (t == 0) host.applications.back().set_epoll_timeout(cpu.epoll_timeout, hrtimer_costs(s));
    host.applications.back().set_adaptive(
        serve_adaptive_config(cpu.hrtimer_late, idle_exit(s), cpu.hypervisor,
                              cpu.wakeup.mean() + cpu.context_switch.mean()));
  }

  // The peers: a client per ping-pong entry, a TCP sender or receiver per TCP entry, ping, a
  // generator per stream entry on the port's wire. The peer's bulk senders share one queue on
  // its side of the wire; its ACKs (tcp-stream) and echo requests go ahead of it (FarWire).
  host.far_wire.emplace(host.port->link());
  std::uint32_t next_ack_flow = 0;
  next_stream_ack = tuples + tcp_connections;
  const StreamWriterCosts writer_costs{cpu.syscall, cpu.app_message, cpu.copy_kb, cpu.wakeup,
                                       cpu.context_switch};
  for (std::size_t e = 0; e < s.flow_count(); ++e) {
    const TrafficSection& t = s.flow(e);
    PeerEndpoint peer;
    const Rng jitter_rng(s.scenario.seed, stream::kJitter + e);
    if (t.kind == TrafficKind::tcp_maerts) {
      // One path per connection; its ACKs are flow tuples + k.
      std::vector<TcpPath*> paths;
      for (std::uint32_t i = 0; i < t.flows; ++i)
        paths.push_back(&host.tcp_paths.emplace_back(kTcpAcksInFlight));
      TcpBulkSender& sender = host.tcp_senders.emplace_back(world, *host.port, host.far_wire->bulk,
                                                            first_tuple[e], paths, t.mss, t.window);
      TcpReceiver::Config config;
      config.rcv_mss = t.mss;
      for (std::uint32_t i = 0; i < t.flows; ++i) {
        const std::uint32_t ack_flow = tuples + next_ack_flow++;
        host.tcp->add(first_tuple[e] + i, ack_flow, *paths[i], config);
        host.peers[first_tuple[e] + i] = sender.data_endpoint(i);
        host.peers[ack_flow] = sender.ack_endpoint(i);
      }
      host.applications[t.thread].set_stream(cpu.copy_kb);
      continue;
    }
    if (t.kind == TrafficKind::tcp_stream) {
      // netserver's connections on the far side; netperf's writers on traffic.thread's core.
      std::vector<TcpReturnPath*> paths;
      for (std::uint32_t i = 0; i < t.flows; ++i)
        paths.push_back(&host.tcp_return_paths.emplace_back(kTcpAcksInFlight));
      TcpReceiver::Config receiver;
      receiver.rcv_mss = t.mss;
      TcpBulkReceiver& far = host.tcp_receivers.emplace_back(world, *host.port, *host.far_wire,
                                                             next_stream_ack, paths, receiver);
      TcpSender::Config sender;
      sender.mss = t.mss;
      sender.window = t.window;
      sender.send_buffer = t.send_buffer != 0 ? t.send_buffer : 2 * t.window;
      for (std::uint32_t i = 0; i < t.flows; ++i) {
        const std::uint32_t ack_flow = next_stream_ack++;
        const std::uint32_t n =
            host.tcp->add_sender(first_tuple[e] + i, ack_flow, *paths[i], sender);
        host.peers[first_tuple[e] + i] = far.data_endpoint(i);
        host.peers[ack_flow] = TcpBulkReceiver::ack_endpoint();
        host.stream_writers.emplace_back(host.cores[thread_core[t.thread]], *host.tcp, n,
                                         t.send_size, writer_costs);
      }
      continue;
    }
    if (t.kind == TrafficKind::ping) {
      if (!report.ping) report.ping.emplace();
      PingSender& ping = host.ping_senders.emplace_back(world, *host.port, *host.far_wire,
                                                        first_tuple[e], t.flows, t.size, t.rate);
      for (std::uint32_t i = 0; i < t.flows; ++i)
        host.peers[first_tuple[e] + i] = ping.endpoint();
      continue;
    }
    if (t.kind == TrafficKind::ping_pong) {
      std::optional<TcpProbeSettings> tcp;
      if (t.protocol == Protocol::tcp) {
        tcp = TcpProbeSettings{nanoseconds(1'000'000'000 / static_cast<std::int64_t>(t.peer_hz)),
                               t.rto_min, first_probe_flow[e]};
      }
      const std::uint32_t frame_bytes = t.protocol == Protocol::tcp ? t.msg_size + kTcpFrameOverhead
                                                                    : udp_frame_bytes(t.msg_size);
      PingPongClient& client = host.ping_pong_clients.emplace_back(
          world, *host.port, first_tuple[e], t.flows, frame_bytes, t.mps, t.jitter, jitter_rng, tcp,
          ClientTurnaround{t.peer_turnaround, Rng(s.scenario.seed, stream::kTurnaround + e)});
      peer = client.endpoint();
      if (tcp) {
        for (std::uint32_t i = 0; i < t.flows; ++i)
          host.peers[tcp->first_probe_flow + i] = client.probe_endpoint();
      }
    } else {
      if (t.kind == TrafficKind::request_response && t.depth > 0) {
        ClosedLoopSender& sender = host.closed_loop_senders.emplace_back(
            world, *host.port, first_tuple[e], t.flows, t.depth, t.rate,
            udp_frame_bytes(t.msg_size), t.client_delay,
            Rng(s.scenario.seed, stream::kTraffic + e));
        for (std::uint32_t i = 0; i < t.flows; ++i)
          host.peers[first_tuple[e] + i] = sender.endpoint();
        continue;
      }
      if (t.kind == TrafficKind::request_response) {
        peer = host.request_senders
                   .emplace_back(world, host.port->link(), t.latency == LatencyReport::round_trip,
                                 t.client_delay)
                   .endpoint();
      } else if (t.forward) {
        peer = host.forward_receivers.emplace_back(world).endpoint();
      }
      auto generator = make_generator(t, host.port->link(), key_prefix(e));
      if (!generator) return generator.error();
      host.port->arrivals().add_source(std::move(generator.value()),
                                       Rng(s.scenario.seed, stream::kTraffic + e), first_tuple[e],
                                       t.flows, t.jitter, jitter_rng);
    }
    for (std::uint32_t i = 0; i < t.flows; ++i)
      host.peers[first_tuple[e] + i] = peer;
  }
  // Without a sockperf-like client no message is ever answered or dropped: the report says so
  // rather than print "0 dropped messages" beside the frames dropped (write_text).
  report.sockperf.one_way = host.ping_pong_clients.empty() && host.request_senders.empty() &&
                            host.closed_loop_senders.empty();
  host.port->start();
  for (PingPongClient& client : host.ping_pong_clients)
    client.start();
  for (ClosedLoopSender& sender : host.closed_loop_senders)
    sender.start();
  for (TcpBulkSender& sender : host.tcp_senders)
    sender.start();
  for (PingSender& ping : host.ping_senders)
    ping.start();
  for (StreamWriter& writer : host.stream_writers)
    writer.begin();
  return std::nullopt;
}

void Host::fill_report() const {
  RunReport& report = world.report;
  report.queues.clear();
  // Vector q serves Rx queue q (builder); its Tx completions, tx_vector_of_queue[q].
  for (std::size_t q = 0; q < rx_queues.size(); ++q) {
    const QueueVector& v = queue_vectors[q];
    QueueCounters c;
    c.rx_vector = v.msix_vector();
    c.irq_core = v.irq_core();
    c.tx_vector = tx_vector_of_queue[q];
    c.rx_frames = rx_queues[q].arrived();
    c.rx_dropped = v.rx_dropped();
    c.rx_cleaned = v.rx_cleaned();
    c.vector = v.vector().counters();
    c.napi = v.napi().counters();
    c.polls = v.napi().polls();
    c.tx_frames = tx_queues[q].sent();
    report.queues.push_back(c);
  }
  report.napi_threads.clear();
  for (const QueueVector& v : queue_vectors) {
    const NapiInstance& napi = v.napi();
    if (!napi.threaded()) continue;
    const NapiThreadStats& t = napi.thread_stats();
    report.napi_threads.push_back(
        NapiThreadCounters{napi.id(), napi.thread_core(), t.wakeups, t.polls, t.yields});
  }
  if (mclgeti) report.mclgeti = mclgeti->counters();
  report.tx_only_queues.clear();
  for (std::size_t t = rx_queues.size(); t < tx_queues.size(); ++t) {
    report.tx_only_queues.push_back(
        EgressQueueCounters{tx_vector_of_queue[t], tx_queues[t].sent(), tx_queues[t].dropped()});
  }
  report.egress_queues.clear();
  for (std::size_t q = 0; q < egress_queues.size(); ++q) {
    report.egress_queues.push_back(EgressQueueCounters{
        egress_vector_of_queue[q], egress_queues[q].sent(), egress_queues[q].dropped()});
  }
}

}  // namespace irqmod::sim
