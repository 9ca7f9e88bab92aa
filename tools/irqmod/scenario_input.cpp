#include "scenario_input.hpp"

#include <limits>

#include "irqmod/sim/units.hpp"
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
  if (!flags.duration) return sim::load_scenario_file(file, sets);
  const std::string& text = *flags.duration;
  const auto measured = sim::parse_duration_ns(text, "s");
  if (!measured || *measured <= 0) {
    return sim::Diagnostic{"", 0,
                           Error{"--duration", "'" + text +
                                                   "' is not a duration; allowed: a time above 0 "
                                                   "such as 100ms (a bare number is seconds)"}};
  }
  sim::LoadResult first = sim::load_scenario_file(file, sets);
  if (!first) return first;
  const std::int64_t warmup = first.value().scenario.warmup.count();
  // Saturated: a sum past the int64 range is refused as out of range below, not wrapped.
  const std::int64_t total = *measured > std::numeric_limits<std::int64_t>::max() - warmup
                                 ? std::numeric_limits<std::int64_t>::max()
                                 : warmup + *measured;
  const std::string assignment = "scenario.duration=" + std::to_string(total) + "ns";
  sim::Scenario scratch = first.value();
  if (auto d = sim::apply_override(scratch, assignment, "--duration")) {
    d->error.message += " (scenario.duration = the warm-up, " + sim::format_duration(warmup) +
                        ", + --duration " + text + ")";
    return *d;
  }
  sets.insert(sets.begin(), assignment);
  return sim::load_scenario_file(file, sets);
}

int exit_status_for_run(const Error& e) {
  return e.key == "conservation" ? kExitRunFailed : kExitBadInput;
}

}  // namespace irqmod::cli
