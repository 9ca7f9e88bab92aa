// The report in text: a header, sockperf's lines, then one line per section, each counter
// section printed through its table (metrics.hpp, counter_table.hpp).
#include <string>

#include "irqmod/sim/metrics.hpp"
#include "sim/report_format.hpp"
#include "sim/storage/storage_report.hpp"
#include "sim/xdp/xdp_report.hpp"

namespace irqmod::sim {
namespace {

void header(std::ostream& out, const RunReport& r) {
  out << "scenario " << r.scenario << ", seed " << r.seed << ", platform "
      << (r.platform == kNoPlatform ? "none (the scenario's own costs only)" : r.platform)
      << ", simulated " << format_seconds(r.sim_time);
  if (r.warmup > Duration::zero()) out << " after " << format_seconds(r.warmup) << " of warm-up";
  out << ", " << r.events << " events";
  if (r.wall_ns >= 0)
    out << ", wall " << printf_string("%.3f s", static_cast<double>(r.wall_ns) / 1e9);
  out << "\n";
  if (r.kernel.empty()) return;
  // The core rows and nic.driver's (irqmod kernel-diff lists every driver's).
  out << "kernel " << r.kernel << " (core and " << r.kernel_driver << " behaviours):\n";
  for (const KernelSetting& k : r.kernel_settings) {
    out << "  " << k.key << " = " << k.value << "  ";
    if (k.by_scenario) out << "set by the scenario; kernel " << r.kernel << " is ";
    out << (k.kernel_has ? "with " : "before ") << k.commit << " \"" << k.title << "\" ("
        << k.release << ")\n";
  }
}

void interrupts(std::ostream& out, const RunReport& r) {
  const auto ips = per_second(r.interrupts.total(), r.sim_time);
  out << "device hardirqs: " << r.interrupts.total() << " ("
      << (ips ? printf_string("%.0f", *ips) : "n/a") << "/s)";
  for (std::size_t v = 0; v < r.interrupts.vectors(); ++v) {
    const auto vps = per_second(r.interrupts.count_of(v), r.sim_time);
    out << "; vector " << v << ": " << r.interrupts.count_of(v) << " ("
        << (vps ? printf_string("%.0f", *vps) : "n/a") << "/s)";
  }
  out << "\n";
}

// "cpu %" has one meaning in every output: the busy time of all the run's cores over the measured
// time, as a mean over the cores (100 % is every core busy; `irqmod run`'s and the sweep CSV's
// cpu_percent, seed rows' "cpu"); the per-core lines after it.
void cpu(std::ostream& out, const RunReport& r) {
  out << "cpu: " << percent(r.cpu.utilization(r.sim_time)) << " busy, the mean over "
      << r.cpu.cores() << (r.cpu.cores() == 1 ? " core" : " cores") << " (per core below)\n";
  for (std::size_t c = 0; c < r.cpu.cores(); ++c) {
    out << "cpu " << c << ": busy " << percent(fraction(r.cpu.busy(c), r.sim_time)) << " (";
    for (std::size_t k = 0; k < kNumContextKinds; ++k) {
      const auto kind = static_cast<ContextKind>(k);
      out << (k ? ", " : "") << to_string(kind) << " "
          << percent(fraction(r.cpu.busy(c, kind), r.sim_time));
    }
    out << ")";
    if (c < r.cores.size()) write_row_text(out, kCoreCounters, r.cores[c], r.sim_time);
    out << "\n";
  }
}

// One line per row, numbered from `first`.
template <class Owner>
void rows(std::ostream& out, const CounterTable<Owner>& table, const std::vector<Owner>& rows,
          Duration measured, std::size_t first = 0) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    write_row_text(out, table, rows[i], measured, first + i);
}

void drops(std::ostream& out, const DropCounters& d) {
  out << "drops: " << d.total();
  for (std::size_t i = 0; i < kNumDropReasons; ++i) {
    const auto reason = static_cast<DropReason>(i);
    if (d.count(reason)) out << "; " << to_string(reason) << " " << d.count(reason);
  }
  out << "\n";
}

void conservation(std::ostream& out, const RunReport& r) {
  const Conservation& c = r.conservation;
  out << "conservation: entered " << c.entered << " = delivered " << c.delivered << " + dropped "
      << c.dropped << " + in flight " << c.in_flight << ": " << (c.ok() ? "ok" : "BROKEN") << "\n";
  const Conservation& t = r.tx_conservation;
  if (t.entered > 0) {
    out << "tx conservation: made " << t.entered << " = sent " << t.delivered << " + dropped "
        << t.dropped << " + waiting " << t.in_flight << ": " << (t.ok() ? "ok" : "BROKEN") << "\n";
  }
}

}  // namespace

void write_text(std::ostream& out, const RunReport& r) {
  const Duration t = r.sim_time;
  header(out, r);
  if (r.search) write_row_text(out, kSearchResult, *r.search, t);
  // An AF_XDP or storage run has no sockperf-like client: its own lines below say what happened,
  // and "No messages were received from the server" would be false.
  if (r.latency.count() > 0 || (!r.xdp && !r.storage))
    out << sockperf_summary(r.latency, r.sockperf);
  if (r.latency.count() > 0 && r.constant_inputs) {
    // The spread left is the model's own (queueing, batching, coalescing); a ping-pong has none.
    out << "note: every cost and arrival of this run is a constant, so its latency spread is only "
           "what queueing and batching make of them"
        << (r.latency.min() == r.latency.max() ? " (none here: one number by construction)" : "")
        << "; a platform whose costs are measured distributions adds the machine's "
           "(platforms/epyc-vm.toml, which `irqmod calibrate` wrote; run it for this host's)\n";
  }
  if (r.stranded_frames > 0) write_row_text(out, kStrandedFrames, r, t);
  if (r.tcp_loss_probes > 0) write_row_text(out, kLossProbes, r, t);
  interrupts(out, r);
  cpu(out, r);
  rows(out, kQueueCounters, r.queues, t);
  rows(out, kNapiThreadCounters, r.napi_threads, t);
  if (r.mclgeti) write_row_text(out, kMclgetiCounters, *r.mclgeti, t);
  rows(out, kTxOnlyQueueCounters, r.tx_only_queues, t, r.queues.size());
  rows(out, kEgressQueueCounters, r.egress_queues, t);
  if (r.storage) write_row_text(out, kStorageCounters, *r.storage, t);
  if (r.xdp) write_row_text(out, kXdpCounters, *r.xdp, t);
  write_row_text(out, kThroughput, r, t);
  if (r.tcp) write_row_text(out, kTcpCounters, *r.tcp, t);
  if (r.ping) write_row_text(out, kPing, *r.ping, t);
  if (r.lab_client) write_row_text(out, kLabClient, *r.lab_client, t);
  if (r.lab_server) write_row_text(out, kLabServer, *r.lab_server, t);
  drops(out, r.drops);
  conservation(out, r);
}

}  // namespace irqmod::sim
