// irqmod tune's search: a grid over the discrete choices (--vary, as in a sweep) and, at each
// grid point, NLopt's COBYLA (a derivative-free method with inequality constraints, Powell 1994;
// Debian libnlopt-dev) over the continuous keys (--search KEY=LO:HI), each value rounded to a
// whole number of its unit, since the settings are integers (rx-usecs, ns). Every run is kept;
// the answer is the best of all runs that meet every constraint, not only NLopt's last point.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sweep/objective.hpp"
#include "irqmod/sweep/runner.hpp"

namespace irqmod::sweep {

// "nic.rx-usecs=1:128", "napi.gro_flush_timeout=0us:200us": bounds in one unit. Keyed "--search".
struct SearchAxis {
  std::string key;
  double low = 0, high = 0;
  std::string unit;  // the suffix written back after the rounded number ("us"), or none
};
Expected<SearchAxis> parse_search(std::string_view spec);

// The space irqmod tune searches when given no --vary or --search (tune.cpp says where each
// value comes from): the moderation kind, adaptive-rx, busy_read, busy_poll, napi_defer_hard_irqs
// and irq_suspend_timeout on the grid (96 points); rx-usecs, rx-frames and gro_flush_timeout
// searched. It stays bounded because most of the grid is skipped: on pingpong-udp 16 points are
// refused (adaptive-rx with coalescing and no sample-interval) and 67 run as an earlier point
// (busy_poll for a server blocking in recv, irq_suspend_timeout without prefer_busy_poll, ...),
// leaving 13 searched: 263 runs, 12.5 s of CPU, 16.7 s and 23.7 s wall on the 2-core machine at
// load 7 (measured 2026-11-30).
struct TuneSpace {
  std::vector<std::string> vary;    // --vary KEY=V1,V2
  std::vector<std::string> search;  // --search KEY=LOW:HIGH
};
TuneSpace default_tune_space();

struct TuneRequest {
  Spec base;  // the scenario, --set, --duration, --seeds; base.axes: the discrete grid
  std::vector<SearchAxis> search;
  Metric minimize;
  std::vector<Constraint> constraints;
  unsigned evaluations = 30;  // NLopt's runs per grid point, at most
  unsigned jobs = 1;          // grid points searched at once
};

struct Candidate {
  std::vector<std::string> overrides;  // "key=value", the grid's keys then the searched ones
  std::vector<std::string> row;        // its row, columns as TuneResult::table
  double objective = 0;                // the minimised metric (in its unit shown)
  double violation = 0;                // the sum of the constraints' violations (0: all met)
};

// A setting the scenario refuses (a combination its validation rejects, such as adaptive-rx with
// no sample-interval) is skipped and counted, not an error: a grid point whose first setting is
// refused is skipped whole, a searched setting refused is a point NLopt is told is infeasible.
struct TuneResult {
  Table table;                      // every distinct run, in search order
  std::vector<Candidate> ranked;    // met first by objective, then the rest by violation
  bool met = false;                 // ranked[0] meets every constraint
  std::optional<PointError> error;  // a run that failed (conservation), or every point refused
  std::size_t skipped_points = 0;   // grid points the scenario refuses
  std::size_t skipped_runs = 0;     // searched settings it refuses, at grid points it accepts
  std::size_t same_points = 0;      // grid points whose first run equals an earlier point's
                                    // (a knob with no effect on this scenario): not searched
  std::string skipped_example;      // the first refusal's message
};
TuneResult tune(const TuneRequest& request);

// The commands that apply `scenario`'s moderation and NAPI settings on a Linux host: ethtool -C,
// sysctl net.core.busy_read / busy_poll, /sys/class/net/DEV/napi_defer_hard_irqs and
// gro_flush_timeout, and irq-suspend-timeout by netdev netlink's napi-set (irqmod napi set, or
// the kernel's ynl). One command per line.
std::vector<std::string> apply_commands(const sim::Scenario& scenario, std::string_view dev);

}  // namespace irqmod::sweep
