// Builds and runs a lab scenario. See lab_run.hpp.
#include "sim/lab/lab_run.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/app/lab_client.hpp"
#include "sim/app/server.hpp"
#include "sim/builder.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/cpu/scheduler.hpp"
#include "sim/dev/veth.hpp"
#include "sim/host/backlog.hpp"
#include "sim/host/loopback.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/stack.hpp"
#include "sim/policy_config.hpp"
#include "sim/run_setup.hpp"
#include "sim/scenario_values.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

Application::Wait application_wait(Wait wait) {
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

// A stack's software device: one veth queue (the peer end's receive queue), or the loopback
// device with the backlog target of the receiving stack.
struct VethXmit {
  VethQueue* queue = nullptr;
  std::deque<Core>* cores = nullptr;
  const Peers* peers = nullptr;
  DeviceXmit endpoint() {
    return DeviceXmit{[](void* self, const Packet& frame, std::uint32_t core) {
                        auto& x = *static_cast<VethXmit*>(self);
                        if (x.queue->xmit(frame, (*x.cores)[core])) return true;
                        report_lost(*x.peers, frame.flow);
                        return false;
                      },
                      this};
  }
};
struct LoopbackXmit {
  Loopback* device = nullptr;
  std::uint8_t target = 0;
  DeviceXmit endpoint() {
    return DeviceXmit{[](void* self, const Packet& frame, std::uint32_t core) {
                        auto& x = *static_cast<LoopbackXmit*>(self);
                        return x.device->xmit(frame, core, x.target);
                      },
                      this};
  }
};

// Every component of a lab run. Deques: addresses stay put once built.
struct LabHost {
  explicit LabHost(World& w) : world(w), machine(w) {}
  World& world;
  Machine machine;  // the cores and their NET_RX
  Peers peers;
  std::deque<Stack> stacks;           // [0]: the server's namespace, [1]: the client's
  std::deque<Socket> server_sockets;  // one (the server's listening UDP socket, or its TCP ones)
  std::deque<Socket> client_sockets;  // by connection
  std::deque<VethQueue> veth;         // [0]: veth-srv's receive queue, [1]: veth-cli's
  std::deque<Backlog> backlogs;       // by core (loopback)
  std::optional<Loopback> loopback;
  VethXmit veth_xmit[2];
  LoopbackXmit loopback_xmit[2];
  std::optional<Application> server;
  std::optional<SockperfClient> sockperf;
  std::optional<LoadClient> load;

  Conservation books(std::uint64_t sent) const {
    Conservation b;
    b.entered = sent + stacks[0].tx_made();
    b.delivered = world.report.delivered_packets;
    b.dropped = world.report.drops.total();
    for (const VethQueue& q : veth)
      b.in_flight += q.queued() + q.polled();
    for (const Backlog& backlog : backlogs)
      b.in_flight += backlog.size();
    for (const std::deque<Socket>* sockets : {&server_sockets, &client_sockets}) {
      for (const Socket& socket : *sockets)
        b.in_flight += socket.size();
    }
    return b;
  }

  // The client's and the server's counters into the report (the lags the client records there
  // itself).
  void lab_report() {
    const LabClientCounters& c = sockperf ? sockperf->counters() : load->counters();
    LabClientReport& r = world.report.lab_client.value();
    r.sent = c.sent;
    r.replies = c.replies;
    r.wakeups = c.wakeups;
    r.timeouts = c.timeouts;
    world.report.lab_server.value().wakeups = server->wakeups();
  }
};

}  // namespace

std::optional<Error> validate_lab(const Scenario& s) {
  const Scenario defaults = default_scenario_on(s);
  const LabSection& lab = s.lab;
  // Which keys a lab run reads at all is the schema's (KeySpec::readers, check_readers): what
  // is left are the rules between the keys it reads.
  if (lab.device == LabDevice::none) return std::nullopt;
  if (lab.client == LabClient::sockperf && lab.connections != 1) {
    return Error{"lab.connections",
                 "sockperf ping-pong uses one socket; allowed: 1 with "
                 "lab.client = \"sockperf\""};
  }
  if (lab.client == LabClient::load && lab.rate == 0) {
    return Error{"lab.rate",
                 "irqmod load needs a request rate (its Poisson process's mean); "
                 "allowed: 1 to 1000000"};
  }
  if (lab.client_core >= s.cpu.cores) {
    return Error{"lab.client-core", "core " + std::to_string(lab.client_core) +
                                        " does not exist; "
                                        "allowed: 0 to cpu.cores - 1 = " +
                                        std::to_string(s.cpu.cores - 1)};
  }
  if (lab.device == LabDevice::loopback && s.napi.threaded) {
    return Error{"napi.threaded",
                 "loopback's backlog NAPI is not threaded (only PREEMPT_RT or "
                 "the thread_backlog_napi boot option make it so); allowed: "
                 "false with lab.device = \"loopback\""};
  }
  if (lab.device == LabDevice::loopback && lab.ring != defaults.lab.ring) {
    return Error{"lab.ring",
                 "is veth's ring; loopback has the backlog (napi.netdev_max_backlog); "
                 "allowed: the default with lab.device = \"loopback\""};
  }
  return std::nullopt;
}

Expected<RunReport> simulate_lab(const Scenario& s, const RunOptions& options) {
  const CpuSection& cpu = s.cpu;
  const LabSection& lab = s.lab;
  const bool veth = lab.device == LabDevice::veth;
  auto world = std::make_unique<World>();
  world->trace = options.trace;
  RunReport& report = world->report;
  auto host = std::make_unique<LabHost>(*world);
  Machine& machine = host->machine;
  start_run(machine, s, 0);
  report.kernel = s.kernel;
  report.kernel_driver = lab.device == LabDevice::veth ? "veth" : "loopback";
  report.lab_client.emplace();
  report.lab_server.emplace();
  if (!s.kernel.empty()) {
    // The NIC driver's rows (nic.*) have no device here.
    for (KernelSetting& k : kernel_settings(s))
      if (k.key.rfind("nic.", 0) != 0) report.kernel_settings.push_back(std::move(k));
  }
  // Cores and their NET_RX (veth: both ends' NAPIs may be on one core's list; loopback: the
  // core's backlog).
  for (Core& core : machine.cores) {
    core.set_idle_exit(idle_exit(s));
    core.set_wakeup_ipi(s.cpu.wakeup_ipi);
    core.set_waker_wakeup(waker_wakeup(s));
    core.set_noise(host_noise(s), Rng(s.scenario.seed, stream::kNoise + core.index()));
  }
  const std::vector<NetRx*> net_rx = add_net_rx(machine, s, veth ? 2 : 1);
  std::deque<Core>& cores = machine.cores;

  // The connections: flow i is connection i, each side with its socket; the server answers all.
  const std::uint32_t flows = lab.connections;
  host->peers.resize(flows);
  for (PeerEndpoint& peer : host->peers) {
    peer.answered = true;
    peer.lost = [](void* self, std::uint32_t) {
      ++static_cast<World*>(self)->report.sockperf.dropped;
    };
    peer.self = world.get();
  }
  Stack& server_stack = host->stacks.emplace_back(*world, host->peers, flows, cpu.cores);
  Stack& client_stack = host->stacks.emplace_back(*world, host->peers, flows, cpu.cores);
  Socket& server_socket = host->server_sockets.emplace_back();
  std::vector<Socket*> client_sockets;
  for (std::uint32_t f = 0; f < flows; ++f) {
    client_sockets.push_back(&host->client_sockets.emplace_back());
    server_stack.bind(f, server_socket, false, f);
    client_stack.bind(f, *client_sockets.back(), false, f);
  }

  const bool tcp = lab.tcp;
  const Distribution& rx_packet = tcp ? cpu.tcp_rx_packet : cpu.rx_packet;
  const Distribution& tx_packet = tcp ? cpu.tcp_tx_packet : cpu.tx_packet;
  const Distribution& app_message = tcp ? cpu.tcp_app_message : cpu.app_message;
  const Distribution& xmit = veth ? cpu.veth_xmit : cpu.backlog_enqueue;
  std::vector<NapiInstance*> napis;  // by NAPI id - 1
  if (veth) {
    // veth-srv's queue (requests, NAPI id 1) carries the [napi] settings (irqmod napi set --dev
    // veth-srv); veth-cli's (replies, id 2) the kernel's defaults. An unpinned NAPI thread runs
    // on its sender's core (research §2.6: measured there).
    const Scenario defaults = default_scenario_on(s);
    VethConfig server_end;
    server_end.ring = lab.ring;
    server_end.napi = napi_settings(s);
    server_end.costs = VethCosts{cpu.veth_poll, cpu.veth_packet, rx_packet};
    VethConfig client_end = server_end;
    client_end.napi.context = napi_config(defaults);
    client_end.napi.thread.core.reset();
    host->veth.emplace_back(*world, 1, server_end, net_rx, lab.client_core,
                            server_stack.rx_endpoint());
    host->veth.emplace_back(*world, 2, client_end, net_rx, cpu.app_core,
                            client_stack.rx_endpoint());
    host->veth_xmit[0] = VethXmit{&host->veth[0], &cores, &host->peers};
    host->veth_xmit[1] = VethXmit{&host->veth[1], &cores, &host->peers};
    client_stack.set_device_xmit(host->veth_xmit[0].endpoint());
    server_stack.set_device_xmit(host->veth_xmit[1].endpoint());
    napis = {&host->veth[0].napi(), &host->veth[1].napi()};
  } else {
    std::vector<Backlog*> backlogs;
    for (NetRx& n : machine.net_rx) {
      Backlog& backlog = host->backlogs.emplace_back(*world, n, server_stack, s.napi.max_backlog,
                                                     static_cast<int>(s.napi.weight),
                                                     BacklogCosts{cpu.backlog_poll, rx_packet, {}});
      backlog.add_target(client_stack);  // target 1
      backlogs.push_back(&backlog);
    }
    host->loopback.emplace(*world, backlogs, host->peers);
    host->loopback_xmit[0] = LoopbackXmit{&*host->loopback, 0};
    host->loopback_xmit[1] = LoopbackXmit{&*host->loopback, 1};
    client_stack.set_device_xmit(host->loopback_xmit[0].endpoint());
    server_stack.set_device_xmit(host->loopback_xmit[1].endpoint());
  }

  // The server: irqmod serve's loop as the Application's wait.
  const Application::Wait wait = application_wait(cpu.app_wait);
  BusyPollSettings busy;
  busy.usecs = static_cast<std::uint32_t>(
      (wait == Application::Wait::epoll ? s.napi.busy_poll : s.napi.busy_read).count() / 1000);
  busy.prefer = s.napi.prefer_busy_poll;
  busy.prefer_starts_loop = wait == Application::Wait::epoll && s.napi.epoll_prefer_busy_loop;
  busy.budget = static_cast<int>(s.napi.busy_poll_budget);
  busy.iteration = cpu.busy_poll_iteration;
  const ApplicationCosts server_costs{
      cpu.syscall,        app_message,    tx_packet,      cpu.wakeup,
      cpu.context_switch, cpu.epoll_wait, cpu.recv_empty, xmit};
  host->server.emplace(*world, cores[cpu.app_core], server_socket, napis, server_stack, host->peers,
                       wait, busy, server_costs);
  if (wait == Application::Wait::epoll && s.napi.busy_read > Duration::zero()) {
    BusyPollSettings recv = busy;
    recv.usecs = 0;  // sk_busy_loop(sk, nonblock): one iteration
    recv.prefer_starts_loop = false;
    host->server->set_recv_busy_poll(recv);
  }
  host->server->set_epoll_timeout(cpu.epoll_timeout, hrtimer_costs(s));
  host->server->set_adaptive(serve_adaptive_config(cpu.hrtimer_late, idle_exit(s), cpu.hypervisor,
                                                   cpu.wakeup.mean() + cpu.context_switch.mean()));

  // The client.
  const LabClientCosts client_costs{cpu.syscall,    tx_packet,      xmit,
                                    app_message,    cpu.wakeup,     cpu.context_switch,
                                    cpu.epoll_wait, cpu.recv_empty, hrtimer_costs(s)};
  LabClientSockets sockets{client_sockets, 0, lab.msg_size};
  Core& client_core = cores[lab.client_core];
  if (lab.client == LabClient::sockperf) {
    host->sockperf.emplace(*world, client_core, client_stack, sockets, lab.rate, client_costs);
    host->sockperf->start();
  } else {
    host->load.emplace(*world, client_core, client_stack, sockets, lab.rate,
                       Rng(s.scenario.seed, stream::kTraffic), client_costs);
    host->load->start();
  }

  if (world->trace) {
    world->trace->process_name(kTraceCpu, "cpu");
    for (const Core& core : cores)
      world->trace->thread_name(kTraceCpu, core.index(), "core " + std::to_string(core.index()));
  }
  WarmupMark warmup(machine, s, [&host] { host->lab_report(); });
  run_to_end(*world, s, options, [&](const Event& event) { world->engine.dispatch(event); });
  finish_run(machine);
  host->lab_report();

  const std::uint64_t sent =
      host->sockperf ? host->sockperf->counters().sent : host->load->counters().sent;
  report.conservation = host->books(sent);
  if (world->model_limit) return *world->model_limit;
  if (auto error = report.conservation.check()) return *error;
  warmup.subtract_from(report);
  return std::move(report);
}

}  // namespace irqmod::sim
