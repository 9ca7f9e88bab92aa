// Shipped scenarios' runs shared by the tests of one test program. The seed suites read the same
// runs in several tests, and each of those suites runs as one ctest test, one process
// (tests/CMakeLists.txt), so each run happens once for all of its tests; a test run alone
// (--gtest_filter) still runs what it reads. A run is deterministic (the same scenario and seed
// give the same report, and the simulator keeps no mutable global state), so sharing it changes
// no result a test sees.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim::test {

// The report of `irqmod sim FILE --set SETS...` (the default run options), run the first time this
// program asks for it. A file that does not load or run adds a failure to every test that asks for
// it (the failure is not kept) and gives an empty report.
inline const RunReport& shared_run(const std::string& file, const std::vector<std::string>& sets) {
  static std::map<std::pair<std::string, std::vector<std::string>>, RunReport> runs;
  static const RunReport empty;
  auto key = std::make_pair(file, sets);
  if (const auto it = runs.find(key); it != runs.end()) return it->second;
  const LoadResult s = load_scenario_file(file, sets);
  if (!s.ok()) {
    ADD_FAILURE() << file << ": " << s.error().what();
    return empty;
  }
  auto r = simulate(s.value());
  if (!r.ok()) {
    ADD_FAILURE() << file << ": " << r.error().what();
    return empty;
  }
  return runs.emplace(std::move(key), std::move(r).value()).first->second;
}

}  // namespace irqmod::sim::test
