// libFuzzer target for the scenario loader: any bytes must load or fail with a Diagnostic, never
// crash, and a scenario that loads must survive write_toml -> load unchanged.
//
// Input: a scenario file, optionally followed by a line "--set" and one override per line, so
// that the fuzzer reaches apply_override too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/sim/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kMarker = "\n--set\n";
  const std::size_t marker = input.find(kMarker);
  const std::string_view file = input.substr(0, marker);
  std::vector<std::string> overrides;
  if (marker != std::string_view::npos) {
    std::string_view rest = input.substr(marker + kMarker.size());
    while (!rest.empty() && overrides.size() < 16) {
      const std::size_t nl = rest.find('\n');
      overrides.emplace_back(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    }
  }

  const irqmod::sim::LoadResult loaded = irqmod::sim::load_scenario_text(file, "fuzz.toml");
  if (!loaded.ok()) {
    const std::string message = loaded.error().what();
    if (message.empty()) std::abort();  // every error says something
  } else {
    std::ostringstream text;
    irqmod::sim::write_toml(text, loaded.value());
    const irqmod::sim::LoadResult again = irqmod::sim::load_scenario_text(text.str(), "fuzz.toml");
    if (!again.ok() || !(again.value() == loaded.value())) {
      std::fprintf(stderr, "round trip failed:\n%s\n%s\n", text.str().c_str(),
                   again.ok() ? "(different scenario)" : again.error().what().c_str());
      std::abort();
    }
  }
  if (!overrides.empty()) {
    const irqmod::sim::LoadResult with =
        irqmod::sim::load_scenario_text(file, "fuzz.toml", overrides);
    if (!with.ok() && with.error().what().empty()) std::abort();
  }
  return 0;
}
