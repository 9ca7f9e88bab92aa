// The report in JSON (`irqmod sim --json`, schema in docs/simulator.md): the header and the
// latency, then the sections, each counter section written through its table (metrics.hpp).
#include <array>
#include <string>

#include "irqmod/sim/json.hpp"
#include "irqmod/sim/metrics.hpp"
#include "sim/report_format.hpp"
#include "sim/storage/storage_report.hpp"
#include "sim/xdp/xdp_report.hpp"

namespace irqmod::sim {
namespace {

void latency(JsonWriter& json, const RunReport& r) {
  const LatencyHistogram& h = r.latency;
  json.key("latency_ns");
  json.begin_object();
  json.field("count", h.count());
  json.field("min", h.min());
  static constexpr std::array<const char*, kSockperfPercentiles.size()> kNames = {
      "p25", "p50", "p75", "p90", "p99", "p99_9", "p99_99", "p99_999"};
  for (std::size_t i = 0; i < kSockperfPercentiles.size(); ++i) {
    json.field(kNames[i], h.percentile(kSockperfPercentiles[i]));
  }
  json.field("max", h.max());
  json.field("avg", h.mean());
  json.field("stddev", h.stddev());
  json.field("round_trip", r.sockperf.round_trip);
  json.end_object();
}

void interrupts(JsonWriter& json, const RunReport& r) {
  json.key("interrupts");
  json.begin_object();
  json.field("total", r.interrupts.total());
  json.key("per_second");
  optional_value(json, per_second(r.interrupts.total(), r.sim_time));
  json.key("per_vector");
  json.begin_object();
  for (std::size_t v = 0; v < r.interrupts.vectors(); ++v) {
    json.key(std::to_string(v));
    json.begin_object();
    json.field("total", r.interrupts.count_of(v));
    json.key("per_second");
    optional_value(json, per_second(r.interrupts.count_of(v), r.sim_time));
    json.end_object();
  }
  json.end_object();
  json.end_object();
}

// The table's object, under its key.
template <class Owner>
void object(JsonWriter& json, const CounterTable<Owner>& table, const Owner& row,
            Duration measured) {
  json.key(table.json);
  json.begin_object();
  write_row_json(json, table, row, measured);
  json.end_object();
}

// The table's array of rows, each numbered from `first` under the table's index key (if any).
template <class Owner>
void array(JsonWriter& json, const CounterTable<Owner>& table, const std::vector<Owner>& rows,
           Duration measured, std::size_t first = 0) {
  json.key(table.json);
  json.begin_array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    json.begin_object();
    if (!table.index.empty()) json.field(table.index, static_cast<std::uint64_t>(first + i));
    write_row_json(json, table, rows[i], measured);
    json.end_object();
  }
  json.end_array();
}

void kernel(JsonWriter& json, const RunReport& r) {
  json.key("kernel");
  json.begin_object();
  json.field("version", r.kernel);
  json.field("driver", r.kernel_driver);
  json.key("switches");
  json.begin_array();
  for (const KernelSetting& k : r.kernel_settings) {
    json.begin_object();
    json.field("key", k.key);
    json.field("value", k.value);
    json.field("kernel_has_commit", k.kernel_has);
    json.field("set_by_scenario", k.by_scenario);
    json.field("commit", k.commit);
    json.field("title", k.title);
    json.field("release", k.release);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

void cpu(JsonWriter& json, const RunReport& r) {
  json.key("cpu");
  json.begin_object();
  json.key("utilization");
  optional_value(json, r.cpu.utilization(r.sim_time));
  json.key("per_core");
  json.begin_array();
  for (std::size_t c = 0; c < r.cpu.cores(); ++c) {
    json.begin_object();
    json.field("core", static_cast<std::uint64_t>(c));
    json.key("busy_fraction");
    optional_value(json, fraction(r.cpu.busy(c), r.sim_time));
    for (std::size_t k = 0; k < kNumContextKinds; ++k) {
      const auto kind = static_cast<ContextKind>(k);
      json.key(to_string(kind));
      optional_value(json, fraction(r.cpu.busy(c, kind), r.sim_time));
    }
    json.key("over_idle");  // of busy_fraction: interrupts with no thread on the core
    optional_value(json, fraction(r.cpu.over_idle(c), r.sim_time));
    if (c < r.cores.size()) write_row_json(json, kCoreCounters, r.cores[c], r.sim_time);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

void drops(JsonWriter& json, const DropCounters& d) {
  json.key("drops");
  json.begin_object();
  json.field("total", d.total());
  for (std::size_t i = 0; i < kNumDropReasons; ++i) {
    const auto reason = static_cast<DropReason>(i);
    json.field(to_string(reason), d.count(reason));
  }
  json.end_object();
}

void conservation(JsonWriter& json, const RunReport& r) {
  const Conservation& cons = r.conservation;
  json.key("conservation");
  json.begin_object();
  json.field("entered", cons.entered);
  json.field("delivered", cons.delivered);
  json.field("dropped", cons.dropped);
  json.field("in_flight", cons.in_flight);
  json.field("ok", cons.ok());
  json.end_object();
  const Conservation& tx = r.tx_conservation;
  json.key("tx_conservation");
  json.begin_object();
  json.field("made", tx.entered);
  json.field("sent", tx.delivered);
  json.field("dropped", tx.dropped);
  json.field("waiting", tx.in_flight);
  json.field("ok", tx.ok());
  json.end_object();
}

}  // namespace

void write_json(std::ostream& out, const RunReport& r) {
  const Duration t = r.sim_time;
  JsonWriter json(out);
  json.begin_object();
  json.field("scenario", r.scenario);
  json.field("seed", r.seed);
  json.field("platform", r.platform);
  json.field("constant_inputs", r.constant_inputs);
  json.field("sim_time_ns", static_cast<std::int64_t>(r.sim_time.count()));
  if (r.warmup > Duration::zero())
    json.field("warmup_ns", static_cast<std::int64_t>(r.warmup.count()));
  if (r.wall_ns >= 0) json.field("wall_ns", r.wall_ns);
  json.field("events", r.events);
  latency(json, r);
  interrupts(json, r);
  array(json, kQueueCounters, r.queues, t);
  if (!r.napi_threads.empty()) array(json, kNapiThreadCounters, r.napi_threads, t);
  if (!r.kernel.empty()) kernel(json, r);
  if (r.search) {
    json.key(kSearchResult.json);
    json.begin_object();
    json.field("kind", std::string("rfc2544"));
    write_row_json(json, kSearchResult, *r.search, t);
    json.end_object();
  }
  if (r.tcp) object(json, kTcpCounters, *r.tcp, t);
  if (r.ping) object(json, kPing, *r.ping, t);
  if (r.lab_client) object(json, kLabClient, *r.lab_client, t);
  if (r.lab_server) object(json, kLabServer, *r.lab_server, t);
  if (r.storage) object(json, kStorageCounters, *r.storage, t);
  if (r.xdp) object(json, kXdpCounters, *r.xdp, t);
  if (r.mclgeti) object(json, kMclgetiCounters, *r.mclgeti, t);
  if (!r.tx_only_queues.empty())
    array(json, kTxOnlyQueueCounters, r.tx_only_queues, t, r.queues.size());
  if (!r.egress_queues.empty()) array(json, kEgressQueueCounters, r.egress_queues, t);
  cpu(json, r);
  if (r.tcp_loss_probes > 0) write_row_json(json, kLossProbes, r, t);
  if (r.stranded_frames > 0) write_row_json(json, kStrandedFrames, r, t);
  object(json, kThroughput, r, t);
  drops(json, r.drops);
  conservation(json, r);
  json.end_object();
  out << "\n";
}

}  // namespace irqmod::sim
