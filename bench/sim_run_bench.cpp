// The whole simulator on the shipped scenario scenarios/basics/stream-10g-dim.toml: 10 GbE, 64 B
// frames at line rate (14.88 M frames per simulated second), net_dim on Rx, preset B costs.
//
// Goals (printed, not asserted; issue 4): one simulated second in at most one second of wall
// time on one core ("wall_s_per_sim_s" <= 1); memory independent of the simulated duration
// ("peak_pending_events" the same for 100 ms and 1 s: rings, histogram and counters are sized at
// set-up, so the event heap is the only thing that could grow).
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {
namespace {

void BM_sim_run_stream_10g_dim(benchmark::State& state) {
  const std::string file = std::string(IRQMOD_SCENARIO_DIR) + "/basics/stream-10g-dim.toml";
  const std::string duration = "scenario.duration=" + std::to_string(state.range(0)) + "ms";
  const std::string overrides[] = {duration};
  LoadResult loaded = load_scenario_file(file, overrides);
  if (!loaded) {
    state.SkipWithError(loaded.error().what().c_str());
    return;
  }
  std::uint64_t entered = 0, events = 0;
  std::size_t peak = 0;
  double wall_s = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto report = simulate(loaded.value());
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!report) {
      state.SkipWithError(report.error().what().c_str());
      return;
    }
    entered += report.value().conservation.entered;
    events += report.value().events;
    peak = report.value().peak_pending_events;
  }
  const double sim_s =
      static_cast<double>(state.range(0)) / 1000.0 * static_cast<double>(state.iterations());
  state.counters["sim_packets_per_wall_s"] = static_cast<double>(entered) / wall_s;
  state.counters["events_per_wall_s"] = static_cast<double>(events) / wall_s;
  state.counters["wall_s_per_sim_s"] = wall_s / sim_s;
  state.counters["peak_pending_events"] = static_cast<double>(peak);
}
BENCHMARK(BM_sim_run_stream_10g_dim)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace irqmod::sim
