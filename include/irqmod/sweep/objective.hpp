// Objectives for irqmod tune: a metric to minimise and constraints on others, in the user's
// words ("p99 <= 50us", "interrupts <= 20000/s", "cpu <= 30%"), read against a sweep's columns.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sweep/table.hpp"

namespace irqmod::sweep {

// A metric by its short name: p50, p90, p99, p99.9, p99.99, max, avg (latency, in ns), cpu (% of
// one core), interrupts (per second), pps, drops; or any metric column of the table by name.
struct Metric {
  std::string name;    // as the user wrote it
  std::string column;  // the table's column
  std::string unit;    // how values are shown: "us" (the column is ns), "%", "/s", ""
};
// The metric columns among a table's `columns`: those after "scenario" (all of them when there is
// none) but conservation_ok, point and points; for a sweep, seed ... cpu_percent and the spread.
std::vector<std::string> metric_columns(const std::vector<std::string>& columns);
// `name` as a metric of a table with `columns` (runner.hpp columns(), or a CSV's header): a name
// that is neither a short name nor a metric column is an Error keyed "metric" that lists the
// valid names and the near ones ("did you mean").
Expected<Metric> parse_metric(std::string_view name, const std::vector<std::string>& columns);
// A row's value of `metric` in the unit shown ("us": ns / 1000); nullopt when the cell is empty,
// not a number, or a latency of a row with latency_count 0 (no sample: its cells say 0).
std::optional<double> metric_value(const Table& table, const std::vector<std::string>& row,
                                   const Metric& metric);

enum class Relation { at_most, below, at_least, above };

// "p99 <= 50us": the value is in the metric's unit shown (latency: ns, us, ms, s suffixes, a bare
// number is us; cpu: an optional %; interrupts, pps: an optional /s), its metric one of the
// table's (parse_metric). Errors are keyed "--subject-to" and say what is allowed.
struct Constraint {
  Metric metric;
  Relation relation = Relation::at_most;
  double limit = 0;  // in metric.unit
  std::string text;  // as written
};
Expected<Constraint> parse_constraint(std::string_view text,
                                      const std::vector<std::string>& columns);

// How far a row is from meeting the constraint, relative to its limit: 0 when met, else
// |value - limit| / max(|limit|, 1e-9); a missing value counts as 1.
double violation(const Table& table, const std::vector<std::string>& row, const Constraint& c);

}  // namespace irqmod::sweep
