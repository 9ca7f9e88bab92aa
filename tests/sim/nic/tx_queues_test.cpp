// Tx queues beyond the queue pairs (nic.tx-queues: enetc's 8 Tx rings on 2 vectors), XPS on or
// off (nic.xps), and a flow pinned to a Tx queue (traffic.tx-steering = "queue").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

// Open-loop requests answered by the application on core 0; Rx on queue 0 (vector 0, core 0).
std::string answered(const std::string& extra = "") {
  return R"(
[scenario]
duration = "10ms"
[traffic]
kind = "request-response"
rate = 50000
msg-size = 64
flows = 16
steering = "queue"
queue = 0
[nic]
queues = 2
tx-queues = 8
tx-interrupts = true
rx-usecs = 0
rx-frames = 1
[cpu]
cores = 2
irq-cores = "0-1"
app-core = 0
irq-entry = 1000
irq-handler = 300
napi-poll = 500
rx-packet = 700
tx-packet = 800
tx-clean = 100
app-message = 200
syscall = 150
wakeup = 2000
context-switch = 1500
)" + extra;
}

Scenario load(const std::string& text, std::vector<std::string> sets = {}) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

std::string load_error(const std::string& text, const std::vector<std::string>& sets) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().what();
}

RunReport run(const Scenario& s) {
  auto r = simulate(s, RunOptions{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

std::uint64_t sent(const RunReport& r, std::size_t queue) {
  return queue < r.queues.size() ? r.queues[queue].tx_frames
                                 : r.tx_only_queues[queue - r.queues.size()].tx_frames;
}

TEST(tx_queues, queues_beyond_the_pairs_share_vector_t_mod_pairs) {
  const RunReport r = run(load(answered()));
  ASSERT_EQ(r.queues.size(), 2u);
  ASSERT_EQ(r.tx_only_queues.size(), 6u);
  for (std::size_t t = 0; t < 6; ++t)
    EXPECT_EQ(r.tx_only_queues[t].tx_vector, std::optional<std::uint32_t>((t + 2) % 2)) << t;
  // XPS: the answers leave by the sending core's queue, 0.
  std::uint64_t all = 0;
  for (std::size_t q = 0; q < 8; ++q)
    all += sent(r, q);
  EXPECT_GT(all, 400u);
  EXPECT_EQ(sent(r, 0), all);
}

TEST(tx_queues, a_pinned_flow_leaves_by_its_queue_and_interrupts_that_queues_vector) {
  const RunReport r = run(load(answered(), {"traffic.tx-steering=queue", "traffic.tx-queue=5"}));
  std::uint64_t all = 0;
  for (std::size_t q = 0; q < 8; ++q)
    all += sent(r, q);
  EXPECT_GT(all, 400u);
  EXPECT_EQ(sent(r, 5), all);
  // Queue 5 is vector 1's (5 mod 2), on core 1: seed 001's case 2, Rx on CPU0 and Tx on CPU1.
  EXPECT_GT(r.interrupts.count_of(1), 100u);
  EXPECT_GT(r.cores[1].device_irqs, 100u);
  // Pinned to queue 4 instead (vector 0): core 1 takes no interrupt (case 1).
  const RunReport even = run(load(answered(), {"traffic.tx-steering=queue", "traffic.tx-queue=4"}));
  EXPECT_EQ(even.interrupts.count_of(1), 0u);
  EXPECT_EQ(sent(even, 4), all);
}

TEST(tx_queues, without_xps_the_flows_hash_spreads_them_over_the_queues) {
  const RunReport r = run(load(answered(), {"nic.xps=false"}));
  int used = 0;
  std::uint64_t all = 0;
  for (std::size_t q = 0; q < 8; ++q) {
    used += sent(r, q) > 0 ? 1 : 0;
    all += sent(r, q);
  }
  EXPECT_GE(used, 4);  // 16 flows hashed over 8 queues
  EXPECT_GT(all, 400u);
  EXPECT_LT(sent(r, 0), all);
  EXPECT_TRUE(r.conservation.ok());
}

TEST(tx_queues, the_keys_are_checked) {
  EXPECT_EQ(load_error(answered(), {"nic.tx-queues=1"}),
            "test.toml:13: nic.tx-queues: 1 is fewer than the queue pairs; allowed: 0 (one per "
            "pair) or 2 to 256 (nic.queues = 2)");
  EXPECT_EQ(load_error(answered(), {"nic.vectors=separate"}),
            "test.toml:13: nic.tx-queues: Tx queues beyond the pairs share their pair's vector; "
            "allowed: 0 with nic.vectors = \"separate\"");
  EXPECT_EQ(load_error(answered(), {"traffic.tx-steering=queue", "traffic.tx-queue=8"}),
            "test.toml: traffic.tx-queue: 8 is not a Tx queue; allowed: 0 to 7");
}

}  // namespace
}  // namespace irqmod::sim
