#include "irqmod/sweep/objective.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "irqmod/sweep/names.hpp"
#include "irqmod/sweep/runner.hpp"

namespace irqmod::sweep {
namespace {

struct Alias {
  std::string_view name, column, unit;
};
constexpr Alias kAliases[] = {
    {"p50", "latency_p50_ns", "us"},
    {"p90", "latency_p90_ns", "us"},
    {"p99", "latency_p99_ns", "us"},
    {"p99.9", "latency_p99_9_ns", "us"},
    {"p99.99", "latency_p99_99_ns", "us"},
    {"max", "latency_max_ns", "us"},
    {"avg", "latency_avg_ns", "us"},
    {"cpu", "cpu_percent", "%"},
    {"busiest-cpu", "busiest_cpu_percent", "%"},
    {"app-cpu", "app_cpu_percent", "%"},
    {"app-process-cpu", "app_process_cpu_percent", "%"},
    {"interrupts", "interrupts_per_second", "/s"},
    {"pps", "pps", "/s"},
    {"drops", "drops", ""},
};

// A column of nanoseconds: latency_p99_ns, and a seeds spread of one (latency_p99_ns_max).
bool in_ns(std::string_view column) {
  return column.ends_with("_ns") || column.ends_with("_ns_min") || column.ends_with("_ns_max");
}

std::string trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

std::vector<std::string> metric_columns(const std::vector<std::string>& columns) {
  const auto scenario = std::find(columns.begin(), columns.end(), "scenario");
  std::vector<std::string> out;
  for (auto c = scenario == columns.end() ? columns.begin() : scenario + 1; c != columns.end();
       ++c) {
    if (*c != "conservation_ok" && *c != kPointColumn && *c != kPointsColumn) out.push_back(*c);
  }
  return out;
}

Expected<Metric> parse_metric(std::string_view name, const std::vector<std::string>& columns) {
  const std::vector<std::string> metrics = metric_columns(columns);
  const auto has = [&](std::string_view column) {
    return std::find(metrics.begin(), metrics.end(), column) != metrics.end();
  };
  std::vector<std::string> names;
  for (const Alias& a : kAliases) {
    if (!has(a.column)) continue;
    if (a.name == name)
      return Metric{std::string(name), std::string(a.column), std::string(a.unit)};
    names.emplace_back(a.name);
  }
  const std::string n(name);
  if (has(n)) return Metric{n, n, in_ns(n) ? "us" : ""};
  // The list names each column once: a spread's _min and _max are said, not listed.
  std::vector<std::string> listed;
  bool spread = false;
  for (const std::string& m : metrics) {
    const bool bound = m.ends_with("_min") && has(m.substr(0, m.size() - 4) + "_max");
    const bool bound_max = m.ends_with("_max") && has(m.substr(0, m.size() - 4) + "_min");
    spread = spread || bound;
    if (!bound && !bound_max) listed.push_back(m);
  }
  std::vector<std::string> all = names;
  all.insert(all.end(), metrics.begin(), metrics.end());
  return Error{"metric", unknown_name(n, "a metric", all,
                                      joined(names) +
                                          ", or a column of the sweep's table: " + joined(listed) +
                                          (spread ? " (each also as NAME_min and NAME_max)" : ""))};
}

std::optional<double> metric_value(const Table& table, const std::vector<std::string>& row,
                                   const Metric& metric) {
  const auto c = table.column(metric.column);
  if (!c || row[*c].empty()) return std::nullopt;
  // A latency of no sample is no latency (the run's CSV writes 0 for it).
  if (metric.column.starts_with("latency_") && !metric.column.starts_with("latency_count")) {
    const auto count = table.column("latency_count");
    if (count && std::strtod(row[*count].c_str(), nullptr) == 0) return std::nullopt;
  }
  char* end = nullptr;
  const double v = std::strtod(row[*c].c_str(), &end);
  if (end == row[*c].c_str()) return std::nullopt;
  return metric.unit == "us" && in_ns(metric.column) ? v / 1000.0 : v;
}

Expected<Constraint> parse_constraint(std::string_view text,
                                      const std::vector<std::string>& columns) {
  Constraint c;
  c.text = std::string(text);
  static constexpr std::pair<std::string_view, Relation> kOps[] = {{"<=", Relation::at_most},
                                                                   {">=", Relation::at_least},
                                                                   {"<", Relation::below},
                                                                   {">", Relation::above}};
  std::size_t at = std::string_view::npos, len = 0;
  for (const auto& [op, relation] : kOps) {
    at = text.find(op);
    if (at != std::string_view::npos) {
      c.relation = relation;
      len = op.size();
      break;
    }
  }
  const Error syntax{"--subject-to", "'" + c.text +
                                         "' is not METRIC OP VALUE; allowed: OP <=, <, >=, >; "
                                         "e.g. 'p99 <= 50us', 'interrupts <= 20000/s', "
                                         "'cpu <= 30%'"};
  if (at == std::string_view::npos) return syntax;
  auto metric = parse_metric(trim(text.substr(0, at)), columns);
  if (!metric) return Error{"--subject-to", metric.error().message};
  c.metric = metric.value();
  const std::string value = trim(text.substr(at + len));
  char* end = nullptr;
  c.limit = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || !std::isfinite(c.limit)) return syntax;
  const std::string unit = trim(std::string_view(end));
  if (c.metric.unit == "us") {
    if (unit == "ns") {
      c.limit /= 1000.0;
    } else if (unit == "ms") {
      c.limit *= 1000.0;
    } else if (unit == "s") {
      c.limit *= 1e6;
    } else if (!unit.empty() && unit != "us" && unit != "µs") {
      return Error{"--subject-to", "'" + c.text + "': '" + unit + "' is not a unit of time (" +
                                       c.metric.name +
                                       " is a time); allowed: ns, us (the default), ms, s"};
    }
  } else if (!unit.empty() && unit != c.metric.unit) {
    return Error{"--subject-to",
                 "'" + c.text + "': '" + unit + "' is not the unit of " + c.metric.name +
                     "; allowed: " +
                     (c.metric.unit.empty() ? std::string("a bare number")
                                            : "'" + c.metric.unit + "' or a bare number")};
  }
  return c;
}

double violation(const Table& table, const std::vector<std::string>& row, const Constraint& c) {
  const auto v = metric_value(table, row, c.metric);
  if (!v) return 1.0;
  const double scale = std::max(std::fabs(c.limit), 1e-9);
  switch (c.relation) {
    case Relation::at_most:
      return *v <= c.limit ? 0.0 : (*v - c.limit) / scale;
    case Relation::below:
      return *v < c.limit ? 0.0 : (*v - c.limit) / scale + 1e-9;
    case Relation::at_least:
      return *v >= c.limit ? 0.0 : (c.limit - *v) / scale;
    case Relation::above:
      return *v > c.limit ? 0.0 : (c.limit - *v) / scale + 1e-9;
  }
  return 1.0;
}

}  // namespace irqmod::sweep
