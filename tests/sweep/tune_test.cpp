#include "irqmod/sweep/tune.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace irqmod::sweep {
namespace {

// Seed-free ping-pong (one message in flight, constant costs): p99 rises and CPU falls with
// rx-usecs (2, 8, 16, 32, 64 us: p99 4.6, 7.6, 11.6, 19.6, 35.6 us; CPU 67, 41, 27, 16, 8 %).
TuneRequest pingpong(const std::vector<std::string>& constraints,
                     const std::string& file = IRQMOD_SCENARIO_DIR "/basics/pingpong-udp.toml") {
  TuneRequest r;
  r.base.file = file;
  std::ifstream in(r.base.file);
  std::ostringstream text;
  text << in.rdbuf();
  r.base.text = text.str();
  r.base.duration = "20ms";
  r.minimize = parse_metric("cpu", columns(r.base)).value();
  for (const std::string& c : constraints)
    r.constraints.push_back(parse_constraint(c, columns(r.base)).value());
  r.jobs = 2;
  return r;
}

TEST(Tune, FindsTheOneGridPointThatMeetsTheConstraints) {
  TuneRequest r = pingpong({"p99 <= 15us", "cpu <= 30%"});
  r.base.axes = {{"nic.rx-usecs", {"2", "8", "16", "32", "64"}}};
  const TuneResult result = tune(r);
  ASSERT_FALSE(result.error);
  ASSERT_TRUE(result.met);
  EXPECT_EQ(result.ranked[0].overrides, (std::vector<std::string>{"nic.rx-usecs=16"}));
  EXPECT_GT(result.ranked[1].violation, 0);  // the only one
  EXPECT_EQ(result.table.rows.size(), 5u);
}

TEST(Tune, AnImpossibleObjectiveIsNotMetAndTheClosestPointComesFirst) {
  TuneRequest r = pingpong({"p99 <= 1us"});
  r.base.axes = {{"nic.rx-usecs", {"2", "8", "64"}}};
  const TuneResult result = tune(r);
  ASSERT_FALSE(result.met);
  EXPECT_EQ(result.ranked[0].overrides, (std::vector<std::string>{"nic.rx-usecs=2"}));
  EXPECT_GT(result.ranked[0].violation, 0);
}

TEST(Tune, CobylaFindsTheLargestRxUsecsUnderALatencyBound) {
  // p99 <= 20 us allows rx-usecs up to 32 (19.6 us); the least CPU is at the largest allowed.
  TuneRequest r = pingpong({"p99 <= 20us"});
  r.search = {parse_search("nic.rx-usecs=1:128").value()};
  r.evaluations = 40;
  const TuneResult result = tune(r);
  ASSERT_FALSE(result.error);
  ASSERT_TRUE(result.met);
  const std::string best = result.ranked[0].overrides[0];
  const int usecs = std::stoi(best.substr(best.find('=') + 1));
  EXPECT_GE(usecs, 30) << best;
  EXPECT_LE(usecs, 33) << best;
  EXPECT_LT(result.table.rows.size(), 40u);  // it searched, not enumerated 128 values
}

TEST(Tune, SkipsAndCountsTheCombinationsTheScenarioRefuses) {
  // adaptive-rx with coalescing needs a sample-interval the file does not set: that grid point is
  // skipped and counted; adaptive-rx with i40e's adaptive ITR runs.
  TuneRequest r = pingpong({"p99 <= 100us"});
  r.base.duration = "5ms";
  r.base.axes = {{"nic.moderation", {"coalesce", "adaptive-itr"}},
                 {"nic.adaptive-rx", {"false", "true"}}};
  const TuneResult result = tune(r);
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.skipped_points, 1u);
  EXPECT_EQ(result.table.rows.size(), 3u);
  EXPECT_NE(result.skipped_example.find("nic.sample-interval"), std::string::npos)
      << result.skipped_example;
  // Every point refused is an error, with an example.
  r.base.axes = {{"nic.adaptive-rx", {"true"}}};
  const TuneResult none = tune(r);
  ASSERT_TRUE(none.error);
  EXPECT_NE(none.error->message.find("refuses every setting"), std::string::npos);
}

TEST(Tune, TheDefaultSpaceSearchesEveryKnobOfTheHost) {
  // pingpong-udp is an i40e host with no kernel set: the moderation kind (coalesce or i40e's
  // adaptive ITR), adaptive-rx, busy_read / busy_poll, napi_defer_hard_irqs and
  // irq_suspend_timeout on the grid, rx-usecs and gro_flush_timeout searched (i40e has no
  // rx-frames): each takes more than one value among the runs, and the refused combinations are
  // skipped.
  TuneRequest r = pingpong({"p99 <= 100us"});
  r.base.duration = "2ms";
  const sim::LoadResult base = load_measured(r.base.text, r.base.file, {}, r.base.duration);
  ASSERT_TRUE(base);
  r.vocabulary = vocabulary_of(base.value());
  const TuneSpace space = default_tune_space(*r.vocabulary, base.value());
  for (const std::string& v : space.vary)
    r.base.axes.push_back(parse_vary(v).value());
  for (const std::string& v : space.search)
    r.search.push_back(parse_search(v).value());
  const TuneResult result = tune(r);
  ASSERT_FALSE(result.error) << result.error->message;
  // Coalescing with adaptive-rx on (1 x 16 of the others) is not i40e's: not offered, before the
  // scenario would refuse it for want of a sample-interval.
  EXPECT_EQ(result.not_offered, 16u);
  EXPECT_EQ(result.skipped_points, 0u);
  // The server blocks in recv: busy_poll (poll/epoll's) changes nothing, so half the grid points
  // the scenario accepts run as an earlier one and are not searched again.
  EXPECT_GE(result.same_points, 24u);
  EXPECT_LT(result.same_points, 48u);
  EXPECT_FALSE(result.table.column("nic.rx-frames"));
  for (const char* key : {"nic.moderation", "nic.adaptive-rx", "napi.busy_read", "napi.busy_poll",
                          "napi.napi_defer_hard_irqs", "napi.irq_suspend_timeout", "nic.rx-usecs",
                          "napi.gro_flush_timeout"}) {
    const auto column = result.table.column(key);
    ASSERT_TRUE(column) << key;
    std::vector<std::string> values;
    for (const auto& row : result.table.rows)
      values.push_back(row[*column]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    EXPECT_GE(values.size(), 2u) << key;
  }
  EXPECT_LE(result.table.rows.size(), 48u + (48u - result.same_points) * r.evaluations);
}

TEST(Tune, SkipsAndCountsTheGridPointsTheHostDoesNotHave) {
  // With a sample-interval the scenario takes coalescing with adaptive-rx on (rate bands), but
  // adaptive-rx on i40e is its adaptive ITR: that point is not offered, the other three run.
  TuneRequest r = pingpong({"p99 <= 100us"});
  r.base.duration = "5ms";
  r.base.sets = {"nic.sample-interval=1"};
  const sim::LoadResult base = load_measured(r.base.text, r.base.file, r.base.sets, "5ms");
  ASSERT_TRUE(base);
  r.vocabulary = vocabulary_of(base.value());
  r.base.axes = {{"nic.moderation", {"coalesce", "adaptive-itr"}},
                 {"nic.adaptive-rx", {"false", "true"}}};
  const TuneResult result = tune(r);
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.not_offered, 1u);
  EXPECT_EQ(result.skipped_points, 0u);
  EXPECT_EQ(result.table.rows.size(), 3u);
  EXPECT_NE(result.not_offered_example.find("not coalescing's rate bands"), std::string::npos)
      << result.not_offered_example;
  // Without the vocabulary (a sweep's view) all four run.
  r.vocabulary.reset();
  EXPECT_EQ(tune(r).table.rows.size(), 4u);
}

TEST(Tune, AMetricNoRunMeasuresIsAnErrorNotAnAnswer) {
  // A storage run measures no message latency: its CSV's p99 is 0 in every row, which used to
  // make any point "best".
  TuneRequest r = pingpong({}, IRQMOD_SCENARIO_DIR "/seeds/003-interrupts.toml");
  r.base.duration = "1ms";
  r.minimize = parse_metric("p99", columns(r.base)).value();
  r.base.axes = {{"scenario.seed", {"1", "2"}}};
  const TuneResult result = tune(r);
  ASSERT_TRUE(result.error);
  EXPECT_TRUE(result.error->bad_input);
  EXPECT_NE(result.error->message.find("p99 (latency_p99_ns): no run has a value of it"),
            std::string::npos)
      << result.error->message;
}

TEST(Tune, ASearchedValueThatChangesNothingIsFound) {
  // pingpong-udp's server blocks in recv with no deferral: gro_flush_timeout changes nothing,
  // rx-usecs changes everything.
  TuneRequest r = pingpong({});
  r.base.axes = {{"nic.rx-usecs", {"16"}}, {"napi.gro_flush_timeout", {"100us"}}};
  const TuneResult result = tune(r);
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(keys_without_effect(r, result.ranked[0]),
            (std::vector<std::string>{"napi.gro_flush_timeout=100us"}));
  // The scenario's own value is no finding.
  r.base.axes = {{"nic.rx-usecs", {"16"}}, {"napi.gro_flush_timeout", {"0"}}};
  EXPECT_TRUE(keys_without_effect(r, tune(r).ranked[0]).empty());
}

TEST(Tune, ParseSearchTakesBoundsInOneUnit) {
  auto a = parse_search("napi.gro_flush_timeout=0us:200us");
  ASSERT_TRUE(a) << a.error().what();
  EXPECT_EQ(a->unit, "us");
  EXPECT_EQ(a->high, 200);
  for (const char* bad : {"nic.rx-usecs=1,2", "nic.rx-usecs=5:1", "nic.rx-usecs=1us:5ms",
                          "nic.rx-usecs=1:2:3", "nic.rx-usecs"})
    EXPECT_FALSE(parse_search(bad)) << bad;
}

}  // namespace
}  // namespace irqmod::sweep
