// A router (seed 004's shape): frames in on port 0, routed out of port 1 in the poll that took
// them. The keys nic.ports, traffic.forward and cpu.forward, the egress port's Tx queues and
// completion vectors, its drops, and the books.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

// Round-number costs (ns), only for these tests.
std::string router(const std::string& extra = "") {
  return R"(
[scenario]
duration = "20ms"
[traffic]
kind = "constant"
rate = 200000
size = 64
forward = true
[nic]
ports = 2
tx-interrupts = true
moderation = "coalesce"
rx-usecs = 50
[cpu]
irq-entry = 1000
irq-handler = 300
napi-poll = 500
rx-packet = 700
tx-clean = 100
forward = 800
)" + extra;
}

Scenario load(const std::string& text, std::vector<std::string> sets = {}) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

std::string load_error(const std::string& text) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, {}));
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().what();
}

RunReport run(const Scenario& s) {
  auto r = simulate(s, RunOptions{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

TEST(router, every_frame_leaves_by_port_1_and_none_reaches_a_socket) {
  const RunReport r = run(load(router()));
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_EQ(r.drops.total(), 0u);
  ASSERT_EQ(r.egress_queues.size(), 1u);
  EXPECT_EQ(r.egress_queues[0].tx_frames, r.delivered_packets);
  EXPECT_GT(r.delivered_packets, 3900u);  // 200 kpps for 20 ms, less the frames still inside
  ASSERT_EQ(r.queues.size(), 1u);
  EXPECT_EQ(r.queues[0].tx_frames, 0u);  // port 0 sends nothing back
  // Port 1's completions raise a vector of their own, after port 0's.
  EXPECT_EQ(r.egress_queues[0].tx_vector, std::optional<std::uint32_t>(1));
  EXPECT_GT(r.interrupts.count_of(1), 0u);
  // The latency through the box: the wait for the interrupt (ITR 50 us) at most, plus the work.
  EXPECT_GT(r.latency.mean(), 1'000.0);
  EXPECT_LT(r.latency.max(), 200'000);
}

TEST(router, the_route_lookup_is_charged_per_forwarded_frame) {
  const RunReport with = run(load(router()));
  const RunReport without = run(load(router(), {"cpu.forward=0"}));
  const double extra = static_cast<double>(
      (with.cpu.busy(0, ContextKind::softirq) - without.cpu.busy(0, ContextKind::softirq)).count());
  const double expected = 800.0 * static_cast<double>(with.delivered_packets);
  EXPECT_GT(extra, 0.9 * expected);
  EXPECT_LT(extra, 1.1 * expected);
}

TEST(router, without_tx_interrupts_port_1_has_no_vectors) {
  const RunReport r = run(load(router(), {"nic.tx-interrupts=false"}));
  EXPECT_EQ(r.interrupts.vectors(), 1u);
  ASSERT_EQ(r.egress_queues.size(), 1u);
  EXPECT_FALSE(r.egress_queues[0].tx_vector.has_value());
  EXPECT_EQ(r.egress_queues[0].tx_frames, r.delivered_packets);
}

TEST(router, a_full_egress_ring_and_qdisc_drop_as_egress_queue_full) {
  // Completions cleaned only every 2 ms: a 64-descriptor ring with a 16-frame qdisc overflows.
  const RunReport r = run(load(
      router(), {"nic.tx-ring=64", "nic.tx-queue-len=16", "nic.tx-usecs=2000", "nic.tx-frames=0"}));
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_GT(r.drops.count(DropReason::egress_queue_full), 0u);
  EXPECT_EQ(r.drops.count(DropReason::qdisc_full), 0u);
  EXPECT_EQ(r.egress_queues[0].dropped, r.drops.count(DropReason::egress_queue_full));
}

TEST(router, queues_are_per_port_and_xps_picks_the_cleaning_cores_queue) {
  const RunReport r =
      run(load(router(), {"nic.queues=2", "cpu.cores=2", "cpu.irq-cores=0-1", "traffic.flows=8"}));
  ASSERT_EQ(r.egress_queues.size(), 2u);
  // Vector q of port 0 interrupts core q and its poll sends on port 1's queue q.
  for (std::size_t q = 0; q < 2; ++q) {
    EXPECT_EQ(r.egress_queues[q].tx_frames, r.queues[q].rx_cleaned) << q;
  }
  EXPECT_EQ(r.egress_queues[0].tx_vector, std::optional<std::uint32_t>(2));
  EXPECT_EQ(r.egress_queues[1].tx_vector, std::optional<std::uint32_t>(3));
}

TEST(router, the_keys_are_checked_together) {
  EXPECT_EQ(load_error("[traffic]\nforward = true\n"),
            "test.toml:2: traffic.forward: a forwarded flow leaves by port 1; allowed: true with "
            "nic.ports = 2");
  EXPECT_EQ(
      load_error("[nic]\nports = 2\n"),
      "test.toml:2: nic.ports: port 1 only carries forwarded frames and no flow is forwarded; "
      "allowed: 1, or traffic.forward = true on a flow");
  EXPECT_EQ(load_error("[nic]\nports = 2\n[traffic]\nkind = \"ping-pong\"\nforward = true\n"),
            "test.toml:5: traffic.forward: traffic.kind = \"ping-pong\" expects the host to "
            "answer, not to route its "
            "frames; allowed: a one-way load");
  EXPECT_NE(load_error("[nic]\nports = 3\n").find("nic.ports"), std::string::npos);
}

}  // namespace
}  // namespace irqmod::sim
