// Test helpers: a scenario loaded from text as "test.toml", its error, and a run of it.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim::test {

inline LoadResult load(const std::string& text, const std::vector<std::string>& sets = {}) {
  return load_scenario_text(text, "test.toml", sets);
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
