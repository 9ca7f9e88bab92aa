// irqmod tune's search: a grid over the discrete choices (--vary, as in a sweep) and, at each
// grid point, NLopt's COBYLA (a derivative-free method with inequality constraints, Powell 1994;
// Debian libnlopt-dev) over the continuous keys (--search KEY=LO:HI), each value rounded to a
// whole number of its unit, since the settings are integers (rx-usecs, ns). Every run is kept;
// the answer is the best of all runs that meet every constraint, not only NLopt's last point.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sweep/apply.hpp"
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

// The space irqmod tune searches when given no --vary or --search, in the vocabulary of the
// scenario's host (tune.cpp says where each value comes from): the moderation kinds its driver
// has (coalesce, and adaptive-itr with adaptive-rx on i40e / ice, or net_dim on mlx5 / enetc),
// busy_read, busy_poll, and napi_defer_hard_irqs and irq_suspend_timeout where the kernel has
// them, on the grid; rx-usecs, rx-frames (where the driver has them) and gro_flush_timeout
// searched. A host with no knob tune can set (OpenBSD, a storage run, loopback) has an empty
// space. On pingpong-udp (i40e, no kernel set) the grid is 64 points, of which 16 are not offered
// (coalescing with adaptive-rx on) and 39 run as an earlier point (busy_poll for a server blocking
// in recv, irq_suspend_timeout without prefer_busy_poll, ...), leaving 9 searched: 142 runs, 9.3 s
// wall and 16.8 s of CPU on the 2-core machine while another build ran (2026-12-01).
struct TuneSpace {
  std::vector<std::string> vary;    // --vary KEY=V1,V2
  std::vector<std::string> search;  // --search KEY=LOW:HIGH
};
TuneSpace default_tune_space(const Vocabulary& vocabulary, const sim::Scenario& base);

struct TuneRequest {
  Spec base;  // the scenario, --set, --duration, --seeds; base.axes: the discrete grid
  std::vector<SearchAxis> search;
  Metric minimize;
  std::vector<Constraint> constraints;
  unsigned evaluations = 30;  // NLopt's runs per grid point, at most
  unsigned jobs = 1;          // grid points searched at once
  // The host's vocabulary: a grid point outside it (vocabulary_of(base), outside_vocabulary) is
  // skipped and counted, as a setting the host cannot be given.
  std::optional<Vocabulary> vocabulary;
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
  std::size_t not_offered = 0;      // grid points outside the host's vocabulary
  std::string not_offered_example;  // the first one's reason
};
TuneResult tune(const TuneRequest& request);

// The overrides ("KEY=VALUE") of `best` that change nothing in the prediction: the same run
// without one (the scenario's own value) gives the same metrics, cell for cell. An override that
// is the scenario's own value, or whose removal the scenario refuses, is not one of them.
std::vector<std::string> keys_without_effect(const TuneRequest& request, const Candidate& best);

}  // namespace irqmod::sweep
