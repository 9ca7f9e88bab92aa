#include "irqmod/sweep/runner.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <span>
#include <sstream>
#include <thread>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sweep {
namespace {

// The columns of sim::write_csv that are not numbers to average over seeds.
bool is_numeric_metric(std::string_view column) {
  return column != "scenario" && column != "seed" && column != "conservation_ok";
}

// sim::write_csv's header, read from the function itself so the two cannot drift apart.
std::vector<std::string> metric_columns() {
  std::ostringstream text;
  const sim::RunReport empty;
  sim::write_csv(text, empty, true);
  const std::string all = text.str();
  auto cells = split_csv_line(std::string_view(all).substr(0, all.find('\n')));
  std::vector<std::string> out = std::move(cells).value();
  out.emplace_back("cpu_percent");
  out.emplace_back("busiest_cpu_percent");
  out.emplace_back("app_cpu_percent");
  out.emplace_back("app_process_cpu_percent");
  return out;
}

std::string fixed3(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", v);
  return buffer;
}

std::string percent_of(Duration busy, Duration sim_time) {
  const auto sim_ns = sim_time.count();
  return sim_ns > 0
             ? fixed3(100.0 * static_cast<double>(busy.count()) / static_cast<double>(sim_ns))
             : std::string();
}

// One run's metric cells: sim::write_csv's row, then cpu_percent (CpuTime::utilization: the mean
// over every core, the report's "cpu"), busiest_cpu_percent (the busiest core's, of that core: a
// saturated core the mean hides) and app_cpu_percent (the core of application thread 0,
// cpu.app-core: the server's in a lab run) and app_process_cpu_percent (of that core, the time a
// thread was on it: its busy time less the interrupts that ran with no thread on the core and
// less ksoftirqd's — what /proc/PID/stat gives the server's process, as bench/sim-vs-lab.sh
// reads it).
std::vector<std::string> run_cells(const sim::RunReport& report, std::uint32_t app_core) {
  std::ostringstream text;
  sim::write_csv(text, report, false);
  std::string line = text.str();
  if (!line.empty() && line.back() == '\n') line.pop_back();
  std::vector<std::string> cells = split_csv_line(line).value();
  const std::optional<double> mean = report.cpu.utilization(report.sim_time);
  cells.push_back(mean ? fixed3(100.0 * *mean) : std::string());
  Duration busiest{};
  for (std::size_t c = 0; c < report.cpu.cores(); ++c)
    busiest = std::max(busiest, report.cpu.busy(c));
  cells.push_back(report.cpu.cores() > 0 ? percent_of(busiest, report.sim_time) : std::string());
  const bool app = app_core < report.cpu.cores();
  cells.push_back(app ? percent_of(report.cpu.busy(app_core), report.sim_time) : std::string());
  cells.push_back(app ? percent_of(report.cpu.busy(app_core) - report.cpu.over_idle(app_core) -
                                       report.cpu.busy(app_core, sim::ContextKind::ksoftirqd),
                                   report.sim_time)
                      : std::string());
  return cells;
}

}  // namespace

sim::LoadResult load_measured(const std::string& text, const std::string& file,
                              std::vector<std::string> sets,
                              const std::optional<std::string>& duration) {
  return sim::load_measured(
      [&](std::span<const std::string> all) { return sim::load_scenario_text(text, file, all); },
      std::move(sets), duration);
}

std::vector<std::string> columns(const Spec& spec) {
  std::vector<std::string> out{std::string(kPointColumn), std::string(kPointsColumn)};
  for (const Axis& a : spec.axes)
    out.push_back(a.key);
  const std::vector<std::string> metrics = metric_columns();
  out.insert(out.end(), metrics.begin(), metrics.end());
  if (spec.seeds > 1) {
    for (const std::string& m : metrics) {
      if (!is_numeric_metric(m)) continue;
      out.push_back(m + "_min");
      out.push_back(m + "_max");
    }
  }
  return out;
}

std::optional<std::string> check_axes(const Spec& spec) {
  for (const Axis& axis : spec.axes) {
    for (const std::string& value : axis.values) {
      std::vector<std::string> sets = spec.sets;
      sets.push_back(axis.key + "=" + value);
      const sim::LoadResult loaded = load_measured(spec.text, spec.file, sets, spec.duration);
      if (!loaded) return "--vary " + axis.key + "=" + value + ": " + loaded.error().what();
    }
  }
  return std::nullopt;
}

PointRow run_point(const Spec& spec, std::size_t index) {
  std::vector<std::string> overrides = point_overrides(spec.axes, index);
  std::string name = "point " + std::to_string(index);
  if (!overrides.empty()) {
    name += " (";
    for (std::size_t i = 0; i < overrides.size(); ++i)
      name += (i ? ", " : "") + overrides[i];
    name += ")";
  }
  std::vector<std::string> sets = spec.sets;
  sets.insert(sets.end(), overrides.begin(), overrides.end());
  sim::LoadResult loaded = load_measured(spec.text, spec.file, sets, spec.duration);
  if (!loaded) return {{}, PointError{name + ": " + loaded.error().what(), true}};

  std::vector<std::vector<std::string>> runs;
  const std::uint64_t base = loaded.value().scenario.seed;
  for (std::size_t k = 0; k < spec.seeds; ++k) {
    sim::Scenario scenario = loaded.value();
    scenario.scenario.seed = base + k;
    auto report = sim::simulate(scenario);
    if (!report) {
      return {{},
              PointError{name + " seed " + std::to_string(base + k) + ": " + report.error().what(),
                         report.error().key != "conservation"}};
    }
    runs.push_back(run_cells(report.value(), scenario.cpu.app_core));
  }

  PointRow row;
  row.cells.push_back(std::to_string(index));
  row.cells.push_back(std::to_string(point_count(spec.axes)));
  const std::vector<std::string> values = point_values(spec.axes, index);
  row.cells.insert(row.cells.end(), values.begin(), values.end());
  if (spec.seeds == 1) {
    row.cells.insert(row.cells.end(), runs[0].begin(), runs[0].end());
    return row;
  }
  // Seeds > 1: each numeric metric's mean over the seeds, then its min and max after them all.
  const std::vector<std::string> metrics = metric_columns();
  std::vector<std::string> spread;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (!is_numeric_metric(metrics[m])) {
      std::string cell = runs[0][m];  // scenario: the same; seed: the first
      if (metrics[m] == "conservation_ok") {
        for (const auto& run : runs) {
          if (run[m] != "true") cell = run[m];
        }
      }
      row.cells.push_back(cell);
      continue;
    }
    double sum = 0, lo = 0, hi = 0;
    bool any = false;
    for (const auto& run : runs) {
      if (run[m].empty()) continue;  // a rate over no time: no value
      const double v = std::strtod(run[m].c_str(), nullptr);
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      sum += v;
      any = true;
    }
    row.cells.push_back(any ? fixed3(sum / static_cast<double>(runs.size())) : "");
    spread.push_back(any ? fixed3(lo) : "");
    spread.push_back(any ? fixed3(hi) : "");
  }
  row.cells.insert(row.cells.end(), spread.begin(), spread.end());
  return row;
}

Outcome run_points(const Spec& spec, const std::vector<std::size_t>& points, unsigned jobs,
                   const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<PointRow> rows(points.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  std::size_t done = 0;
  const auto worker = [&] {
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= points.size()) return;
      rows[i] = run_point(spec, points[i]);
      if (rows[i].error) failed = true;
      if (progress) {
        std::lock_guard lock(progress_mutex);
        progress(++done, points.size());
      }
    }
  };
  jobs = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(points.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t)
    threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads)
    t.join();

  Outcome outcome;
  outcome.table.columns = columns(spec);
  for (PointRow& row : rows) {
    if (row.error) {
      outcome.error = row.error;
      return outcome;
    }
    if (!row.cells.empty()) outcome.table.rows.push_back(std::move(row.cells));
  }
  return outcome;
}

}  // namespace irqmod::sweep
