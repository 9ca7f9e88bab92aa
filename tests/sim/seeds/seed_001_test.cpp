// Seed 001 (enetc on an LS1028A, 1 Gbit/s, netperf TCP_MAERTS / TCP_STREAM): the shapes of its
// three cases, on the shipped scenarios (platform cortex-a72-enetc, fitted on one number:
// cpu.context-switch, on case 2 "before"'s total CPU). The runs are shortened to 400 ms measured
// after 200 ms of warm-up.
//
// What the seed says and what the model gives (docs/seeds.md has the table and the reasons):
//   case 2 before   85k + 42k intr/s, 60-70 %   81.3k + 40.6k predicted; CPU fitted
//   case 2 DIM      3.5k + 3.5k, 15 %           3.5k + 3.5k, 12.6 % predicted
//   case 1 before   92k, 50-60 %                81.3k predicted; 74 %: the CPU misses
//   case 1 DIM      35k, just under 50 %        20.6k, 27 %: the direction holds, the ratios miss
//   case 3 before   ~100k, ~80 %                106.9k, 83 % predicted
//   case 3 DIM      ~10k, 60 %                  10.9k, 48 % predicted (enetc's net_dim glue)
// The misses are pinned below as findings, so a model change that moves them shows up.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/shared_runs.hpp"

namespace irqmod::sim {
namespace {

// A run shared by the suite's tests (shared_runs.hpp): several read the same scenario.
const RunReport& run_shipped(const std::string& name, std::vector<std::string> sets = {}) {
  sets.insert(sets.begin(), {"scenario.duration=600ms", "scenario.warmup=200ms"});
  const RunReport& r = test::shared_run(std::string(IRQMOD_SCENARIO_DIR) + "/seeds/" + name, sets);
  EXPECT_TRUE(r.conservation.ok()) << name;
  return r;
}

double seconds(const RunReport& r) {
  return static_cast<double>(r.sim_time.count()) / 1e9;
}
// Interrupts per second taken on `core`, in thousands.
double kirq(const RunReport& r, std::size_t core) {
  return static_cast<double>((r.cores.at(core).device_irqs + r.cores.at(core).timer_irqs)) / 1e3 /
         seconds(r);
}
double kirq_total(const RunReport& r) {
  return kirq(r, 0) + kirq(r, 1);
}
// netperf's -c: the mean busy share of both CPUs, in percent.
double cpu_percent(const RunReport& r) {
  const Duration busy = r.cpu.busy(0) + r.cpu.busy(1);
  return 100.0 * static_cast<double>(busy.count()) /
         (2.0 * static_cast<double>(r.sim_time.count()));
}
double kpps(const RunReport& r) {
  return static_cast<double>(r.delivered_packets) / 1e3 / seconds(r);
}

void expect_within(double model, double seed, double band, const char* what) {
  EXPECT_GT(model, seed * (1 - band)) << what << ": model " << model << ", seed " << seed;
  EXPECT_LT(model, seed * (1 + band)) << what << ": model " << model << ", seed " << seed;
}

// 1538 bytes on the wire per 1448-byte segment with timestamps: 81 274 frames/s at 1 Gbit/s.
constexpr double kLineRateKpps = 81.274;

TEST(seed_001, every_case_runs_at_line_rate) {
  for (const char* name : {"001-case1-before.toml", "001-case1-dim.toml", "001-case2-before.toml",
                           "001-case2-dim.toml", "001-case2-link-speed.toml"}) {
    const RunReport& r = run_shipped(name);
    EXPECT_NEAR(kpps(r), kLineRateKpps, 0.005 * kLineRateKpps) << name;
    EXPECT_EQ(r.drops.total(), 0u) << name;
  }
}

double goodput_mbps(std::uint64_t bytes, const RunReport& r) {
  return static_cast<double>(bytes) * 8 / 1e6 / seconds(r);
}

TEST(seed_001, case3_runs_both_ways_near_line_rate_with_its_ping_answered) {
  for (const char* name : {"001-case3-before.toml", "001-case3-dim.toml"}) {
    const RunReport& r = run_shipped(name);
    ASSERT_TRUE(r.tcp) << name;
    ASSERT_TRUE(r.ping) << name;
    // 941.5 Mbit/s of goodput at 1 Gbit/s for a stream alone; each way here less by the wire the
    // other way's ACKs take (and the ping's frames): ~914 both ways.
    EXPECT_GT(goodput_mbps(r.tcp->received_bytes, r), 0.96 * 941.5) << name;
    EXPECT_GT(goodput_mbps(r.tcp->sent_bytes, r), 0.96 * 941.5) << name;
    EXPECT_EQ(r.drops.total(), 0u) << name;
    EXPECT_EQ(r.ping->lost, 0u) << name;
    EXPECT_GE(r.ping->rtt.count() + 1, r.ping->sent) << name;
  }
}

// Case 3 over the shipped files' whole 1 s: net_dim's interrupts keep falling while its profiles
// settle, so the shorter runs above would read 7 % more.
const RunReport& run_case3(const std::string& name) {
  return run_shipped(name, {"scenario.duration=1200ms"});
}

TEST(seed_001, case3_before_and_dim_interrupts_and_cpu_against_the_seed) {
  const RunReport& before = run_case3("001-case3-before.toml");
  const RunReport& dim = run_case3("001-case3-dim.toml");
  // Predictions. The direction of both changes holds.
  EXPECT_LT(kirq_total(dim), kirq_total(before));
  EXPECT_LT(cpu_percent(dim), cpu_percent(before));
  // Interrupts: seed ~100k and ~10k, a ratio of ~0.1; the model 106.9k and 10.9k (0.102), both
  // within a prediction's 30 % (DIM's with enetc's net_dim glue: see the next test).
  expect_within(kirq_total(before), 100, 0.3, "case 3 before, k intr/s");
  expect_within(kirq_total(dim), 10, 0.3, "case 3 DIM, k intr/s");
  expect_within(kirq_total(dim) / kirq_total(before), 0.1, 0.3, "case 3 interrupt ratio");
  // CPU before: seed ~80 % (spikes to 90 %); the model 83 %: CPU 0 is (nearly) saturated (every
  // frame, the ACKs for the board's senders included, lands on Rx ring 0), CPU 1 runs netperf.
  expect_within(cpu_percent(before), 80, 0.3, "case 3 before, CPU %");
  EXPECT_GT(before.cpu.busy(0), before.sim_time * 95 / 100);
  // The CPU change: seed ~60 / ~80 = 0.75, the model 0.59, within the band.
  expect_within(cpu_percent(dim) / cpu_percent(before), 0.75, 0.3, "case 3 CPU ratio");
}

TEST(seed_001, case3_dim_rate_needs_enetcs_net_dim_glue) {
  // The seed's patch v1 feeds net_dim its way (nic.dim-driver = "enetc", set by the platform):
  // completed polls as events, a direction sampled only after a poll with work of it, the usec
  // written at the next interrupt. With mlx5's glue (every completion, the interrupt count, the
  // pair written at once) the same scenario keeps 14.3k/s, x1.43 of the seed's ~10k.
  const RunReport& enetc = run_case3("001-case3-dim.toml");
  const RunReport& mlx5 =
      run_shipped("001-case3-dim.toml", {"scenario.duration=1200ms", "nic.dim-driver=mlx5"});
  EXPECT_GT(kirq_total(mlx5), 10 * 1.3);
  EXPECT_LT(kirq_total(enetc), 0.8 * kirq_total(mlx5));
}

TEST(seed_001, case3_dim_finding_cpu_falls_further_than_the_seeds) {
  const RunReport& before = run_case3("001-case3-before.toml");
  const RunReport& dim = run_case3("001-case3-dim.toml");
  // The seed: 60 % after ~80 %, a ratio of ~0.75. The model: 48 % after 83 %, 0.58 (within the
  // 30 % band of a prediction, but low). A finding (docs/seeds.md): once net_dim batches, the
  // model's costs per interrupt and per poll vanish and what is left is per frame and per skb;
  // what the seed kept is not established (candidates: the CPU cost of patch v1's DIM work items
  // on the system workqueue, which the model does not charge; netperf's own accounting).
  const double ratio = cpu_percent(dim) / cpu_percent(before);
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 0.62);
  EXPECT_LT(cpu_percent(dim), 60 * 0.85);
}

TEST(seed_001, case3_ping_is_not_hurt_by_dim) {
  const RunReport& before = run_case3("001-case3-before.toml");
  const RunReport& dim = run_case3("001-case3-dim.toml");
  ASSERT_TRUE(before.ping && dim.ping);
  // The seed: "the ping test outcome was not impacted". The model: the median moves by less than
  // 10 %, the 99th percentile by less than one of net_dim's longest Rx and Tx timers (256 + 128
  // us) could add. Their absolute value (~1.7 ms) is the board's standing Tx queue: the sending
  // connections' data queued in front of the echo reply on the one wire, at most their four
  // 64 KiB windows (2.1 ms at 1 Gbit/s); the echo request itself crosses the peer's wire at once.
  const auto p50 = [](const RunReport& r) {
    return static_cast<double>(r.ping->rtt.percentile(50'000));
  };
  const auto p99 = [](const RunReport& r) {
    return static_cast<double>(r.ping->rtt.percentile(99'000));
  };
  EXPECT_NEAR(p50(dim), p50(before), 0.1 * p50(before));
  EXPECT_LT(p99(dim), p99(before) + 384e3);
  EXPECT_GT(p99(dim), p99(before) - 384e3);
  for (const RunReport* r : {&before, &dim}) {
    EXPECT_GT(p50(*r), 1e6);                     // the standing queue, pinned
    EXPECT_LT(r->ping->rtt.percentile(100'000),  // never more than that queue and the timers
              4.0 * 65'536 * 8 + 384e3 + 100e3);
  }
}

TEST(seed_001, case2_before_one_interrupt_per_frame_on_cpu0_and_per_ack_on_cpu1) {
  const RunReport& r = run_shipped("001-case2-before.toml");
  // Predictions: per-packet Rx interrupts (one per frame) and per-packet Tx interrupts for the
  // ACKs, one per two full segments, on the ring of the other vector.
  // Within 30 % is the band for a prediction; the model lands within 5 %, pinned here.
  expect_within(kirq(r, 0), 85, 0.06, "case 2 before, CPU0 k intr/s");
  expect_within(kirq(r, 1), 42, 0.06, "case 2 before, CPU1 k intr/s");
  EXPECT_NEAR(kirq(r, 1) / kirq(r, 0), 0.5, 0.01);  // the delayed-ACK rule: every second segment
  // The fitted row: 60-70 % in the seed.
  EXPECT_GT(cpu_percent(r), 60);
  EXPECT_LT(cpu_percent(r), 70);
}

TEST(seed_001, case1_before_one_interrupt_per_frame_and_a_cpu_finding) {
  const RunReport& r = run_shipped("001-case1-before.toml");
  EXPECT_EQ(r.cores.at(1).device_irqs, 0u);  // one vector, one CPU
  // The seed's 92k is about 81k frames + 11k of the 41k ACK completions. In the model every ACK
  // completion (1.7 us after the poll that sent it) finds the vector masked by the next frame's
  // interrupt (1.5 us after that poll), so the next poll cleans it and enetc's IDR write takes
  // its cause away: one interrupt per frame, 12 % below the seed, inside the 30 % band.
  expect_within(kirq(r, 0), 92, 0.3, "case 1 before, k intr/s");
  EXPECT_NEAR(kirq(r, 0) / kLineRateKpps, 1.0, 0.01);
  // A finding: the CPU is 74 % where the seed has 50-60 % (CPU0 ~78 %, netperf on CPU1 ~70 %).
  EXPECT_GT(cpu_percent(r), 60 * 1.2);
}

TEST(seed_001, case1_dim_cuts_interrupts_and_cpu_further_than_the_seed_did) {
  const RunReport& before = run_shipped("001-case1-before.toml");
  const RunReport& dim = run_shipped("001-case1-dim.toml");
  // The direction of both changes holds.
  EXPECT_LT(kirq_total(dim), kirq_total(before));
  EXPECT_LT(cpu_percent(dim), cpu_percent(before));
  // The ratios do not: seed 35 / 92 = 0.38 and about 48 / 55 = 0.87; the model 0.25 and 0.37.
  // A finding (docs/seeds.md): Tx net_dim parks on 32 us, and every interrupt is that Tx timer
  // (below), where the board kept 35k/s.
  EXPECT_LT(kirq_total(dim) / kirq_total(before), 0.38 * 0.7);
  EXPECT_LT(cpu_percent(dim) / cpu_percent(before), 0.87 * 0.7);
}

TEST(seed_001, case1_dim_rate_is_the_tx_timer_of_the_ack_completion) {
  // Every poll cleans the frames that came since the last and sends one ACK; its completion,
  // 32 us later (Tx net_dim's profile 2), is the next interrupt, and that poll's IDR writes
  // take the Rx timer (64-128 us) away before it expires: one interrupt per poll + 1.7 us + 32
  // us. The same pair fixed gives the same rate; a 16 us Tx timer (no net_dim profile: 8, 32)
  // would give the seed's ~35k.
  const RunReport& dim = run_shipped("001-case1-dim.toml");
  const std::vector<std::string> fixed = {"nic.tx-moderation=coalesce", "nic.tx-frames=128"};
  std::vector<std::string> at32 = fixed;
  at32.push_back("nic.tx-usecs=32");
  std::vector<std::string> at16 = fixed;
  at16.push_back("nic.tx-usecs=16");
  EXPECT_NEAR(kirq_total(run_shipped("001-case1-dim.toml", at32)), kirq_total(dim),
              0.05 * kirq_total(dim));
  expect_within(kirq_total(run_shipped("001-case1-dim.toml", at16)), 35, 0.1,
                "case 1, Rx DIM and a 16 us Tx timer, k intr/s");
}

TEST(seed_001, case2_dim_takes_both_cpus_to_a_few_thousand_interrupts) {
  const RunReport& before = run_shipped("001-case2-before.toml");
  const RunReport& dim = run_shipped("001-case2-dim.toml");
  // Predictions. At 8 us the poll's clean loop reaches its second descriptor 4.8 us after the
  // interrupt, after the next frame (4.3 us): two frames per interrupt, fewer events, net_dim
  // goes on to 256 us (~21 frames, one GRO skb and one ACK per poll); Tx net_dim gives each of
  // those ACKs its own interrupt on CPU1.
  expect_within(kirq(dim, 0), 3.5, 0.3, "case 2 DIM, CPU0 k intr/s");
  expect_within(kirq(dim, 1), 3.5, 0.3, "case 2 DIM, CPU1 k intr/s");
  // The reduction and the CPU change, against the seed's (3.5 + 3.5) / (85 + 42) and 15 / 65.
  expect_within(kirq_total(dim) / kirq_total(before), 7.0 / 127, 0.3, "interrupt ratio");
  expect_within(cpu_percent(dim) / cpu_percent(before), 15.0 / 65, 0.3, "CPU ratio");
}

TEST(seed_001, case2_dim_needs_the_clean_loop_and_the_cleared_causes) {
  // Each of the two driver facts alone leaves net_dim on its first profiles: with the poll
  // taking only what was there when it began, no 8 us interrupt finds two frames; with causes
  // kept, a frame cleaned in the loop interrupts again at re-enable.
  for (const char* set : {"nic.rx-clean=at-poll-start", "nic.clean-clears-cause=false"}) {
    const RunReport& r = run_shipped("001-case2-dim.toml", {set});
    EXPECT_GT(kirq(r, 0), 70) << set;
  }
}

TEST(seed_001, link_speed_tx_coalescing_takes_the_ack_interrupts_off_cpu1) {
  const RunReport& dim = run_shipped("001-case2-dim.toml");
  const RunReport& link = run_shipped("001-case2-link-speed.toml");
  // Tx DIM's profiles (at most 128 us) still interrupt for every ACK (one per Rx poll, ~286 us
  // apart); the link-speed pair (~1.5 ms) waits for several. Rx is the same net_dim in both.
  EXPECT_LT(kirq(link, 1), 0.25 * kirq(dim, 1));
  EXPECT_NEAR(kirq(link, 0), kirq(dim, 0), 0.02 * kirq(dim, 0));
}

TEST(seed_001, the_ack_ring_decides_which_cpu_takes_the_tx_interrupts) {
  // Case 1 and case 2 differ only in the ring the socket's hash picks: even -> vector 0, odd ->
  // vector 1 (enetc_alloc_msix's ring-to-vector map).
  const RunReport& even = run_shipped("001-case2-before.toml", {"traffic.tx-queue=2"});
  EXPECT_EQ(even.cores.at(1).device_irqs, 0u);
  const RunReport& odd = run_shipped("001-case1-before.toml", {"traffic.tx-queue=3"});
  EXPECT_GT(odd.cores.at(1).device_irqs, 0u);
}

}  // namespace
}  // namespace irqmod::sim
