// The set-up and the end every kind of run shares. See run_setup.hpp.
#include "sim/run_setup.hpp"

#include "sim/cpu/scheduler.hpp"

namespace irqmod::sim {

void start_run(Machine& m, const Scenario& s, std::uint32_t vectors) {
  RunReport& report = m.world.report;
  report.scenario = s.scenario.name;
  report.platform = s.platform;
  report.constant_inputs = inputs_are_constant(s);
  report.seed = s.scenario.seed;
  report.sim_time = s.scenario.duration;
  report.interrupts = InterruptCounters(vectors);
  report.cpu = CpuTime(s.cpu.cores);
  report.cores.resize(s.cpu.cores);
  const Duration slice =
      s.cpu.sched_slice > Duration::zero() ? s.cpu.sched_slice : kernel_slice(s.cpu.cores);
  for (std::uint32_t c = 0; c < s.cpu.cores; ++c)
    m.cores.emplace_back(m.world, c, Rng(s.scenario.seed, stream::kCpuCosts + c), slice);
}

bool inputs_are_constant(const Scenario& s) {
  if (s.lab.device != LabDevice::none && s.lab.client == LabClient::load) return false;
  const RunKind kind = run_kind(s);
  for (const KeySpec& key : schema()) {
    // Only what this kind of run draws: a platform's costs for another path are not charged.
    if (key.kind != ValueKind::distribution || !key.readers.has(kind)) continue;
    const bool per_flow = key.name.substr(0, 8) == "traffic.";
    const std::size_t entries = per_flow ? 1 + s.flows.size() : 1;
    for (std::size_t e = 0; e < entries; ++e) {
      const Value v = key.binding.load(s, e);
      if (!std::get<Distribution>(v).is_constant()) return false;
    }
  }
  const auto fixed = [](const TrafficSection& t) {
    // A closed loop (traffic.depth at rate 0) draws no times: its requests follow the answers.
    return t.kind != TrafficKind::poisson && t.kind != TrafficKind::pcap &&
           (t.kind != TrafficKind::request_response || (t.depth > 0 && t.rate == 0));
  };
  return fixed(s.traffic) && std::all_of(s.flows.begin(), s.flows.end(), fixed);
}

std::vector<NetRx*> add_net_rx(Machine& m, const Scenario& s, std::size_t contexts) {
  const NetRx::Budget budget{static_cast<int>(s.napi.netdev_budget), s.napi.netdev_budget_usecs,
                             s.napi.ksoftirqd};
  std::vector<NetRx*> by_core;
  for (Core& core : m.cores)
    by_core.push_back(&m.net_rx.emplace_back(core, budget, contexts));
  return by_core;
}

void finish_run(Machine& m) {
  for (Core& core : m.cores)
    core.finish();
  RunReport& report = m.world.report;
  report.events = m.world.engine.stats().dispatched;
  report.peak_pending_events = m.world.engine.stats().peak_pending;
}

}  // namespace irqmod::sim
