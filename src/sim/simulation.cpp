// One simulation run: build the components, run the engine to the end, check the books.
// See include/irqmod/sim/simulation.hpp for the model and src/sim/builder.hpp for the wiring.
#include "irqmod/sim/simulation.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "sim/builder.hpp"

namespace irqmod::sim {
namespace {

void name_trace(const Host& host, TraceWriter& trace) {
  trace.process_name(kTraceCpu, "cpu");
  for (const Core& core : host.cores)
    trace.thread_name(kTraceCpu, core.index(), "core " + std::to_string(core.index()));
  trace.process_name(kTraceNic, "nic");
  for (const QueueVector& v : host.queue_vectors) {
    std::string name = "vector " + std::to_string(v.index()) + ":";
    if (v.rx()) name += " rx queue " + std::to_string(v.index());
    const bool egress = std::any_of(host.egress_queues.begin(), host.egress_queues.end(),
                                    [&](const TxQueue& q) { return &q == v.tx(); });
    if (egress) name += " port 1";
    if (v.tx()) name += " tx queue " + std::to_string(v.tx()->index());
    trace.thread_name(kTraceNic, v.index(), name);
  }
}

// The end of the warm-up: the report so far is kept aside, to be subtracted at the end.
struct WarmupMark {
  Host* host = nullptr;
  RunReport at_warmup;
  void on_event(const Event&) {
    World& world = host->world;
    for (Core& core : host->cores)
      core.charge_to_now();
    host->fill_report();
    if (host->mclgeti) host->mclgeti->restart_extremes();
    at_warmup = world.report;
    at_warmup.sim_time = world.now() - at_ns(0);
    world.report.latency = LatencyHistogram{};
  }
};

}  // namespace

Expected<RunReport> simulate(const Scenario& scenario, const RunOptions& options) {
  auto world = std::make_unique<World>();
  world->trace = options.trace;
  world->event_per_arrival = options.event_per_arrival;
  auto host = std::make_unique<Host>(*world);
  if (auto error = build(scenario, *host)) return *error;

  const Instant end = at_ns(0) + scenario.scenario.duration;
  if (world->trace) {
    name_trace(*host, *world->trace);
    for (QueueVector& q : host->queue_vectors)
      q.trace_start();
  }
  Port& port = *host->port;
  Port* egress = host->egress ? &*host->egress : nullptr;
  Engine& engine = world->engine;
  port.update_watch();
  if (egress) egress->update_watch();
  WarmupMark warmup;
  warmup.host = host.get();
  if (scenario.scenario.warmup > Duration::zero()) {
    engine.schedule(at_ns(0) + scenario.scenario.warmup, engine.bind<&WarmupMark::on_event>(warmup),
                    0);
  }
  Instant next_progress{};
  const Duration progress_step = std::max(scenario.scenario.duration / 100, nanoseconds(1));
  engine.run_until(end, [&](const Event& event) {
    // Frames are landed by whatever event comes next; the port re-arms its watch after it.
    port.land(engine.now());
    if (egress) egress->land(engine.now());
    engine.dispatch(event);
    port.update_watch();
    if (egress) egress->update_watch();
    // Progress is reported from the events there are, so that asking for it adds none.
    if (options.progress && engine.now() >= next_progress) {
      options.progress(options.progress_context, engine.now(), end);
      next_progress = engine.now() + progress_step;
    }
  });
  port.land(end);
  if (egress) egress->land(end);
  for (Core& core : host->cores)
    core.finish();

  RunReport& report = world->report;
  report.events = engine.stats().dispatched;
  report.peak_pending_events = engine.stats().peak_pending;
  report.conservation = host->books();
  host->fill_report();
  if (auto error = report.conservation.check()) return *error;
  if (scenario.scenario.warmup > Duration::zero()) subtract_warmup(report, warmup.at_warmup);
  return std::move(report);
}

}  // namespace irqmod::sim
