// The command-line flags that stand for scenario keys (--seed, --duration, --set), shared by the
// commands that load scenarios. A flag goes through its key's own parser and range checks, and a
// message names what the user typed ("--seed: scenario.seed: -1 is out of range ...").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/scenario.hpp"

namespace irqmod::cli {

struct ScenarioFlags {
  std::optional<std::string> seed;      // --seed N: scenario.seed
  std::optional<std::string> duration;  // --duration T: the time measured after the warm-up
  std::vector<std::string> sets;        // --set key=value, in order (they win over the flags)
};

// Loads `file` with `flags`. `--duration T` sets scenario.duration = scenario.warmup + T: the
// warm-up builds state the numbers need.
sim::LoadResult load_scenario(const std::string& file, const ScenarioFlags& flags);

// The exit status for a run that could not complete: a broken conservation check is the run's
// finding (1); anything else is a setting or file the run could not use (2).
int exit_status_for_run(const Error& e);

}  // namespace irqmod::cli
