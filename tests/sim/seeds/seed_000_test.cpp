// Seed 000 (i40e: a software interrupt at busy-poll exit), on the seed's own experiment:
// sockperf ping-pong --tcp -m 1000 --mps=max against busy_read = busy_poll = 50 and adaptive ITR,
// before and after the fix (scenarios/seeds/000-before.toml, 000-after.toml). No request period
// is tuned: the client's turnaround (traffic.peer-turnaround, FITTED on the "after" run's average
// and std-dev) is random, so the race hits when a request happens to land in busy_poll_stop's
// final poll.
//
// The scenarios run 120 s; these tests run 10 s of them (seed 1, the scenarios' own) so that a
// sanitizer build stays within seconds. 10 s hold about 50 stalls before and 200 000 exchanges
// after, enough for each property below.
//
//   seed: before avg 24.571 us, MAX 103 294 us;   after avg 24.965 us, MAX 195.8 us
//   model (120 s): before avg 430 us (x17: the race hits ~4 000 times per million exchanges, the
//   seed's ~0.8; docs/seeds.md), MAX 104.5 ms; after avg 24.8 us (fitted), MAX 72 us
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {
namespace {

RunReport run_shipped(const std::string& name, std::vector<std::string> sets = {}) {
  sets.insert(sets.begin(), "scenario.duration=10s");  // a test's own sets come after
  LoadResult s = load_scenario_file(std::string(IRQMOD_SCENARIO_DIR) + "/seeds/" + name, sets);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().what());
  auto r = simulate(s.value());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

// Each scenario's 10 s, run once for all the tests that read it.
const RunReport& before_run() {
  static const RunReport r = run_shipped("000-before.toml");
  return r;
}
const RunReport& after_run() {
  static const RunReport r = run_shipped("000-after.toml");
  return r;
}

double avg_us(const RunReport& r) {
  return r.latency.mean() / 1e3;
}

TEST(seed_000, before_the_race_strands_requests_at_random_and_a_loss_probe_ends_each_stall) {
  const RunReport& before = before_run();
  ASSERT_GT(before.stranded_frames, 0U);
  // Every stall but one still open at the end was ended by the client's loss probe.
  EXPECT_GT(before.probe_answers, 0U);
  EXPECT_GE(before.stranded_frames, before.probe_answers);
  EXPECT_LE(before.stranded_frames, before.probe_answers + 1);
  EXPECT_EQ(before.tcp_loss_probes, before.probe_answers);
  // The probe's 201 jiffies on the timer wheel's 8-jiffy step: 201-209 ms, printed halved.
  EXPECT_GT(before.latency.max(), 100'500'000);
  EXPECT_LT(before.latency.max(), 104'600'000);
  EXPECT_EQ(before.drops.total(), 0U);
}

TEST(seed_000, after_the_fix_nothing_is_stranded_and_the_max_stays_under_1_ms) {
  const RunReport& before = before_run();
  const RunReport& after = after_run();
  EXPECT_EQ(after.stranded_frames, 0U);
  EXPECT_EQ(after.tcp_loss_probes, 0U);
  EXPECT_LT(after.latency.max(), 1'000'000);
  // The seed: 103 294 us against 195.8 us, x527.
  EXPECT_GE(before.latency.max(), 100 * after.latency.max());
}

TEST(seed_000, the_fitted_after_average_and_the_typical_exchange_before_are_the_seeds) {
  const RunReport& before = before_run();
  const RunReport& after = after_run();
  // FITTED (the client's turnaround): 24.965 us; std-dev 5.934 us.
  EXPECT_NEAR(avg_us(after), 24.965, 0.1 * 24.965);
  EXPECT_NEAR(after.latency.stddev() / 1e3, 5.934, 0.2 * 5.934);
  // Predicted: the median exchange is the same with and without the fix (seed: 26.743 and
  // 26.860 us). The averages are not compared: the model's race hits thousands of times more
  // often than the seed's (a finding, docs/seeds.md), and a test must not hold that miss in place.
  const double p50_before = static_cast<double>(before.latency.percentile(50'000));
  const double p50_after = static_cast<double>(after.latency.percentile(50'000));
  EXPECT_NEAR(p50_before, p50_after, 0.1 * p50_after);
}

TEST(seed_000, the_clients_turnaround_decides_where_requests_land_and_is_in_the_rtt) {
  // Without the fitted turnaround the client answers at once: sockperf would print the server
  // side alone (~3.5 us), and every request would land inside the server's busy loop.
  const RunReport prompt =
      run_shipped("000-before.toml", {"traffic.peer-turnaround=0", "scenario.duration=1s"});
  EXPECT_LT(avg_us(prompt), 10.0);
  EXPECT_EQ(prompt.stranded_frames, 0U);
}

}  // namespace
}  // namespace irqmod::sim
