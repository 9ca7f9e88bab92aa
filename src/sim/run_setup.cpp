// The set-up and the end every kind of run shares. See run_setup.hpp.
#include "sim/run_setup.hpp"

#include "sim/cpu/scheduler.hpp"

namespace irqmod::sim {

void start_run(Machine& m, const Scenario& s, std::uint32_t vectors) {
  RunReport& report = m.world.report;
  report.scenario = s.scenario.name;
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
