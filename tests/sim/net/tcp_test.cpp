// The TCP model in whole runs: a bulk stream the host receives (netperf TCP_MAERTS), GRO in the
// poll, the receiver's ACKs on the host's Tx path, the far sender clocked by them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

// 1 Gbit/s, one connection, per-packet interrupts (enetc before seed 001's patch), round costs.
std::string maerts(const std::string& extra = "") {
  return R"(
[scenario]
duration = "50ms"
[link]
speed = "1G"
[traffic]
kind = "tcp-maerts"
[nic]
rx-usecs = 0
rx-frames = 1
tx-interrupts = true
tx-usecs = 0
tx-frames = 1
[cpu]
irq-entry = 1000
irq-handler = 200
napi-poll = 500
rx-packet = 500
tcp-skb = 1000
tx-packet = 1000
tx-clean = 200
app-message = 500
syscall = 200
copy-kb = 300
wakeup = 2000
context-switch = 2000
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

std::uint64_t acks(const RunReport& r) {
  std::uint64_t n = 0;
  for (const QueueCounters& q : r.queues)
    n += q.tx_frames;
  for (const EgressQueueCounters& q : r.tx_only_queues)
    n += q.tx_frames;
  return n;
}

// 1518-byte frames take 1538 bytes of wire: 81 274 frames/s at 1 Gbit/s.
constexpr double kLineRate = 1e9 / (1538 * 8);

TEST(tcp, a_bulk_stream_fills_the_link_and_is_acked_every_second_segment) {
  const RunReport r = run(load(maerts()));
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_EQ(r.drops.total(), 0u);
  const double seconds = 0.05;
  EXPECT_NEAR(static_cast<double>(r.delivered_packets) / seconds, kLineRate, 0.01 * kLineRate);
  // One skb per poll of one frame: an ACK every second segment, after 16 quick-ACKs.
  const double segments = static_cast<double>(r.conservation.entered);
  EXPECT_NEAR(static_cast<double>(acks(r)), 8 + segments / 2, 2);
  // Per-packet interrupts on one vector: one per data frame and one per ACK's completion, or
  // fewer where a completion is cleaned by a poll a frame started.
  EXPECT_GT(r.interrupts.total(), r.conservation.entered);
  EXPECT_LE(r.interrupts.total(), r.conservation.entered + acks(r));
}

TEST(tcp, coalescing_lets_gro_merge_a_polls_frames_into_one_skb_and_one_ack) {
  const RunReport r = run(load(maerts(), {"nic.rx-usecs=100", "nic.rx-frames=0"}));
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_NEAR(static_cast<double>(r.delivered_packets) / 0.05, kLineRate, 0.02 * kLineRate);
  // ~8 frames per 100 us: one ACK per poll, far fewer than one per two segments.
  EXPECT_LT(acks(r), r.conservation.entered / 5);
  EXPECT_GT(acks(r), r.conservation.entered / 20);
}

TEST(tcp, a_one_segment_window_waits_for_the_delayed_ack_timer) {
  // Past the 16 quick-ACKs, each lone segment is acknowledged only when the 40 ms timer fires.
  const RunReport r = run(load(maerts(), {"traffic.window=1448", "scenario.duration=200ms"}));
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_EQ(r.delivered_packets, 16u + 1u + 4u);  // 16 quick, then one per 40 ms (at 0 s .. 0.2 s)
  // The default window keeps the link full.
  EXPECT_GT(run(load(maerts())).delivered_packets, 4000u);
}

TEST(tcp, the_stack_and_copy_costs_are_charged_per_skb_and_per_kib) {
  const RunReport base = run(load(maerts()));
  const RunReport stack = run(load(maerts(), {"cpu.tcp-skb=2000"}));
  // Per-packet polls: one skb per segment; 1000 ns more per skb in softirq.
  const double extra = static_cast<double>(
      (stack.cpu.busy(0, ContextKind::softirq) - base.cpu.busy(0, ContextKind::softirq)).count());
  EXPECT_NEAR(extra, 1000.0 * static_cast<double>(stack.conservation.entered),
              0.05 * 1000.0 * static_cast<double>(stack.conservation.entered));
  const RunReport copy = run(load(maerts(), {"cpu.copy-kb=600"}));
  EXPECT_GT(copy.cpu.busy(0, ContextKind::thread), base.cpu.busy(0, ContextKind::thread));
}

TEST(tcp, acks_pinned_to_another_vectors_queue_interrupt_the_other_core) {
  // Seed 001's case 2: data on Rx queue 0 (core 0), ACKs on Tx queue 1 of 8 (vector 1, core 1).
  const std::vector<std::string> two_cores{"nic.queues=2",
                                           "nic.tx-queues=8",
                                           "nic.xps=false",
                                           "cpu.cores=2",
                                           "cpu.irq-cores=0-1",
                                           "traffic.steering=queue",
                                           "traffic.tx-steering=queue",
                                           "traffic.tx-queue=1"};
  const RunReport r = run(load(maerts(), two_cores));
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_NEAR(static_cast<double>(r.interrupts.count_of(0)),
              static_cast<double>(r.conservation.entered), 20);
  EXPECT_NEAR(static_cast<double>(r.interrupts.count_of(1)), static_cast<double>(acks(r)), 20);
  EXPECT_GT(r.cpu.busy(1), Duration::zero());
}

TEST(tcp, segments_the_host_drops_are_sent_again) {
  // A 16-descriptor ring behind a 100 us coalescing timer overflows; the flow goes on.
  const RunReport r =
      run(load(maerts(), {"nic.rx-ring=16", "nic.rx-usecs=300", "nic.rx-frames=0"}));
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_GT(r.drops.count(DropReason::rx_ring_full), 100u);
  EXPECT_GT(r.delivered_packets, 500u);
}

TEST(tcp, its_keys_are_checked) {
  EXPECT_EQ(load_error(maerts(), {"traffic.rate=1000"}),
            "test.toml: traffic.rate: traffic.kind = \"tcp-maerts\" sends a segment whenever its "
            "window allows, of traffic.mss bytes plus 70 of headers; allowed: the default");
  EXPECT_NE(load_error(maerts(), {"traffic.size=1518"}).find("traffic.size"), std::string::npos);
  EXPECT_EQ(load_error(maerts(), {"traffic.mss=8948", "traffic.window=4000"}),
            "test.toml: traffic.window: 4000 bytes is less than one segment; allowed: 8948 "
            "(traffic.mss) or more");
  EXPECT_EQ(load_error(maerts(), {"traffic.kind=constant", "traffic.mss=8948"}),
            "test.toml: traffic.mss: only a TCP flow has segments and a window; allowed: the "
            "default, or traffic.kind = \"tcp-maerts\" or \"tcp-stream\"");
}

}  // namespace
}  // namespace irqmod::sim
