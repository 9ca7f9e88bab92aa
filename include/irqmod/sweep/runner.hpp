// Running a sweep's points: each point is the scenario file with the sweep's --set overrides,
// then the point's `key=value`s, loaded through the scenario's own parsing and validation
// (sim::load_scenario_text), and simulated with N seeds (scenario.seed, +1, ... +N-1).
//
// Points run on `jobs` threads. The simulator is safe for that: a run's state lives in its own
// objects (sim::simulate builds a World per call); the library's namespace-scope and static
// objects are const tables (the key schema, the kernel's behaviours, the policies' names) or
// function-local statics initialised once under C++11's guarantee; nothing reads a clock or a
// shared random generator. Rows are put in point order whatever finished first, so the output is
// the same for any `jobs`.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sweep/grid.hpp"
#include "irqmod/sweep/table.hpp"

namespace irqmod::sweep {

// `--duration T` as `irqmod sim` reads it (sim::load_measured, the one rule for every command):
// the time measured after the scenario's warm-up (scenario.duration = warmup + T). `text` is the
// file's contents, `file` its name. The command line checks the file and its flags once through
// tools/irqmod/scenario_input.cpp (sim's path: a directory or non-regular file refused) before
// reading `text`; this runs each point.
sim::LoadResult load_measured(const std::string& text, const std::string& file,
                              std::vector<std::string> sets,
                              const std::optional<std::string>& duration);

struct Spec {
  std::string file;                     // the scenario file's name (messages, platform lookup)
  std::string text;                     // its contents
  std::vector<std::string> sets;        // --set overrides, applied before the point's
  std::optional<std::string> duration;  // --duration
  std::vector<Axis> axes;               // --vary
  std::size_t seeds = 1;                // --seeds
};

// The first columns: the point's number in the grid (shards and ranks merge on it) and the
// grid's number of points (a merge checks that none is missing).
inline constexpr std::string_view kPointColumn = "point";
inline constexpr std::string_view kPointsColumn = "points";

// The table's columns: point, points, the varied keys, every column of `irqmod sim --csv`
// (metrics.hpp write_csv), cpu_percent (cpu_busy_ns over sim_time_ns, in % of one core: every
// core's), app_cpu_percent (the same for cpu.app-core alone: the server's core in a lab run),
// app_process_cpu_percent (of that core, the time its threads had: less the interrupts that ran
// with no thread on it and less ksoftirqd's, what /proc/PID/stat gives a process), and
// with seeds > 1 the spread: <metric>_min and <metric>_max for each numeric metric.
std::vector<std::string> columns(const Spec& spec);

// Checks each axis value alone on the scenario (a bad key or value is the scenario's
// Diagnostic, naming the key, prefixed by "--vary"). The combinations are checked as they run.
std::optional<std::string> check_axes(const Spec& spec);

// The row of one point (loaded, run `seeds` times), or the error: a point the scenario refuses
// ("point 3 (nic.rx-usecs=0, nic.rx-frames=0): ...", bad input) or a failed run.
struct PointError {
  std::string message;
  bool bad_input = true;  // false: the run broke an invariant (conservation)
};
struct PointRow {
  std::vector<std::string> cells;
  std::optional<PointError> error;
};
PointRow run_point(const Spec& spec, std::size_t index);

// Runs `points` (indices into the grid) on `jobs` threads; `progress(done, total)` is called
// after each point, from one thread at a time. The rows come back in the order of `points`; the
// first failing point (in that order) is returned instead when any fails.
struct Outcome {
  Table table;
  std::optional<PointError> error;
};
Outcome run_points(const Spec& spec, const std::vector<std::size_t>& points, unsigned jobs,
                   const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace irqmod::sweep
