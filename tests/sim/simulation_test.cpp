// Tests of whole simulation runs: determinism, conservation, and the orderings the model must
// show (coalescing trades latency for interrupts, busy polling beats interrupts on latency, a
// small ring drops at line rate, the timeline has slices on each busy core). Costs are given
// in each scenario so that the tests do not depend on a platform preset.
#include "irqmod/sim/simulation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/trace.hpp"

namespace irqmod::sim {
namespace {

// A cost model of round numbers (ns), only for these tests.
constexpr const char* kCosts = R"(
[cpu]
irq-entry = 1000
irq-handler = 300
napi-poll = 500
rx-packet = 700
tx-packet = 800
app-message = 200
syscall = 150
wakeup = 2000
context-switch = 1500
busy-poll-iteration = 200
)";

std::string ping_pong(const std::string& nic, const std::string& napi = "") {
  return std::string(R"(
[scenario]
duration = "20ms"
[traffic]
kind = "ping-pong"
msg-size = 64
[nic]
)") + nic +
         "\n[napi]\n" + napi + "\n" + kCosts;
}

Scenario load(const std::string& text, std::vector<std::string> sets = {}) {
  LoadResult r = load_scenario_text(text, "test.toml", sets);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

RunReport run(const Scenario& s, TraceWriter* trace = nullptr) {
  RunOptions options;
  options.trace = trace;
  auto r = simulate(s, options);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

std::string json_of(const RunReport& r) {
  std::ostringstream out;
  write_json(out, r);
  return out.str();
}

TEST(simulation, the_same_scenario_and_seed_give_byte_identical_json) {
  const Scenario s = load(std::string(R"(
[scenario]
duration = "20ms"
seed = 7
[traffic]
kind = "poisson"
rate = 300000
[nic]
moderation = "dim"
)") + kCosts);
  EXPECT_EQ(json_of(run(s)), json_of(run(s)));
  Scenario other = s;
  other.scenario.seed = 8;
  EXPECT_NE(json_of(run(s)), json_of(run(other)));  // the seed matters
}

TEST(simulation, every_moderation_kind_conserves_packets) {
  for (const char* moderation : {"none", "coalesce", "itr", "dim", "adaptive-itr", "lli"}) {
    std::string nic = std::string("moderation = \"") + moderation + "\"\n";
    if (std::string(moderation) == "none") nic += "rx-usecs = 0\nrx-frames = 1\n";
    if (std::string(moderation) == "adaptive-itr") nic += "adaptive-rx = true\n";
    const RunReport r = run(load(ping_pong(nic)));
    EXPECT_TRUE(r.conservation.ok()) << moderation;
    EXPECT_GT(r.latency.count(), 100U) << moderation;
    EXPECT_EQ(r.drops.total(), 0U) << moderation;
  }
}

TEST(simulation, coalescing_trades_latency_for_fewer_interrupts) {
  const RunReport immediate = run(load(ping_pong("rx-usecs = 0\nrx-frames = 1\n")));
  const RunReport coalesced = run(load(ping_pong("rx-usecs = 50\n")));
  // One message in flight: every interrupt waits the full 50 us.
  EXPECT_GT(coalesced.latency.percentile(50'000), immediate.latency.percentile(50'000) + 20'000);
  EXPECT_GT(immediate.interrupts.total(), 5 * coalesced.interrupts.total());
}

TEST(simulation, busy_polling_answers_faster_than_interrupts_and_spins_the_core) {
  const RunReport interrupts = run(load(ping_pong("rx-usecs = 0\nrx-frames = 1\n")));
  const RunReport busy = run(load(ping_pong("rx-usecs = 0\nrx-frames = 1\n", "busy_read = 50")));
  EXPECT_LT(busy.latency.percentile(50'000), interrupts.latency.percentile(50'000));
  EXPECT_GT(busy.cpu.busy(0, ContextKind::busy_poll), Duration::zero());
  EXPECT_EQ(interrupts.cpu.busy(0, ContextKind::busy_poll), Duration::zero());
  EXPECT_GT(busy.latency.count(), interrupts.latency.count());  // more round trips in 20 ms
}

TEST(simulation, mps_paces_the_client) {
  const RunReport r = run(load(ping_pong("rx-usecs = 0\nrx-frames = 1\n"), {"traffic.mps=1000"}));
  EXPECT_GE(r.latency.count(), 19U);
  EXPECT_LE(r.latency.count(), 21U);  // 20 ms at 1000 messages/s
}

TEST(simulation, a_small_ring_drops_at_line_rate_and_counts_why) {
  const Scenario s = load(std::string(R"(
[scenario]
duration = "2ms"
[traffic]
kind = "constant"
[nic]
rx-ring = 64
rx-usecs = 50
)") + kCosts);
  const RunReport r = run(s);
  EXPECT_GT(r.drops.count(DropReason::rx_ring_full), 0U);
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_EQ(r.conservation.entered, 29'762U);  // 2 ms of 64 B frames at 10 Gbit/s
}

TEST(simulation, a_slow_refill_drops_for_want_of_buffers) {
  const Scenario s = load(std::string(R"(
[scenario]
duration = "2ms"
[traffic]
kind = "constant"
rate = 2000000
[nic]
rx-ring = 128
refill-delay = "100us"
rx-usecs = 10
)") + kCosts,
                          {"cpu.rx-packet=10", "cpu.cores=2", "cpu.app-core=1"});
  const RunReport r = run(s);
  EXPECT_GT(r.drops.count(DropReason::rx_no_buffer), 0U);
  EXPECT_TRUE(r.conservation.ok());
}

TEST(simulation, the_timeline_is_trace_event_json_with_slices_on_each_busy_core) {
  const Scenario s =
      load(ping_pong("rx-usecs = 0\nrx-frames = 1\n"), {"cpu.cores=2", "cpu.app-core=1"});
  std::ostringstream out;
  {
    TraceWriter trace(out);
    run(s, &trace);
  }
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::set<int> cores_with_slices;
  int interrupts = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 1) cores_with_slices.insert(e["tid"].get<int>());
    if (e["ph"] == "i" && e["cat"] == "interrupt") ++interrupts;
  }
  EXPECT_EQ(cores_with_slices, (std::set<int>{0, 1}));
  EXPECT_GT(interrupts, 0);
}

TEST(simulation, the_shipped_pingpong_scenario_traces_to_valid_json_with_slices_on_its_core) {
  const std::string file = std::string(IRQMOD_SCENARIO_DIR) + "/basics/pingpong-udp.toml";
  const std::string overrides[] = {"scenario.duration=2ms"};
  LoadResult loaded = load_scenario_file(file, overrides);
  ASSERT_TRUE(loaded.ok()) << loaded.error().what();
  std::ostringstream out;
  {
    TraceWriter trace(out);
    run(loaded.value(), &trace);
  }
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  std::set<std::string> kinds;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 1 && e["tid"] == 0)
      kinds.insert(e["name"].get<std::string>());
  }
  EXPECT_TRUE(kinds.count("hardirq"));
  EXPECT_TRUE(kinds.count("softirq NET_RX"));
  EXPECT_TRUE(kinds.count("application"));
  EXPECT_TRUE(kinds.count("idle"));
  // A core runs one thing at a time: its slices never overlap, and they cover the run.
  std::vector<std::pair<double, double>> spans;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 1 && e["tid"] == 0) {
      spans.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    }
  }
  std::sort(spans.begin(), spans.end());
  double covered = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(spans[i - 1].second, spans[i].first + 1e-3) << "slice " << i;
    }
    covered += spans[i].second - spans[i].first;
  }
  EXPECT_NEAR(covered, 2000.0, 1e-2);  // 2 ms in the trace's microseconds
}

TEST(simulation, busy_polling_without_its_iteration_cost_is_refused_by_name) {
  Scenario s = load(ping_pong("rx-usecs = 0\nrx-frames = 1\n", "busy_read = 50"));
  s.cpu.busy_poll_iteration = Duration::zero();
  auto r = simulate(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().key, "cpu.busy-poll-iteration");
}

TEST(simulation, tx_coalescing_keys_that_would_do_nothing_are_refused_by_name) {
  auto r = simulate(load(ping_pong("rx-usecs = 50\ntx-usecs = 8\n")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().key, "nic.tx-usecs");
  EXPECT_TRUE(simulate(load(ping_pong("moderation = \"adaptive-itr\"\nadaptive-rx = true\n"
                                      "tx-usecs = 8\n")))
                  .ok());
}

TEST(simulation, a_full_tx_ring_drops_replies_and_counts_them_as_unanswered) {
  // 1 ms of coalescing batches about a dozen requests; their replies, sent at once, queue for a
  // 100 Mbit/s wire (85 us per 1046-byte frame) behind a 4-descriptor Tx ring.
  const Scenario s = load(std::string(R"(
[scenario]
duration = "20ms"
[link]
speed = "100M"
[traffic]
kind = "request-response"
rate = 100000
msg-size = 1000
[nic]
rx-usecs = 1000
tx-ring = 4
)") + kCosts,
                          {"cpu.cores=2", "cpu.app-core=1"});
  const RunReport r = run(s);
  EXPECT_GT(r.drops.count(DropReason::tx_ring_full), 0U);
  EXPECT_EQ(r.sockperf.dropped, r.drops.count(DropReason::tx_ring_full));
  EXPECT_TRUE(r.conservation.ok());
}

TEST(simulation, more_than_one_queue_is_refused_by_name) {
  Scenario s = load(ping_pong("rx-usecs = 50\n"));
  s.nic.queues = 2;
  auto r = simulate(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().key, "nic.queues");
}

}  // namespace
}  // namespace irqmod::sim
