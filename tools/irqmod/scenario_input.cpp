#include "scenario_input.hpp"

#include <algorithm>
#include <span>

#include "output.hpp"

namespace irqmod::cli {

namespace {

// Names a Linux user knows that are not the schema's key with a section in front: the net.core
// sysctls (Documentation/admin-guide/sysctl/net.rst) and the netdev netlink napi-set attribute
// whose sysfs name differs (Documentation/netlink/specs/netdev.yaml: defer-hard-irqs).
struct Alias {
  std::string_view name, key;
};
constexpr Alias kAliases[] = {
    {"net.core.busy_read", "napi.busy_read"},
    {"net.core.busy_poll", "napi.busy_poll"},
    {"net.core.netdev_budget", "napi.netdev_budget"},
    {"net.core.netdev_budget_usecs", "napi.netdev_budget_usecs"},
    {"net.core.netdev_max_backlog", "napi.netdev_max_backlog"},
    {"defer-hard-irqs", "napi.napi_defer_hard_irqs"},
};

}  // namespace

std::string scenario_key(std::string_view key) {
  for (const Alias& a : kAliases) {
    if (key == a.name) return std::string(a.key);
  }
  // A sysfs path names the attribute last: /sys/class/net/DEV/gro_flush_timeout.
  if (key.starts_with("/sys/")) key = key.substr(key.rfind('/') + 1);
  if (key.find('.') != std::string_view::npos || sim::find_key(key) != nullptr)
    return std::string(key);
  // An attribute, netlink's or ethtool's name, with or without the schema's '_' for '-'.
  for (const char* section : {"napi.", "nic."}) {
    for (const bool dashes : {false, true}) {
      std::string candidate = section + std::string(key);
      if (dashes) std::replace(candidate.begin(), candidate.end(), '-', '_');
      if (sim::find_key(candidate) != nullptr) return candidate;
    }
  }
  return std::string(key);
}

std::string scenario_assignment(std::string_view assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) return std::string(assignment);
  return scenario_key(assignment.substr(0, eq)) + std::string(assignment.substr(eq));
}

std::vector<std::string> scenario_assignments(const std::vector<std::string>& assignments) {
  std::vector<std::string> out;
  for (const std::string& a : assignments)
    out.push_back(scenario_assignment(a));
  return out;
}

sim::LoadResult load_scenario(const std::string& file, const ScenarioFlags& flags) {
  std::vector<std::string> sets = scenario_assignments(flags.sets);
  if (flags.seed) {
    const std::string assignment = "scenario.seed=" + *flags.seed;
    sim::Scenario scratch = sim::default_scenario();
    if (auto d = sim::apply_override(scratch, assignment, "--seed")) return *d;
    sets.insert(sets.begin(), assignment);
  }
  return sim::load_measured(
      [&](std::span<const std::string> all) { return sim::load_scenario_file(file, all); }, sets,
      flags.duration);
}

int exit_status_for_run(const Error& e) {
  return e.key == "conservation" ? kExitRunFailed : kExitBadInput;
}

}  // namespace irqmod::cli
