#include "irqmod/sweep/objective.hpp"

#include <cmath>
#include <cstdlib>

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
    {"interrupts", "interrupts_per_second", "/s"},
    {"pps", "pps", "/s"},
    {"drops", "drops", ""},
};

std::string trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

Expected<Metric> parse_metric(std::string_view name) {
  for (const Alias& a : kAliases) {
    if (a.name == name)
      return Metric{std::string(name), std::string(a.column), std::string(a.unit)};
  }
  const std::string n(name);
  if (n.empty() || n == "scenario" || n == "conservation_ok") {
    return Error{"metric", "'" + n +
                               "' is not a metric; allowed: p50, p90, p99, p99.9, p99.99, max, "
                               "avg, cpu, interrupts, pps, drops, or a numeric column of the "
                               "sweep's CSV"};
  }
  const bool ns = n.size() > 3 && n.compare(n.size() - 3, 3, "_ns") == 0;
  return Metric{n, n, ns ? "us" : ""};
}

std::optional<double> metric_value(const Table& table, const std::vector<std::string>& row,
                                   const Metric& metric) {
  const auto c = table.column(metric.column);
  if (!c || row[*c].empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(row[*c].c_str(), &end);
  if (end == row[*c].c_str()) return std::nullopt;
  return metric.unit == "us" && metric.column.ends_with("_ns") ? v / 1000.0 : v;
}

Expected<Constraint> parse_constraint(std::string_view text) {
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
  auto metric = parse_metric(trim(text.substr(0, at)));
  if (!metric) return Error{"--subject-to", metric.error().message};
  c.metric = metric.value();
  const std::string value = trim(text.substr(at + len));
  char* end = nullptr;
  c.limit = std::strtod(value.c_str(), &end);
  if (end == value.c_str()) return syntax;
  const std::string unit = trim(std::string_view(end));
  if (c.metric.unit == "us") {
    if (unit == "ns") {
      c.limit /= 1000.0;
    } else if (unit == "ms") {
      c.limit *= 1000.0;
    } else if (unit == "s") {
      c.limit *= 1e6;
    } else if (!unit.empty() && unit != "us") {
      return Error{"--subject-to", "'" + c.text + "': " + c.metric.name +
                                       " is a time; allowed units: ns, us (the default), ms, s"};
    }
  } else if (!unit.empty() && unit != c.metric.unit) {
    return Error{"--subject-to",
                 "'" + c.text + "': the unit of " + c.metric.name + " is " +
                     (c.metric.unit.empty() ? std::string("none") : "'" + c.metric.unit + "'")};
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
