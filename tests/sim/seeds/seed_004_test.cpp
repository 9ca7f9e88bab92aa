// Seed 004 (OpenBSD ix on an 82599, a router): the shapes of its two stories, on the shipped
// scenarios (platform xeon-e5504-openbsd, fitted on one row: cpu.forward on "8000 intr/s ->
// 535 kpps"). The runs are shortened to 1 s measured after 1.5 s of warm-up (the numbers differ
// from the 2 s of the shipped files by less than 0.2 %).
//
// What the seed says and what the model gives (docs/seeds.md has the table):
//   EITR 8000/s   535 kpps, 0.1 ms    fitted throughput; latency predicted
//   EITR 4000/s   550 kpps, 0.3 ms    predicted; latency x3 in the seed, about x2.25 here; the
//                                     throughput goes DOWN 3 % here where the seed has +3 %:
//                                     a finding, pinned and explained below, not hidden
//   the LLI storm 16 666 intr/s       the precise number; its harm (below the fix's rate) and the
//                                     feedback (livelocks shrink MCLGETI's watermark)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "irqmod/sim/trace.hpp"
#include "sim/shared_runs.hpp"

namespace irqmod::sim {
namespace {

std::vector<std::string> with_run_length(std::vector<std::string> sets) {
  sets.insert(sets.begin(), {"scenario.duration=2500ms", "scenario.warmup=1500ms"});
  return sets;
}
std::string shipped(const std::string& name) {
  return std::string(IRQMOD_SCENARIO_DIR) + "/seeds/" + name;
}

// A run shared by the suite's tests (shared_runs.hpp): several read the same scenario.
const RunReport& run_shipped(const std::string& name, std::vector<std::string> sets = {}) {
  return test::shared_run(shipped(name), with_run_length(std::move(sets)));
}

// A run with its timeline written to `trace`: its own, not shared.
RunReport run_traced(const std::string& name, std::vector<std::string> sets, TraceWriter& trace) {
  LoadResult s = load_scenario_file(shipped(name), with_run_length(std::move(sets)));
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().what());
  RunOptions options;
  options.trace = &trace;
  auto r = simulate(s.value(), options);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

double kpps(const RunReport& r) {
  return static_cast<double>(r.delivered_packets) / 1e3 /
         (static_cast<double>(r.sim_time.count()) / 1e9);
}
double per_second(std::uint64_t n, const RunReport& r) {
  return static_cast<double>(n) / (static_cast<double>(r.sim_time.count()) / 1e9);
}

// Within `band` (0.3 = +-30 %) of the seed's ratio.
void expect_ratio_near(double model, double seed, double band, const char* what) {
  EXPECT_GT(model, seed * (1 - band)) << what << ": model " << model << ", seed " << seed;
  EXPECT_LT(model, seed * (1 + band)) << what << ": model " << model << ", seed " << seed;
}

TEST(seed_004, the_eitr_table_interrupt_rates_follow_the_register_and_latency_grows_with_them) {
  const RunReport& at8000 = run_shipped("004-eitr-8000.toml");
  const RunReport& at4000 = run_shipped("004-eitr-4000.toml");
  EXPECT_TRUE(at8000.conservation.ok());
  // EITR = (4000000 / rate) & 0xff8: 124 us and 250 us, so at most 8064/s and 4000/s.
  EXPECT_NEAR(per_second(at8000.interrupts.count_of(0), at8000), 8000, 0.02 * 8000);
  EXPECT_NEAR(per_second(at4000.interrupts.count_of(0), at4000), 4000, 0.02 * 4000);
  // The fitted row lands on the seed (the watermark's steps leave 0.3 %).
  EXPECT_NEAR(kpps(at8000), 535, 0.01 * 535);
  // Latency: longer with the longer interval; x3 in the seed (0.1 -> 0.3 ms), ~x2.25 here.
  EXPECT_GT(at4000.latency.mean(), at8000.latency.mean());
  expect_ratio_near(at4000.latency.mean() / at8000.latency.mean(), 3.0, 0.3, "latency 4000/8000");
  // Throughput: the seed's ratio is 550 / 535 = 1.028; the model's is within 30 % of it...
  expect_ratio_near(kpps(at4000) / kpps(at8000), 550.0 / 535.0, 0.3, "throughput 4000/8000");
  // ...but on the wrong side of 1: a finding. With 250 us between interrupts the handler hands
  // ipintrq batches of ~160 frames while the CPU is saturated at the top of MCLGETI's sawtooth,
  // and ipintrq (IFQ_MAXLEN = 256) overflows: the frames rxeof and rxfill paid for are lost.
  EXPECT_LT(kpps(at4000), kpps(at8000));
  EXPECT_GT(at4000.drops.count(DropReason::backlog_full),
            100 * (at8000.drops.count(DropReason::backlog_full) + 1));
}

TEST(seed_004, with_a_longer_ipintrq_the_4000_row_forwards_more_as_in_the_seed) {
  // The explanation of the finding above: net.inet.ip.ifq.maxlen raised (as 10 GbE routers
  // often were) removes the overflow, and 4000/s then forwards more than 8000/s.
  const RunReport& at8000 = run_shipped("004-eitr-8000.toml", {"napi.netdev_max_backlog=1000"});
  const RunReport& at4000 = run_shipped("004-eitr-4000.toml", {"napi.netdev_max_backlog=1000"});
  EXPECT_EQ(at4000.drops.count(DropReason::backlog_full), 0u);
  EXPECT_GT(kpps(at4000), kpps(at8000));
  expect_ratio_near(kpps(at4000) / kpps(at8000), 550.0 / 535.0, 0.3, "throughput 4000/8000");
}

TEST(seed_004, the_storm_fires_at_the_60_us_cap_and_forwards_less_than_the_fix) {
  const RunReport& storm = run_shipped("004-lli-storm.toml");
  const RunReport& fix = run_shipped("004-eitr-8000.toml");
  EXPECT_TRUE(storm.conservation.ok());
  // "16 666 intr/s and this is a precise number you'd see".
  EXPECT_NEAR(per_second(storm.interrupts.count_of(0), storm), 1e6 / 60, 0.02 * 1e6 / 60);
  // The harm: the seed's fix (EITR 8000/s, no LLI) forwards more.
  EXPECT_LT(kpps(storm), kpps(fix));
}

TEST(seed_004, the_storm_feeds_itself_through_mclgetis_livelock_check) {
  // The same load with the ring trigger off (RDMTS 0): the regular 500 us interval only.
  const RunReport& storm = run_shipped("004-lli-storm.toml");
  const RunReport& quiet = run_shipped("004-lli-storm.toml", {"nic.lli-ring-threshold=0"});
  ASSERT_TRUE(storm.mclgeti && quiet.mclgeti);
  // LLIs steal the softclock's ticks: more livelocks, a watermark a fraction of the quiet one,
  // so fewer free descriptors, so the ring-low trigger never stops.
  EXPECT_GT(storm.mclgeti->livelocks, quiet.mclgeti->livelocks);
  EXPECT_LT(storm.mclgeti->cwm_mean(storm.sim_time), 0.5 * quiet.mclgeti->cwm_mean(quiet.sim_time));
  EXPECT_LT(storm.mclgeti->cwm_max, 64u);  // always below the LLI threshold: every frame a cause
  EXPECT_GT(per_second(storm.interrupts.count_of(0), storm),
            4 * per_second(quiet.interrupts.count_of(0), quiet));
}

TEST(seed_004, the_timeline_shows_the_watermark_falling_at_each_livelock_while_llis_fire) {
  std::ostringstream out;
  {
    TraceWriter trace(out);
    run_traced("004-lli-storm.toml", {"scenario.duration=1200ms", "scenario.warmup=0"}, trace);
  }
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  const nlohmann::json& events = doc.is_array() ? doc : doc["traceEvents"];
  // Every livelock instant is followed by a lower "mclgeti cwm" sample (the watermark drops by
  // max(cwm / 8, 2)); after 800 ms (80 ticks: room to grow past 64 one cluster a tick) the
  // ring's free descriptors still stay under the trigger's 64.
  std::int64_t cwm = -1;
  int livelocks = 0, falls = 0, interrupts = 0, free_samples = 0, free_below_64 = 0;
  bool after_livelock = false;
  for (const auto& e : events) {
    const std::string name = e.value("name", "");
    if (name == "livelock") {
      ++livelocks;
      after_livelock = true;
    } else if (name == "mclgeti cwm") {
      const std::int64_t v = e["args"]["clusters"].get<std::int64_t>();
      if (after_livelock && v < cwm) ++falls;
      after_livelock = false;
      cwm = v;
    } else if (name == "interrupt") {
      ++interrupts;
    } else if (name == "rx free" && e["ts"].get<double>() > 800'000) {  // after 800 ms
      ++free_samples;
      free_below_64 += e["args"]["descriptors"].get<std::int64_t>() < 64 ? 1 : 0;
    }
  }
  EXPECT_GT(livelocks, 0);
  EXPECT_EQ(falls, livelocks);
  EXPECT_GT(interrupts, 10000);  // 1.2 s at up to 16 666/s plus port 1's
  EXPECT_GT(free_samples, 1000);
  EXPECT_EQ(free_below_64, free_samples);
}

}  // namespace
}  // namespace irqmod::sim
