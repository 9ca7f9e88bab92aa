// Test helpers: a scenario loaded from text as "test.toml", its error, and a run of it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim::test {

// `sets` with "platform=none" added when neither `text` nor `sets` names a platform: a test's
// own cost model is the whole of its costs (a scenario must name a platform, or "none"). An
// override, not a line of text, so that the lines the tests' messages name stay the same.
inline std::vector<std::string> costs_only(std::string_view text, std::vector<std::string> sets) {
  bool named = false;
  std::size_t at = 0;
  while (at < text.size() && !named) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.substr(0, 1) == "[") break;  // top-level keys come before the first table
    named = line.substr(0, 8) == "platform";
    at = end + 1;
  }
  for (const std::string& set : sets)
    named = named || set.rfind("platform", 0) == 0;
  if (!named) sets.emplace_back("platform=none");
  return sets;
}

inline LoadResult load(const std::string& text, const std::vector<std::string>& sets = {}) {
  return load_scenario_text(text, "test.toml", costs_only(text, sets));
}

// The scenario `text` (with `sets`) loads, or the test fails and gets the defaults.
inline Scenario loaded(const std::string& text, const std::vector<std::string>& sets = {}) {
  LoadResult r = load(text, sets);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.ok() ? r.value() : default_scenario();
}

// The scenario does not load: its message ("test.toml:LINE: key: ...").
inline std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  LoadResult r = load(text, sets);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().what();
}

inline RunReport run(const Scenario& s) {
  auto r = simulate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return std::move(r).value();
}

}  // namespace irqmod::sim::test
