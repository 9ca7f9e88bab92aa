// Seed rows: their metrics and units. See seed_rows.hpp.
#include "irqmod/sim/seed_rows.hpp"

#include <array>
#include <charconv>

namespace irqmod::sim {
namespace {

// latency.stddev and latency.p99.999 are sockperf's std-dev and "percentile 99.999" lines;
// observations is its "Total N observations" (the latencies recorded).
constexpr std::array<std::string_view, 11> kMetrics = {
    "throughput",  "latency.avg", "latency.p50", "latency.p99", "latency.p99.999", "latency.stddev",
    "latency.max", "interrupts",  "cpu",         "drops",       "observations"};

// A metric and the core or vector it names: "interrupts.core1" -> ("interrupts.core", 1).
struct Parsed {
  std::string_view base;
  std::optional<std::uint32_t> index;
};

std::optional<Parsed> parse_metric(std::string_view metric) {
  for (std::string_view m : kMetrics) {
    if (metric == m) return Parsed{m, std::nullopt};
  }
  for (std::string_view prefix :
       {std::string_view("interrupts.core"), std::string_view("interrupts.vector"),
        std::string_view("cpu.core")}) {
    if (metric.substr(0, prefix.size()) != prefix || metric.size() == prefix.size()) continue;
    const std::string_view digits = metric.substr(prefix.size());
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc{} && end == digits.data() + digits.size()) return Parsed{prefix, n};
  }
  return std::nullopt;
}

// How many of the metric's base unit one `unit` is; nullopt when it does not fit the metric.
std::optional<double> unit_scale(std::string_view base, std::string_view unit) {
  if (base == "throughput" || base == "drops") {
    if (unit == "pps") return 1.0;
    if (unit == "kpps") return 1e3;
    if (unit == "Mpps") return 1e6;
    // A storage run delivers I/Os (seed 003): the same count, in the seed's unit.
    if (unit == "IOPS") return 1.0;
    if (unit == "k IOPS") return 1e3;
    if (unit == "M IOPS") return 1e6;
  } else if (base.substr(0, 7) == "latency") {
    if (unit == "ns") return 1.0;
    if (unit == "us") return 1e3;
    if (unit == "ms") return 1e6;
  } else if (base.substr(0, 10) == "interrupts") {
    if (unit == "intr/s") return 1.0;
    if (unit == "k intr/s") return 1e3;
    if (unit == "M intr/s") return 1e6;
  } else if (base.substr(0, 3) == "cpu") {
    if (unit == "%") return 1.0;
  } else if (base == "observations") {
    if (unit == "messages") return 1.0;
  }
  return std::nullopt;
}

std::string_view units_of(std::string_view base) {
  if (base == "throughput" || base == "drops") return "pps, kpps, Mpps, IOPS, k IOPS, M IOPS";
  if (base.substr(0, 7) == "latency") return "ns, us, ms";
  if (base.substr(0, 10) == "interrupts") return "intr/s, k intr/s, M intr/s";
  if (base == "observations") return "messages";
  return "%";
}

// The unit of a `versus` row, and the unit its metric is read in first (interrupts).
constexpr std::string_view kReductionUnit = "% fewer";
constexpr const char* kBaseUnit = "intr/s";

}  // namespace

std::string_view to_string(SeedRole role) {
  return role == SeedRole::fitted ? "fitted" : "predicted";
}

std::span<const std::string_view> seed_row_metrics() {
  return kMetrics;
}

std::optional<Error> check_seed_row(const SeedRow& row) {
  if (row.seed.empty() || row.table.empty() || row.row.empty()) {
    return Error{"seed_row",
                 "needs seed, table and row; allowed: the seed's number (\"004\"), "
                 "the table's and the row's names in the seed's words"};
  }
  const auto parsed = parse_metric(row.metric);
  if (!parsed) {
    std::string allowed;
    for (std::string_view m : kMetrics)
      allowed += std::string(allowed.empty() ? "" : ", ") + std::string(m);
    return Error{"metric", "'" + row.metric + "' is not a metric; allowed: " + allowed +
                               ", interrupts.coreN, interrupts.vectorN, cpu.coreN"};
  }
  if (!row.versus.empty()) {
    if (row.unit != kReductionUnit) {
      return Error{"unit", "'" + row.unit + "' is not the unit of a row with versus; allowed: " +
                               std::string(kReductionUnit)};
    }
    return std::nullopt;
  }
  if (!unit_scale(parsed->base, row.unit)) {
    return Error{"unit", "'" + row.unit + "' is not a unit of " + row.metric +
                             "; allowed: " + std::string(units_of(parsed->base))};
  }
  return std::nullopt;
}

Expected<double> seed_row_reduction(const SeedRow& row, const RunReport& report,
                                    const RunReport& reference) {
  if (auto e = check_seed_row(row)) return *e;
  if (row.versus.empty()) return Error{"versus", "the row compares no other scenario"};
  SeedRow plain = row;
  plain.versus.clear();
  plain.unit = kBaseUnit;
  const Parsed m = *parse_metric(row.metric);
  if (m.base == "throughput" || m.base == "drops") plain.unit = "pps";
  if (m.base.substr(0, 7) == "latency") plain.unit = "ns";
  if (m.base.substr(0, 3) == "cpu") plain.unit = "%";
  if (m.base == "observations") plain.unit = "messages";
  const auto value = seed_row_value(plain, report);
  if (!value) return value.error();
  const auto base = seed_row_value(plain, reference);
  if (!base) return base.error();
  if (base.value() == 0) {
    return Error{"versus", row.metric + " of " + row.versus + " is 0: no reduction to compute"};
  }
  return 100.0 * (1.0 - value.value() / base.value());
}

Expected<double> seed_row_value(const SeedRow& row, const RunReport& r) {
  if (auto e = check_seed_row(row)) return *e;
  if (!row.versus.empty()) {
    return Error{"versus", "a row with versus needs both runs (seed_row_reduction)"};
  }
  const Parsed m = *parse_metric(row.metric);
  const double scale = *unit_scale(m.base, row.unit);
  const double seconds = static_cast<double>(r.sim_time.count()) / 1e9;
  if (seconds <= 0) return Error{"metric", "the run covered no time"};
  const auto rate = [&](std::uint64_t n) { return static_cast<double>(n) / seconds / scale; };
  if (m.base == "throughput") return rate(r.delivered_packets);
  if (m.base == "drops") return rate(r.drops.total());
  if (m.base.substr(0, 8) == "latency.") {
    if (r.latency.count() == 0) return Error{"metric", "no latency was observed"};
    const std::string_view which = m.base.substr(8);
    double ns = 0;
    if (which == "avg") ns = r.latency.mean();
    if (which == "p50") ns = static_cast<double>(r.latency.percentile(50'000));
    if (which == "p99") ns = static_cast<double>(r.latency.percentile(99'000));
    if (which == "p99.999") ns = static_cast<double>(r.latency.percentile(99'999));
    if (which == "stddev") ns = r.latency.stddev();
    if (which == "max") ns = static_cast<double>(r.latency.max());
    return ns / scale;
  }
  if (m.base == "observations") return static_cast<double>(r.latency.count());
  if (m.base == "interrupts") return rate(r.interrupts.total());
  if (m.base == "interrupts.core") {
    if (*m.index >= r.cores.size())
      return Error{"metric", row.metric + ": the run has no such core"};
    const CoreCounters& c = r.cores[*m.index];
    return rate(c.device_irqs + c.timer_irqs);  // /proc/interrupts' row sum: device and timer
  }
  if (m.base == "interrupts.vector") {
    if (*m.index >= r.interrupts.vectors()) {
      return Error{"metric", row.metric + ": the run has no such vector"};
    }
    return rate(r.interrupts.count_of(*m.index));
  }
  const auto busy_percent = [&](Duration busy, std::size_t cores) {
    return 100.0 * static_cast<double>(busy.count()) / 1e9 / seconds / static_cast<double>(cores);
  };
  if (m.base == "cpu") {
    Duration busy{};
    for (std::size_t c = 0; c < r.cpu.cores(); ++c)
      busy += r.cpu.busy(c);
    return busy_percent(busy, r.cpu.cores());
  }
  if (*m.index >= r.cpu.cores()) return Error{"metric", row.metric + ": the run has no such core"};
  return busy_percent(r.cpu.busy(*m.index), 1);
}

}  // namespace irqmod::sim
