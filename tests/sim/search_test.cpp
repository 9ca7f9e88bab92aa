// search.kind = "rfc2544": the binary search over traffic.rate for the highest rate that loses
// nothing, its bounds and resolution, and what the report says.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

// One core, 2 us of work per frame: about 500 kframes/s before the ring overflows.
constexpr const char* kHost = R"(
[scenario]
duration = "20ms"
[traffic]
kind = "constant"
rate = 100000
size = 64
[nic]
rx-ring = 64
[cpu]
irq-entry = 1000
napi-poll = 500
rx-packet = 2000
app-message = 0
[search]
kind = "rfc2544"
low = 50000
resolution = 5000
)";

Scenario load(const std::string& text, std::vector<std::string> sets = {}) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

RunReport run(const Scenario& s) {
  auto r = simulate(s, RunOptions{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

TEST(search, finds_the_highest_rate_without_loss_to_its_resolution) {
  const Scenario s = load(kHost);
  const RunReport r = run(s);
  ASSERT_TRUE(r.search.has_value());
  const SearchResult& found = *r.search;
  EXPECT_GT(found.rate, 50'000u);
  EXPECT_LT(found.rate, 600'000u);
  EXPECT_LE(found.lost_rate - found.rate, 5'000u);
  EXPECT_EQ(r.drops.total(), 0u);  // the report is the run at the rate found
  // The same scenario without the search, at the rate found and at the lost rate.
  Scenario at = s;
  at.search = SearchSection{};
  at.traffic.rate = found.rate;
  const auto pass = simulate(at, RunOptions{});
  ASSERT_TRUE(pass.ok());
  EXPECT_EQ(pass->drops.total(), 0u);
  EXPECT_EQ(pass->delivered_packets, r.delivered_packets);
  at.traffic.rate = found.lost_rate;
  const auto fail = simulate(at, RunOptions{});
  ASSERT_TRUE(fail.ok());
  EXPECT_GT(fail->drops.total(), 0u);
  // Line rate (14.88 Mframes/s) down to 5 kframes/s: about log2(14.88M / 5k) + 2 runs.
  EXPECT_GE(found.trials, 12u);
  EXPECT_LE(found.trials, 16u);
}

TEST(search, a_finer_resolution_takes_more_trials_and_brackets_closer) {
  const RunReport coarse = run(load(kHost));
  const RunReport fine = run(load(kHost, {"search.resolution=500"}));
  EXPECT_GT(fine.search->trials, coarse.search->trials);
  EXPECT_LE(fine.search->lost_rate - fine.search->rate, 500u);
}

TEST(search, a_high_bound_that_passes_ends_the_search_there) {
  const RunReport r = run(load(kHost, {"search.high=60000"}));
  EXPECT_EQ(r.search->rate, 60'000u);
  EXPECT_EQ(r.search->lost_rate, 0u);
  EXPECT_EQ(r.search->trials, 2u);
}

TEST(search, a_low_bound_that_loses_is_reported_as_such) {
  const RunReport r = run(load(kHost, {"search.low=5000000"}));
  EXPECT_EQ(r.search->rate, 0u);
  EXPECT_EQ(r.search->lost_rate, 5'000'000u);
  EXPECT_EQ(r.search->trials, 1u);
  EXPECT_GT(r.drops.total(), 0u);
}

TEST(search, without_a_search_there_is_one_run_and_no_search_result) {
  const RunReport r = run(load(kHost, {"search.kind=none"}));
  EXPECT_FALSE(r.search.has_value());
  EXPECT_EQ(r.delivered_packets + r.drops.total() + r.conservation.in_flight, 2000u);
}

TEST(search, its_keys_are_checked) {
  const std::vector<std::string> high{"search.high=40000"};
  LoadResult bad = load_scenario_text(kHost, "test.toml", test::costs_only(kHost, high));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.error().what()),
            "test.toml: search.high: 40000 frames/s is not above search.low; allowed: 0 (line "
            "rate) or more than 50000");
  const std::vector<std::string> ping{"traffic.kind=ping-pong"};
  bad = load_scenario_text(kHost, "test.toml", test::costs_only(kHost, ping));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.error().what()).find("search.kind: the search sets [traffic]'s rate"),
            std::string::npos);
}

}  // namespace
}  // namespace irqmod::sim
