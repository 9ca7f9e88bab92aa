// One simulation run: build the components, run the engine to the end, check the books.
// See include/irqmod/sim/simulation.hpp for the model and src/sim/builder.hpp for the wiring.
#include "irqmod/sim/simulation.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "sim/builder.hpp"
#include "sim/lab/lab_run.hpp"
#include "sim/sampler.hpp"
#include "sim/storage/storage_run.hpp"
#include "sim/xdp/xdp_run.hpp"

namespace irqmod::sim {
namespace {

void name_trace(const Host& host, TraceWriter& trace) {
  trace.process_name(kTraceCpu, "cpu");
  for (const Core& core : host.cores)
    trace.thread_name(kTraceCpu, core.index(), "core " + std::to_string(core.index()));
  trace.process_name(kTraceNic, "nic");
  for (const QueueVector& v : host.queue_vectors)
    trace.thread_name(kTraceNic, v.index(), vector_name(host, v));
}

// One run of `scenario` as it is.
Expected<RunReport> simulate_once(const Scenario& scenario, const RunOptions& options) {
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
  std::optional<Sampler> sampler;
  if (options.series) sampler.emplace(*host, scenario, *options.series);
  // At the warm-up's end: the time series' sample, the counters the host copies into the report
  // only at the end, and the MCLGETI watermark's extremes started again.
  WarmupMark warmup(*host, scenario, [&] {
    if (sampler) sampler->at_warmup();
    host->fill_report();
    if (host->mclgeti) host->mclgeti->restart_extremes();
  });
  run_to_end(*world, scenario, options, [&](const Event& event) {
    if (sampler) sampler->before(engine.now());
    // Frames are landed by whatever event comes next; the port re-arms its watch after it.
    port.land(engine.now());
    if (egress) egress->land(engine.now());
    engine.dispatch(event);
    port.update_watch();
    if (egress) egress->update_watch();
  });
  if (sampler) sampler->finish(end);
  port.land(end);
  if (egress) egress->land(end);
  finish_run(*host);

  RunReport& report = world->report;
  report.conservation = host->books();
  report.tx_conservation = host->tx_books();
  host->fill_report();
  if (world->model_limit) return *world->model_limit;
  if (auto error = report.conservation.check()) return *error;
  if (auto error = report.tx_conservation.check()) {
    error->message = "the host's Tx frames: " + error->message;
    return *error;
  }
  warmup.subtract_from(report);
  return std::move(report);
}

// RFC 2544 section 26.1: a binary search over traffic.rate between search.low and search.high
// for the highest rate at which the measured time loses no frame (any drop reason), stopping
// when the bracket is search.resolution wide. The report is the run at the rate found; with a
// timeline or a time series asked for, that run is made once more to write it.
Expected<RunReport> search_rfc2544(const Scenario& scenario, const RunOptions& options) {
  const SearchSection& search = scenario.search;
  std::uint64_t high = search.high;
  if (high == 0) {
    high = static_cast<std::uint64_t>(
        1e12 /
        static_cast<double>(Link(scenario.link.speed_bps).occupancy_ps(scenario.traffic.size)));
  }
  RunOptions quiet = options;
  quiet.trace = nullptr;
  quiet.series = nullptr;
  Scenario trial = scenario;
  trial.search = SearchSection{};
  SearchResult result;
  const auto run_at = [&](std::uint64_t rate) {
    trial.traffic.rate = rate;
    ++result.trials;
    return simulate_once(trial, quiet);
  };
  auto best = run_at(search.low);
  if (!best) return best;
  if (best.value().drops.total() > 0) {
    result.lost_rate = search.low;  // nothing passes: the report shows the lowest rate's losses
    best.value().search = result;
    return best;
  }
  std::uint64_t low = search.low;
  std::uint64_t lost = 0;
  auto top = run_at(high);
  if (!top) return top;
  if (top.value().drops.total() == 0) {
    low = high;
    best = std::move(top);
  } else {
    lost = high;
    while (lost - low > search.resolution) {
      const std::uint64_t mid = low + (lost - low) / 2;
      auto r = run_at(mid);
      if (!r) return r;
      if (r.value().drops.total() == 0) {
        low = mid;
        best = std::move(r);
      } else {
        lost = mid;
      }
    }
  }
  result.rate = low;
  result.lost_rate = lost;
  if (options.trace || options.series) {
    trial.traffic.rate = low;
    best = simulate_once(trial, options);
    if (!best) return best;
  }
  best.value().search = result;
  return best;
}

}  // namespace

Expected<RunReport> simulate(const Scenario& scenario, const RunOptions& options) {
  if (auto d = validate(scenario)) return d->error;
  if (options.series && (scenario.storage.drives > 0 || scenario.xdp.app != XdpApp::none ||
                         scenario.lab.device != LabDevice::none)) {
    return Error{"series",
                 "a time series samples the NIC's Rx queues and vectors; a storage "
                 "([storage]), AF_XDP ([xdp]) or lab ([lab]) run has its own model without them"};
  }
  // Seed 003's drives: a run of its own, without the network path (src/sim/storage/).
  if (scenario.storage.drives > 0) return simulate_storage(scenario, options);
  // Seed 002's AF_XDP socket: a run of its own, without the stack (src/sim/xdp/).
  if (scenario.xdp.app != XdpApp::none) return simulate_xdp(scenario, options);
  // The lab: a server and its client on this machine's cores (src/sim/lab/).
  if (scenario.lab.device != LabDevice::none) return simulate_lab(scenario, options);
  if (scenario.search.kind == SearchKind::rfc2544) return search_rfc2544(scenario, options);
  return simulate_once(scenario, options);
}

}  // namespace irqmod::sim
