// The host as a TCP sender (netperf TCP_STREAM) and ping, in whole runs: the sender clocked by the
// peer's ACKs through the host's Rx ring, its GSO skbs and their cost, the send buffer and
// netperf's send size, the echo answered in the softirq and its round trip, the books.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

// 1 Gbit/s, one connection the host sends on, ACKs on Rx queue 0 and data on Tx queue 1 of two
// queue pairs (vector 1), the writer on core 1; round costs.
std::string stream(const std::string& extra = "") {
  return R"(
[scenario]
duration = "60ms"
warmup = "10ms"
[link]
speed = "1G"
[nic]
queues = 2
tx-interrupts = true
[cpu]
cores = 2
irq-cores = "0-1"
app-core = 1
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
gso-segment = 700
)" + extra;
}
const std::string kStreamFlow = R"(
[traffic]
kind = "tcp-stream"
steering = "queue"
queue = 0
tx-steering = "queue"
tx-queue = 1
)";

Scenario load(const std::string& text, std::vector<std::string> sets = {}) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.ok() ? r.value() : default_scenario();
}

std::string load_error(const std::string& text, const std::vector<std::string>& sets) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().what();
}

RunReport run(const Scenario& s) {
  auto r = simulate(s, RunOptions{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  if (!r.ok()) return RunReport();
  EXPECT_TRUE(r.value().conservation.ok());
  return r.value();
}

double seconds(const RunReport& r) {
  return static_cast<double>(r.sim_time.count()) / 1e9;
}
double out_mbps(const RunReport& r) {
  return r.tcp ? static_cast<double>(r.tcp->sent_bytes) * 8 / 1e6 / seconds(r) : 0;
}
double busy_ms(const RunReport& r) {
  Duration busy{};
  for (std::size_t c = 0; c < r.cpu.cores(); ++c)
    busy += r.cpu.busy(c);
  return static_cast<double>(busy.count()) / 1e6;
}

// 1448 B of 1538 B on the wire at 1 Gbit/s.
constexpr double kGoodputMbps = 941.5;

TEST(tcp_stream, runs_at_line_rate_clocked_by_the_peers_acks) {
  const RunReport r = run(load(stream(kStreamFlow)));
  ASSERT_TRUE(r.tcp);
  EXPECT_NEAR(out_mbps(r), kGoodputMbps, 0.01 * kGoodputMbps);
  EXPECT_EQ(r.tcp->received_bytes, 0u);
  EXPECT_EQ(r.drops.total(), 0u);
  // The peer acknowledges every second segment, and each ACK is a frame on the host's Rx ring 0.
  const double segments = static_cast<double>(r.queues.at(1).tx_frames);
  const double acks = static_cast<double>(r.queues.at(0).rx_frames);
  EXPECT_GT(acks, 0.48 * segments);
  EXPECT_LT(acks, 0.52 * segments);
  EXPECT_EQ(r.queues.at(0).tx_frames, 0u);  // the data leaves by the pinned queue only
}

TEST(tcp_stream, a_small_window_limits_the_sender) {
  const double two = out_mbps(run(load(stream(kStreamFlow), {"traffic.window=2896"})));
  const double four = out_mbps(run(load(stream(kStreamFlow), {"traffic.window=5792"})));
  const double full = out_mbps(run(load(stream(kStreamFlow))));
  // Two segments per round trip: the round trip (both frames on the wire, the ACK, its
  // interrupt, poll and transmission) is longer than the two frames' wire time.
  EXPECT_LT(two, 0.9 * kGoodputMbps);
  EXPECT_GT(two, 0.2 * kGoodputMbps);
  EXPECT_GT(four, 1.2 * two);
  EXPECT_GT(full, four);
}

TEST(tcp_stream, software_gso_is_charged_per_segment) {
  const RunReport free = run(load(stream(kStreamFlow), {"cpu.gso-segment=0"}));
  const RunReport paid = run(load(stream(kStreamFlow), {"cpu.gso-segment=2us"}));
  EXPECT_NEAR(out_mbps(free), out_mbps(paid), 0.01 * kGoodputMbps);
  // Every segment of a GSO skb of two or more costs 2 us more; tcp_tso_should_defer makes nearly
  // all skbs a third of the window (15 segments).
  const double segments = static_cast<double>(paid.queues.at(1).tx_frames);
  const double extra_ms = busy_ms(paid) - busy_ms(free);
  EXPECT_GT(extra_ms, 0.9 * segments * 2e-3);
  EXPECT_LT(extra_ms, 1.02 * segments * 2e-3);
  // It is softirq time on the core that took the ACKs (core 0).
  EXPECT_GT(paid.cpu.busy(0, ContextKind::softirq), free.cpu.busy(0, ContextKind::softirq));
}

TEST(tcp_stream, the_send_buffer_bounds_what_is_in_flight) {
  const double full = out_mbps(run(load(stream(kStreamFlow))));
  const double small = out_mbps(run(load(stream(kStreamFlow), {"traffic.send-buffer=4344"})));
  EXPECT_LT(small, 0.9 * full);
  EXPECT_GT(small, 0);
}

TEST(tcp_stream, each_send_call_is_pushed_when_it_ends_whatever_the_buffer) {
  // tcp_sendmsg pushes at the end of every call: a 256 MiB send buffer changes nothing about
  // when the first segments leave (a writer that filled the buffer first would send nothing for
  // ~60 ms here).
  const Scenario big = load(stream(kStreamFlow), {"traffic.send-buffer=268435456",
                                                  "scenario.warmup=0ms", "scenario.duration=2ms"});
  const Scenario normal =
      load(stream(kStreamFlow), {"scenario.warmup=0ms", "scenario.duration=2ms"});
  const double big_mbps = out_mbps(run(big));
  EXPECT_GT(big_mbps, 0.5 * kGoodputMbps);
  EXPECT_NEAR(big_mbps, out_mbps(run(normal)), 0.05 * kGoodputMbps);
}

TEST(tcp_stream, netperfs_send_size_sets_the_calls_the_writer_makes) {
  const RunReport small = run(load(stream(kStreamFlow), {"traffic.send-size=1448"}));
  const RunReport large = run(load(stream(kStreamFlow), {"traffic.send-size=65536"}));
  EXPECT_NEAR(out_mbps(small), out_mbps(large), 0.01 * kGoodputMbps);
  // syscall + app-message per call: 81k calls/s of 0.7 us more than ~2k.
  EXPECT_GT(small.cpu.busy(1, ContextKind::thread), large.cpu.busy(1, ContextKind::thread) * 1.3);
}

TEST(tcp_stream, runs_both_ways_with_a_ping_and_keeps_its_books) {
  const RunReport r = run(load(stream(R"(
[traffic]
kind = "ping"
rate = 1000
size = 102
steering = "queue"
[[flow]]
kind = "tcp-maerts"
steering = "queue"
tx-steering = "queue"
tx-queue = 0
[[flow]]
kind = "tcp-stream"
steering = "queue"
tx-steering = "queue"
tx-queue = 1
)")));
  ASSERT_TRUE(r.tcp);
  ASSERT_TRUE(r.ping);
  EXPECT_GT(out_mbps(r), 0.8 * kGoodputMbps);
  EXPECT_GT(static_cast<double>(r.tcp->received_bytes) * 8 / 1e6 / seconds(r), 0.8 * kGoodputMbps);
  EXPECT_EQ(r.drops.total(), 0u);
  EXPECT_GE(r.ping->rtt.count() + 1, r.ping->sent);  // at most the last one still on its way
  // The frames the host sends keep their own books: the sending connection's segments, the
  // receiving one's ACKs and the echo replies are made, and each is on the wire, dropped or
  // waiting.
  const Conservation& tx = r.tx_conservation;
  EXPECT_TRUE(tx.ok());
  std::uint64_t on_queues = 0;
  for (const QueueCounters& q : r.queues)
    on_queues += q.tx_frames;
  EXPECT_GT(tx.entered, on_queues / 2);
  EXPECT_LE(tx.delivered, tx.entered);
  EXPECT_EQ(tx.dropped, 0u);
}

TEST(tcp_stream, the_same_scenario_and_seed_give_the_same_report) {
  const Scenario s = load(stream(kStreamFlow + R"(
[[flow]]
kind = "ping"
rate = 2000
[[flow]]
kind = "tcp-maerts"
)"));
  std::ostringstream a;
  std::ostringstream b;
  write_text(a, run(s));
  write_text(b, run(s));
  EXPECT_EQ(a.str(), b.str());
  EXPECT_NE(a.str().find("ping: "), std::string::npos);
  EXPECT_NE(a.str().find("tcp goodput: "), std::string::npos);
}

TEST(ping, is_answered_in_the_softirq_and_its_round_trip_reported) {
  const RunReport r = run(load(stream(R"(
[traffic]
kind = "ping"
rate = 1000
size = 102
)")));
  ASSERT_TRUE(r.ping);
  // traffic.rate: one request per ms over the 50 ms measured.
  EXPECT_GE(r.ping->sent, 49u);
  EXPECT_LE(r.ping->sent, 51u);
  EXPECT_EQ(r.ping->lost, 0u);
  EXPECT_GE(r.ping->rtt.count() + 1, r.ping->sent);
  // No application runs: the echo costs interrupt and softirq time only.
  EXPECT_EQ(r.cpu.busy(0, ContextKind::thread) + r.cpu.busy(1, ContextKind::thread),
            Duration::zero());
  EXPECT_GT(r.cpu.busy(0, ContextKind::softirq) + r.cpu.busy(1, ContextKind::softirq),
            Duration::zero());
  // Both frames' wire time (122 B with preamble and gap: 0.976 us each), the interrupt's entry
  // and handler, the poll, the frame and the reply's transmission; the default 50 us Rx
  // coalescing timer holds the request first.
  const std::int64_t floor_ns = 2 * 976 + 1000 + 200 + 500 + 500 + 1000;
  EXPECT_GT(r.ping->rtt.min(), floor_ns);
  EXPECT_LT(r.ping->rtt.percentile(99'000), 100'000);
  EXPECT_LE(r.ping->rtt.percentile(50'000), r.ping->rtt.percentile(99'000));
}

TEST(tcp_stream, its_mss_flows_and_default_send_buffer_are_used) {
  // traffic.mss: smaller segments, more frames for the same bytes.
  const RunReport big = run(load(stream(kStreamFlow)));
  const RunReport small = run(load(stream(kStreamFlow), {"traffic.mss=1000"}));
  EXPECT_GT(static_cast<double>(small.queues.at(1).tx_frames),
            1.3 * static_cast<double>(big.queues.at(1).tx_frames));
  // traffic.flows: two window-limited connections carry about twice one's bytes.
  const double one = out_mbps(run(load(stream(kStreamFlow), {"traffic.window=2896"})));
  const double two =
      out_mbps(run(load(stream(kStreamFlow), {"traffic.window=2896", "traffic.flows=2"})));
  EXPECT_GT(two, 1.6 * one);
  // traffic.send-buffer = 0 is twice the window: the same run as setting it so, unlike one
  // window's worth.
  std::ostringstream zero;
  std::ostringstream twice;
  std::ostringstream once;
  write_text(zero, run(load(stream(kStreamFlow), {"traffic.window=5792"})));
  write_text(twice,
             run(load(stream(kStreamFlow), {"traffic.window=5792", "traffic.send-buffer=11584"})));
  write_text(once,
             run(load(stream(kStreamFlow), {"traffic.window=5792", "traffic.send-buffer=5792"})));
  EXPECT_EQ(zero.str(), twice.str());
  EXPECT_NE(zero.str(), once.str());
}

TEST(ping, its_size_sets_the_frames_wire_time_and_the_json_has_ping_and_tcp) {
  const std::string ping = R"(
[traffic]
kind = "ping"
rate = 1000
steering = "queue"
)";
  const RunReport small = run(load(stream(ping), {"traffic.size=102"}));
  const RunReport large = run(load(stream(ping), {"traffic.size=1500"}));
  ASSERT_TRUE(small.ping && large.ping);
  // Request and reply each take (1500 - 102) x 8 ns more on the wire at 1 Gbit/s.
  EXPECT_GT(large.ping->rtt.min(), small.ping->rtt.min() + 2 * (1500 - 102) * 8 * 9 / 10);
  std::ostringstream json;
  write_json(json, run(load(stream(ping + R"(
[[flow]]
kind = "tcp-stream"
steering = "queue"
tx-steering = "queue"
tx-queue = 1
)"))));
  EXPECT_NE(json.str().find("\"ping\":{\"sent\":"), std::string::npos);
  EXPECT_NE(json.str().find("\"rtt_p99_ns\":"), std::string::npos);
  EXPECT_NE(json.str().find("\"tcp\":{\"received_bytes\":"), std::string::npos);
  EXPECT_NE(json.str().find("\"sent_bytes\":"), std::string::npos);
}

TEST(tcp_stream, its_keys_are_checked) {
  EXPECT_EQ(load_error(stream(kStreamFlow), {"traffic.send-buffer=1000"}),
            "test.toml: traffic.send-buffer: 1000 bytes is less than one segment; allowed: 0 "
            "(twice traffic.window) or 1448 (traffic.mss) or more");
  EXPECT_EQ(load_error(stream(kStreamFlow), {"traffic.kind=tcp-maerts", "traffic.send-size=1448"}),
            "test.toml: traffic.send-size: only the host's TCP sender has a send buffer and send "
            "calls; allowed: the default, or traffic.kind = \"tcp-stream\"");
  EXPECT_NE(load_error(stream(kStreamFlow), {"nic.tx-interrupts=false"})
                .find("traffic.kind: traffic.kind = \"tcp-stream\" is modelled with the Tx "
                      "path's completions; allowed: with nic.tx-interrupts = true"),
            std::string::npos);
  EXPECT_EQ(load_error(stream(), {"traffic.kind=ping"}),
            "test.toml: traffic.rate: traffic.kind = \"ping\" sends one echo request per 1/rate s "
            "(ping -i); allowed: 1 request/s or more");
  EXPECT_NE(load_error(stream(kStreamFlow), {"traffic.rate=1000"}).find("traffic.rate"),
            std::string::npos);
  EXPECT_NE(load_error(stream(), {"traffic.kind=ping", "traffic.rate=100", "traffic.jitter=1us"})
                .find("traffic.jitter: traffic.kind = \"ping\" sends at exact intervals"),
            std::string::npos);
}

}  // namespace
}  // namespace irqmod::sim
