// What the three kinds of run share: the network host's (builder.cpp, simulation.cpp), AF_XDP's
// (xdp/xdp_run.cpp) and storage's (storage/storage_run.cpp). Each starts the report and builds
// its cores (with NET_RX where it has NAPI contexts) first, marks the warm-up's end, runs the
// engine to the scenario's end with the same progress reports, and ends the same way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// The cores of a run, and their NET_RX softirq. Deques: elements never move once built, so the
// references components hold to them stay valid.
struct Machine {
  explicit Machine(World& w) : world(w) {}
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  World& world;
  std::deque<Core> cores;
  std::deque<NetRx> net_rx;  // by core; empty in a run without NAPI contexts (storage)
};

// The report's header (the scenario's name and seed, the time measured), its `vectors`
// interrupt counters and a row per core; then cpu.cores cores, each with its own cost stream and
// the scheduler's slice (cpu.sched-slice, or the kernel's for that many cores).
void start_run(Machine& machine, const Scenario& scenario, std::uint32_t vectors);

// Whether nothing in the run is drawn: every distribution-valued key (the [cpu] costs, each
// flow's jitter and peer turnaround, a drive's service time) is a constant, and every flow's
// arrivals are a fixed schedule (not Poisson, open-loop requests or a capture), and a lab run's
// client is sockperf (irqmod load's requests are Poisson). Its latency percentiles are then one
// number by construction, which the report says beside them.
bool inputs_are_constant(const Scenario& scenario);

// NET_RX on every core, each with room for `contexts` NAPI contexts on its poll list (napi.*'s
// budgets, ksoftirqd); by core.
std::vector<NetRx*> add_net_rx(Machine& machine, const Scenario& scenario, std::size_t contexts);

// The end of the warm-up (scenario.warmup, if any): every core's time charged to that instant,
// `complete()` (what the run puts in the report only at its end: counters copied from the
// components; and what restarts there), then the report so far kept aside and its histograms
// started again. At the end, subtract_from() leaves what came after it (subtract_warmup).
template <class Complete>
class WarmupMark {
 public:
  WarmupMark(Machine& machine, const Scenario& scenario, Complete complete)
      : machine_(machine), complete_(std::move(complete)), warmup_(scenario.scenario.warmup) {
    Engine& engine = machine_.world.engine;
    if (warmup_ > Duration::zero())
      engine.schedule(at_ns(0) + warmup_, engine.bind<&WarmupMark::on_event>(*this), 0);
  }
  WarmupMark(const WarmupMark&) = delete;
  WarmupMark& operator=(const WarmupMark&) = delete;

  void on_event(const Event&) {
    World& world = machine_.world;
    for (Core& core : machine_.cores)
      core.charge_to_now();
    complete_();
    at_warmup_ = world.report;
    at_warmup_.sim_time = world.now() - at_ns(0);
    world.report.latency = LatencyHistogram{};
    if (world.report.ping) world.report.ping->rtt = LatencyHistogram{};
    if (world.report.lab_client) {
      world.report.lab_client->lag = LatencyHistogram{};
      world.report.lab_client->request_half = LatencyHistogram{};
      world.report.lab_client->reply_half = LatencyHistogram{};
    }
  }

  void subtract_from(RunReport& report) const {
    if (warmup_ > Duration::zero()) subtract_warmup(report, at_warmup_);
  }

 private:
  Machine& machine_;
  Complete complete_;
  Duration warmup_;
  RunReport at_warmup_;
};

// Runs the engine to the scenario's end. `around(event)` dispatches each event (and does what the
// run does around it: landing frames, sampling); options.progress hears the time reached about
// every 1 % of it, from the events there are, so that asking for it adds none.
template <class Around>
void run_to_end(World& world, const Scenario& scenario, const RunOptions& options,
                Around&& around) {
  Engine& engine = world.engine;
  const Instant end = at_ns(0) + scenario.scenario.duration;
  Instant next_progress{};
  const Duration progress_step = std::max(scenario.scenario.duration / 100, nanoseconds(1));
  engine.run_until(end, [&](const Event& event) {
    around(event);
    if (options.progress && engine.now() >= next_progress) {
      options.progress(options.progress_context, engine.now(), end);
      next_progress = engine.now() + progress_step;
    }
  });
}

// Every core's time charged to the end, and the engine's counts in the report.
void finish_run(Machine& machine);

}  // namespace irqmod::sim
