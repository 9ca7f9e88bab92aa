// The report after a warm-up (every counter table's entries that the warm-up counts), and the
// report as one CSV row.
#include <string>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "sim/report_format.hpp"
#include "sim/report_tables.hpp"

namespace irqmod::sim {
namespace {

// A row of the table in `holder` (a section, an optional one, or one per queue or core) less its
// copy in `earlier`, where both have it.
template <class Owner>
void subtract(const CounterTable<Owner>& table, Owner& row, const Owner& earlier) {
  subtract_row(table, row, earlier);
}
template <class Owner>
void subtract(const CounterTable<Owner>& table, std::vector<Owner>& rows,
              const std::vector<Owner>& earlier) {
  for (std::size_t i = 0; i < rows.size() && i < earlier.size(); ++i)
    subtract_row(table, rows[i], earlier[i]);
}
template <class Owner, class Holder>
void subtract(const CounterTable<Owner>& table, Holder& section, const Holder& earlier) {
  if (section && earlier) subtract_row(table, *section, *earlier);
}

// A CSV cell for a scenario name: quoted when it holds a comma, a quote or a newline (RFC 4180).
std::string csv_name(const std::string& name) {
  if (name.find_first_of(",\"\n") == std::string::npos) return name;
  std::string quoted = "\"";
  for (char ch : name)
    quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

// The CSV's columns, names and cells side by side so that they cannot drift apart.
struct Columns {
  std::vector<std::string> names;
  std::vector<std::string> cells;
  void add(std::string name, std::string cell) {
    names.push_back(std::move(name));
    cells.push_back(std::move(cell));
  }
  template <class Owner>
  void add(const CounterTable<Owner>& table, const Owner& row, Duration measured) {
    const std::vector<CounterReading> readings = read_row(table, row);
    std::vector<std::string_view> table_names;
    append_row_csv_names(table_names, readings);
    names.insert(names.end(), table_names.begin(), table_names.end());
    append_row_csv_cells(cells, readings, measured);
  }
};

Columns csv_columns(const RunReport& r) {
  Columns c;
  const LatencyHistogram& h = r.latency;
  c.add("scenario", csv_name(r.scenario));
  c.add("seed", std::to_string(r.seed));
  c.add("sim_time_ns", std::to_string(r.sim_time.count()));
  c.add("events", std::to_string(r.events));
  c.add("latency_count", std::to_string(h.count()));
  c.add("latency_min_ns", std::to_string(h.min()));
  static constexpr std::array<const char*, kSockperfPercentiles.size()> kNames = {
      "p25", "p50", "p75", "p90", "p99", "p99_9", "p99_99", "p99_999"};
  for (std::size_t i = 0; i < kSockperfPercentiles.size(); ++i) {
    c.add(std::string("latency_") + kNames[i] + "_ns",
          std::to_string(h.percentile(kSockperfPercentiles[i])));
  }
  c.add("latency_max_ns", std::to_string(h.max()));
  c.add("latency_avg_ns", printf_string("%.3f", h.mean()));
  c.add("latency_stddev_ns", printf_string("%.3f", h.stddev()));
  const auto ips = per_second(r.interrupts.total(), r.sim_time);
  c.add("interrupts", std::to_string(r.interrupts.total()));
  c.add("interrupts_per_second", ips ? printf_string("%.3f", *ips) : "");
  Duration busy{};
  for (std::size_t core = 0; core < r.cpu.cores(); ++core)
    busy += r.cpu.busy(core);
  c.add("cpu_busy_ns", std::to_string(busy.count()));
  c.add(kThroughput, r, r.sim_time);
  c.add("drops", std::to_string(r.drops.total()));
  c.add("entered", std::to_string(r.conservation.entered));
  c.add("delivered", std::to_string(r.conservation.delivered));
  c.add("dropped", std::to_string(r.conservation.dropped));
  c.add("in_flight", std::to_string(r.conservation.in_flight));
  c.add("conservation_ok", r.conservation.ok() ? "true" : "false");
  return c;
}

void write_csv_line(std::ostream& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i)
    out << (i ? "," : "") << cells[i];
  out << '\n';
}

}  // namespace

void subtract_warmup(RunReport& r, const RunReport& w) {
  r.sim_time -= w.sim_time;
  r.warmup = w.sim_time;
  r.interrupts.subtract(w.interrupts);
  r.cpu.subtract(w.cpu);
  r.drops.subtract(w.drops);
  for_each_counter_table(
      [&](const auto& table, auto section) { subtract(table, section(r), section(w)); });
}

void write_csv(std::ostream& out, const RunReport& r, bool header) {
  const Columns columns = csv_columns(r);
  if (header) write_csv_line(out, columns.names);
  write_csv_line(out, columns.cells);
}

}  // namespace irqmod::sim
