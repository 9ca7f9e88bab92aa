#include "scenario_input.hpp"

#include <span>

#include "output.hpp"

namespace irqmod::cli {

sim::LoadResult load_scenario(const std::string& file, const ScenarioFlags& flags) {
  std::vector<std::string> sets = flags.sets;
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
