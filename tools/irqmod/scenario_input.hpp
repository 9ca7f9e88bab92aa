// The command-line flags that stand for scenario keys (--seed, --duration, --set), shared by the
// commands that load scenarios. A flag goes through its key's own parser and range checks, and a
// message names what the user typed ("--seed: scenario.seed: -1 is out of range ...").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/scenario.hpp"

namespace irqmod::cli {

struct ScenarioFlags {
  std::optional<std::string> seed;      // --seed N: scenario.seed
  std::optional<std::string> duration;  // --duration T: the time measured after the warm-up
  std::vector<std::string> sets;        // --set key=value, in order (they win over the flags)
};

// A key as sysctl, sysfs, netdev netlink or ethtool spell it, as the scenario key it stands for,
// so that what a Linux user types is understood: net.core.busy_read -> napi.busy_read,
// /sys/class/net/eth0/napi_defer_hard_irqs or napi_defer_hard_irqs -> napi.napi_defer_hard_irqs,
// irq-suspend-timeout -> napi.irq_suspend_timeout, rx-usecs -> nic.rx-usecs. The units are the
// same (net.core.busy_read counts us, as napi.busy_read's bare number does; gro_flush_timeout
// ns). Any other key is returned as it is, for the scenario to accept or refuse.
std::string scenario_key(std::string_view key);
// "KEY=VALUE" (--set, --vary, --search) with KEY as scenario_key() gives it.
std::string scenario_assignment(std::string_view assignment);
std::vector<std::string> scenario_assignments(const std::vector<std::string>& assignments);

// Loads `file` with `flags`. `--duration T` sets scenario.duration = scenario.warmup + T: the
// warm-up builds state the numbers need.
sim::LoadResult load_scenario(const std::string& file, const ScenarioFlags& flags);

// The exit status for a run that could not complete: a broken conservation check is the run's
// finding (1); anything else is a setting or file the run could not use (2).
int exit_status_for_run(const Error& e);

}  // namespace irqmod::cli
