// Uses irqmod::sim: a scenario from text, 2 ms simulated, packet conservation checked.
#include <cstdio>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

int main() {
  const irqmod::sim::LoadResult loaded = irqmod::sim::load_scenario_text(
      "platform = \"none\"\n[scenario]\nduration = \"2ms\"\n", "consumer.toml");
  if (!loaded) {
    std::fprintf(stderr, "sim_consumer: %s\n", loaded.error().what().c_str());
    return 1;
  }
  const auto report = irqmod::sim::simulate(loaded.value());
  if (!report) {
    std::fprintf(stderr, "sim_consumer: %s\n", report.error().what().c_str());
    return 1;
  }
  std::printf("simulated %llu events, conservation %s\n",
              static_cast<unsigned long long>(report->events),
              report->conservation.ok() ? "ok" : "BROKEN");
  return report->events > 0 && report->conservation.ok() ? 0 : 1;
}
