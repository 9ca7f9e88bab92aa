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
  return std::move(report);
}

}  // namespace irqmod::sim
