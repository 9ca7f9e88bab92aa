// The run's time series (irqmod/sim/series.hpp, src/sim/sampler.cpp): its interrupt counts add
// up to the report's, the ring stays within its size, the same scenario gives the same samples,
// asking for it changes nothing in the run, and scenario.series-interval sets its step.
#include "irqmod/sim/series.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {
namespace {

Scenario load(const std::string& file, std::vector<std::string> sets) {
  LoadResult s = load_scenario_file(std::string(IRQMOD_SCENARIO_DIR) + "/" + file, sets);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().what());
  return s.value();
}

struct SeriesRun {
  RunReport report;
  RunSeries series;
};

SeriesRun run(const Scenario& scenario) {
  SeriesRun out;
  RunOptions options;
  options.series = &out.series;
  auto report = simulate(scenario, options);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().what());
  out.report = report.value();
  return out;
}

std::string json_of(const RunReport& report) {
  std::ostringstream text;
  write_json(text, report);
  return text.str();
}

// stream-10g-dim for 20 ms after a 7 ms warm-up (not a multiple of the 2 ms step: the warm-up
// sample stands between two grid samples), and a Poisson load that moves net_dim.
Scenario dim_stream() {
  return load("basics/stream-10g-dim.toml",
              {"scenario.duration=27ms", "scenario.warmup=7ms", "scenario.series-interval=2ms",
               "traffic.kind=poisson", "traffic.rate=300000"});
}

TEST(series, interrupts_after_the_warmup_add_up_to_the_report) {
  for (const Scenario& s :
       {dim_stream(),
        load("seeds/004-lli-storm.toml", {"scenario.duration=150ms", "scenario.warmup=50ms"})}) {
    const SeriesRun r = run(s);
    const RunSeries& series = r.series;
    ASSERT_GE(series.samples(), 3u);
    ASSERT_EQ(series.vectors.size(), r.report.interrupts.vectors());
    std::uint64_t measured = 0, all = 0;
    for (std::size_t k = 1; k < series.samples(); ++k) {
      for (std::size_t v = 0; v < series.vectors.size(); ++v) {
        const std::uint64_t n = series.interrupts_of(k, v) - series.interrupts_of(k - 1, v);
        all += n;
        if (series.times[k - 1] >= series.warmup_end) measured += n;
      }
    }
    EXPECT_EQ(measured, r.report.interrupts.total()) << s.scenario.name;
    EXPECT_GT(all, measured) << s.scenario.name << ": the warm-up had interrupts too";
  }
}

TEST(series, the_ring_stays_within_its_size_and_frames_add_up) {
  const Scenario s = dim_stream();
  const SeriesRun r = run(s);
  const RunSeries& series = r.series;
  ASSERT_EQ(series.queues.size(), 1u);
  EXPECT_EQ(series.queues[0].ring, s.nic.rx_ring);
  std::uint32_t most = 0;
  for (std::size_t k = 0; k < series.samples(); ++k) {
    const QueueSample& q = series.queue(k, 0);
    EXPECT_LE(q.used + q.free, series.queues[0].ring) << "sample " << k;
    most = std::max(most, q.used);
  }
  EXPECT_GT(most, 0u) << "the ring held frames at some sample";
  // Every frame that reached the ring was written back or dropped there.
  const QueueSample& last = series.queue(series.samples() - 1, 0);
  EXPECT_EQ(last.written_back + last.dropped, r.report.conservation.entered);
}

TEST(series, net_dim_moves_and_the_series_follows_it) {
  const SeriesRun r = run(dim_stream());
  ASSERT_TRUE(r.series.dim);
  EXPECT_EQ(r.series.moderation, "rx-usecs");
  std::vector<std::int32_t> profiles;
  for (std::size_t k = 0; k < r.series.samples(); ++k)
    profiles.push_back(r.series.queue(k, 0).dim_profile);
  EXPECT_NE(*std::min_element(profiles.begin(), profiles.end()),
            *std::max_element(profiles.begin(), profiles.end()))
      << "net_dim changed profile during the run";
}

TEST(series, the_same_scenario_gives_the_same_samples_and_the_same_report) {
  const Scenario s = dim_stream();
  const SeriesRun a = run(s);
  const SeriesRun b = run(s);
  std::ostringstream ca, cb;
  write_series_csv(ca, a.series);
  write_series_csv(cb, b.series);
  EXPECT_EQ(ca.str(), cb.str());
  // Asking for a series adds no event and lands frames only where the run would give the same.
  for (const Scenario& t :
       {s, load("basics/rss-4q-10g.toml", {"scenario.duration=20ms", "scenario.warmup=3ms"}),
        load("basics/pingpong-udp.toml", {"scenario.duration=20ms"}),
        load("seeds/004-lli-storm.toml", {"scenario.duration=30ms", "scenario.warmup=10ms"}),
        load("seeds/000-busy-poll-exit-race.toml", {})}) {
    auto plain = simulate(t);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(json_of(plain.value()), json_of(run(t).report)) << t.scenario.name;
  }
}

TEST(series, the_interval_key_sets_the_step) {
  // 27 ms in 2 ms steps: 0, 2, ..., 26, the warm-up at 7 and the end at 27.
  const SeriesRun two = run(dim_stream());
  EXPECT_EQ(two.series.interval, milliseconds(2));
  EXPECT_EQ(two.series.samples(), 14u + 1 + 1);
  Scenario s = dim_stream();
  s.scenario.series_interval = milliseconds(9);  // 0, 9, 18, 7 (warm-up), 27 (end)
  const SeriesRun nine = run(s);
  EXPECT_EQ(nine.series.samples(), 5u);
  EXPECT_EQ(nine.series.times[1], at_ns(0) + milliseconds(7));
  // 0: the run / 500.
  s.scenario.series_interval = Duration::zero();
  EXPECT_EQ(run(s).series.interval, microseconds(54));
}

TEST(series, too_many_samples_are_refused_naming_the_key) {
  LoadResult s = load_scenario_file(std::string(IRQMOD_SCENARIO_DIR) + "/basics/pingpong-udp.toml",
                                    std::vector<std::string>{"scenario.series-interval=1ns"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().error.key, "scenario.series-interval");
  EXPECT_NE(s.error().what().find("allowed: 0 (automatic) or at least"), std::string::npos)
      << s.error().what();
}

TEST(series, a_storage_or_af_xdp_run_has_none) {
  const Scenario s = load("seeds/003-posted-msi.toml", {"scenario.duration=1ms"});
  RunSeries series;
  RunOptions options;
  options.series = &series;
  auto report = simulate(s, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().key, "series");
}

}  // namespace
}  // namespace irqmod::sim
