// The answering peers. The ping-pong client runs in a host built from a scenario whose queue
// does not interrupt for 100 ms, so nothing answers it but the test, which calls its endpoint
// as the host's Tx queue would and reads each request from the Rx ring it lands in. On a
// 1 Gbit/s link without DMA delay a 64-byte request arrives 576 ns after it is sent.
#include "sim/far/clients.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/link.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/builder.hpp"
#include "sim/load_helpers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr std::int64_t kReception = 576;

constexpr const char* kScenario = R"(
[scenario]
duration = "1s"
[link]
speed = "1G"
[traffic]
kind = "ping-pong"
flows = 2
[nic]
moderation = "coalesce"
rx-usecs = 100000
)";

struct Fixture {
  explicit Fixture(const std::vector<std::string>& sets = {}) {
    LoadResult loaded =
        load_scenario_text(kScenario, "test.toml", test::costs_only(kScenario, sets));
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().what());
    if (!loaded.ok()) return;
    scenario = loaded.value();
    const auto error = build(scenario, host);
    EXPECT_FALSE(error) << (error ? error->what() : "");
  }
  // The host answers the request in flight; the answer's last bit reaches the client then.
  void reply(std::int64_t arrival_ns) {
    const PeerEndpoint& peer = host.peers[0];
    peer.reply(peer.self, Packet{}, arrival_ns);
  }
  void lose() {
    const PeerEndpoint& peer = host.peers[0];
    peer.lost(peer.self, 0);
  }
  void run_to(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }
  std::uint64_t requests() const { return host.rx_queues[0].arrived(); }
  const Packet& last_request() const { return host.rx_queues[0].newest(); }
  const LatencyHistogram& latency() const { return world.report.latency; }

  Scenario scenario;
  World world;
  Host host{world};
};

TEST(clients, ping_pong_sends_its_first_request_at_0_on_its_first_tuple) {
  Fixture f;
  EXPECT_TRUE(f.host.peers[0].answered);
  EXPECT_EQ(f.host.peers[0].self, f.host.peers[1].self);  // one client, two tuples
  f.run_to(1000);
  ASSERT_EQ(f.requests(), 1U);
  EXPECT_EQ(f.last_request().arrival_ns, kReception);
  EXPECT_EQ(f.last_request().flow, 0U);
  EXPECT_EQ(f.last_request().frame_bytes, 64U);
}

TEST(clients, ping_pong_sends_the_next_request_when_the_reply_arrives_on_the_next_tuple) {
  Fixture f;
  f.run_to(1000);
  f.reply(5000);  // still on the wire: the next request leaves when it has arrived
  EXPECT_EQ(f.latency().count(), 1U);
  EXPECT_EQ(f.latency().max(), 2500);  // half of 5000 - 0
  f.run_to(6000);
  ASSERT_EQ(f.requests(), 2U);
  EXPECT_EQ(f.last_request().arrival_ns, 5000 + kReception);
  EXPECT_EQ(f.last_request().flow, 1U);
  f.reply(5800);  // handled late: the next request leaves now
  EXPECT_EQ(f.latency().min(), 400);
  f.run_to(7000);
  ASSERT_EQ(f.requests(), 3U);
  EXPECT_EQ(f.last_request().arrival_ns, 6000 + kReception);
  EXPECT_EQ(f.last_request().flow, 0U);  // back to the first tuple
}

TEST(clients, ping_pong_paces_requests_to_the_mps_slots) {
  Fixture f({"traffic.mps=100000"});  // a slot every 10 us
  f.run_to(1000);
  f.reply(2000);
  f.run_to(11'000);
  EXPECT_EQ(f.last_request().arrival_ns, 10'000 + kReception);
  f.reply(13'000);
  EXPECT_EQ(f.latency().max(), 1500);  // measured from the slot it left in
  f.run_to(21'000);
  EXPECT_EQ(f.last_request().arrival_ns, 20'000 + kReception);
  f.run_to(35'000);
  f.reply(35'000);  // past its slot: leaves at once
  f.run_to(36'000);
  EXPECT_EQ(f.last_request().arrival_ns, 35'000 + kReception);
}

TEST(clients, ping_pong_counts_a_lost_message_as_dropped_and_sends_the_next_at_once) {
  Fixture f;
  f.run_to(1000);
  f.lose();
  EXPECT_EQ(f.world.report.sockperf.dropped, 1U);
  EXPECT_EQ(f.latency().count(), 0U);
  f.run_to(2000);
  ASSERT_EQ(f.requests(), 2U);
  EXPECT_EQ(f.last_request().arrival_ns, 1000 + kReception);
  EXPECT_EQ(f.last_request().flow, 1U);
}

TEST(clients, ping_pong_jitters_each_send_and_measures_latency_from_the_jittered_send) {
  Fixture f({"traffic.jitter=uniform(100ns, 900ns)"});
  // The client's own stream, drawn by hand.
  Rng twin(f.scenario.scenario.seed, stream::kJitter);
  const Distribution jitter = f.scenario.traffic.jitter;
  const std::int64_t first = jitter.draw(twin).count();
  const std::int64_t second = jitter.draw(twin).count();
  f.run_to(2000);
  EXPECT_EQ(f.last_request().arrival_ns, first + kReception);
  f.reply(5000);
  EXPECT_EQ(f.latency().max(), (5000 - first) / 2);
  f.run_to(7000);
  EXPECT_EQ(f.last_request().arrival_ns, 5000 + second + kReception);
}

TEST(clients, ping_pong_turnaround_delays_each_request_on_the_wire_and_counts_in_the_rtt) {
  Fixture f({"traffic.peer-turnaround=uniform(30us, 50us)"});
  Rng twin(f.scenario.scenario.seed, stream::kTurnaround);  // its own stream, drawn by hand
  const Distribution turnaround = f.scenario.traffic.peer_turnaround;
  const std::int64_t first = turnaround.draw(twin).count();
  const std::int64_t second = turnaround.draw(twin).count();
  ASSERT_NE(first, second);
  f.run_to(first + kReception - 1);
  EXPECT_EQ(f.requests(), 0U);
  f.run_to(first + kReception);
  ASSERT_EQ(f.requests(), 1U);
  // sockperf's clock started at the send, before the client's stack: all of it is in the RTT.
  f.reply(first + 5000);
  EXPECT_EQ(f.latency().max(), (first + 5000) / 2);
  f.run_to(first + 5000 + second + kReception);
  ASSERT_EQ(f.requests(), 2U);
  EXPECT_EQ(f.last_request().arrival_ns, first + 5000 + second + kReception);
}

TEST(clients, the_timer_wheel_rounds_a_timer_up_to_its_levels_step) {
  const Duration ms = milliseconds(1);
  // Level 0 (under 63 jiffies ahead): the next jiffy after the expiry.
  EXPECT_EQ(timer_wheel_expiry(at_ns(500'000), milliseconds(10), ms), at_ns(11'000'000));
  // Level 1 (63 to 503 jiffies): the next multiple of 8 jiffies. The loss probe's 200.1 ms is
  // 201 jiffies: 208 ms from jiffy 0 or 3, 216 ms from jiffy 7.
  EXPECT_EQ(timer_wheel_expiry(at_ns(500'000), microseconds(200'100), ms), at_ns(208'000'000));
  EXPECT_EQ(timer_wheel_expiry(at_ns(3'200'000), microseconds(200'100), ms), at_ns(208'000'000));
  EXPECT_EQ(timer_wheel_expiry(at_ns(7'000'000), microseconds(200'100), ms), at_ns(216'000'000));
  // Level 2 (504 to 4031): steps of 64 jiffies; TCP_TIMEOUT_INIT's 1 s fires at 1024 ms.
  EXPECT_EQ(timer_wheel_expiry(at_ns(0), seconds(1), ms), at_ns(1'024'000'000));
  // HZ = 250: 200.1 ms is 51 ticks of 4 ms, level 0: 52 ticks, 208 ms; HZ = 100: 220 ms.
  EXPECT_EQ(timer_wheel_expiry(at_ns(0), microseconds(200'100), milliseconds(4)),
            at_ns(208'000'000));
  EXPECT_EQ(timer_wheel_expiry(at_ns(0), microseconds(200'100), milliseconds(10)),
            at_ns(220'000'000));
}

// sockperf --tcp: 12 B messages in 82 B frames; no interrupt for 10 s, so only the test answers.
std::vector<std::string> tcp(std::vector<std::string> more = {}) {
  more.insert(more.begin(), {"traffic.protocol=tcp", "nic.rx-usecs=10000000"});
  return more;
}
constexpr std::int64_t kTcpReception = 720;  // 82 B + preamble at 1 Gbit/s

TEST(clients, tcp_ping_pong_probes_an_unanswered_request_on_its_copy_flow) {
  Fixture f(tcp());
  f.run_to(1000);
  ASSERT_EQ(f.requests(), 1U);
  EXPECT_EQ(f.last_request().frame_bytes, 82U);
  EXPECT_EQ(f.last_request().arrival_ns, kTcpReception);
  // No RTT sample yet: TCP_TIMEOUT_INIT, 1 s, fires at 1024 ms; the copy takes the probe flow
  // of tuple 0 (flow 2, after the two tuples) and the same Rx queue.
  f.run_to(1'024'000'000 + kTcpReception - 1);
  EXPECT_EQ(f.requests(), 1U);
  f.run_to(1'024'000'000 + kTcpReception);
  ASSERT_EQ(f.requests(), 2U);
  EXPECT_EQ(f.last_request().arrival_ns, 1'024'000'000 + kTcpReception);
  EXPECT_EQ(f.last_request().flow, 2U);
  EXPECT_EQ(f.world.report.tcp_loss_probes, 1U);
  EXPECT_EQ(f.world.report.sockperf.dropped, 0U);
}

TEST(clients, tcp_ping_pong_times_its_probe_from_the_smoothed_rtt_and_the_keys) {
  struct Case {
    std::vector<std::string> sets;
    std::int64_t probe_ns;
  };
  // A 50 us round trip: PTO = 2 x 50 us + rto-min, from the second request's send at 50 us.
  // (SRTT 50 us, RTTVAR 25 us: the RTO, 50 us + 200 ms, clamps the probe to 200.05 ms: the same
  // 201 jiffies.)
  const std::vector<Case> cases = {
      {{}, 208'000'000},                          // 201 jiffies, level 1
      {{"traffic.peer-hz=100"}, 220'000'000},     // 21 ticks of 10 ms, level 0
      {{"traffic.rto-min=100ms"}, 104'000'000}};  // 101 jiffies, level 1
  for (const Case& c : cases) {
    Fixture f(tcp(c.sets));
    f.run_to(1000);
    f.reply(50'000);
    f.run_to(51'000);
    ASSERT_EQ(f.requests(), 2U);
    f.run_to(c.probe_ns + kTcpReception - 1);
    EXPECT_EQ(f.requests(), 2U) << c.probe_ns;
    f.run_to(c.probe_ns + kTcpReception);
    ASSERT_EQ(f.requests(), 3U) << c.probe_ns;
    EXPECT_EQ(f.last_request().flow, 3U);  // tuple 1's copy flow
  }
}

TEST(clients, tcp_ping_pong_never_probes_after_its_rto) {
  // A 10 ms round trip: 2 x SRTT + 200 ms = 220 ms, but the RTO (SRTT + max(4 x RTTVAR, 200 ms)
  // = 210 ms) comes first: from the send at 10 ms, jiffy 220, level 1: 224 ms (232 without).
  Fixture f(tcp());
  f.run_to(1000);
  f.reply(10'000'000);
  f.run_to(10'001'000);
  ASSERT_EQ(f.requests(), 2U);
  f.run_to(224'000'000 + kTcpReception - 1);
  EXPECT_EQ(f.requests(), 2U);
  f.run_to(224'000'000 + kTcpReception);
  EXPECT_EQ(f.requests(), 3U);
}

TEST(clients, tcp_ping_pong_sends_a_request_the_server_dropped_again_at_the_probe) {
  Fixture f(tcp());
  f.run_to(1000);
  f.lose();  // TCP recovers it: sockperf sees no loss and nothing is sent at once
  EXPECT_EQ(f.world.report.sockperf.dropped, 0U);
  f.run_to(1'024'000'000 + kTcpReception - 1);
  EXPECT_EQ(f.requests(), 1U);
  f.run_to(1'024'000'000 + kTcpReception);
  ASSERT_EQ(f.requests(), 2U);
  EXPECT_EQ(f.last_request().flow, 0U);  // the request itself, on its own flow
  f.reply(1'024'100'000);
  EXPECT_EQ(f.latency().max(), 1'024'100'000 / 2);  // from the first send
}

TEST(clients, request_sender_records_half_the_time_from_the_requests_send_to_its_reply) {
  World world;
  const Link link(1'000'000'000);
  RequestSender sender(world, link);
  const PeerEndpoint peer = sender.endpoint();
  EXPECT_TRUE(peer.answered);
  // Sent at 1000 ns: its last bit arrived 576 ns later.
  peer.reply(peer.self, Packet{1000 + kReception, 64, 0}, 3000);
  EXPECT_EQ(world.report.latency.count(), 1U);
  EXPECT_EQ(world.report.latency.max(), 1000);
  peer.lost(peer.self, 0);
  EXPECT_EQ(world.report.sockperf.dropped, 1U);
  EXPECT_EQ(world.report.latency.count(), 1U);
}

TEST(clients, request_sender_reports_the_round_trip_plus_the_client_delay_when_asked) {
  World world;
  const Link link(1'000'000'000);
  RequestSender sender(world, link, true, microseconds(32));  // traffic.latency = "rtt"
  const PeerEndpoint peer = sender.endpoint();
  peer.reply(peer.self, Packet{1000 + kReception, 64, 0}, 3000);
  EXPECT_EQ(world.report.latency.max(), 2000 + 32'000);
}

TEST(clients, the_round_trip_report_and_its_delay_are_request_response_keys) {
  const std::string rr = "[traffic]\nkind = \"request-response\"\nrate = 1000\n";
  EXPECT_TRUE(
      load_scenario_text(rr, "t.toml",
                         test::costs_only(rr, {"traffic.latency=rtt", "traffic.client-delay=5us"}))
          .ok());
  const LoadResult no_rtt =
      load_scenario_text(rr, "t.toml", test::costs_only(rr, {"traffic.client-delay=5us"}));
  ASSERT_FALSE(no_rtt.ok());
  EXPECT_NE(no_rtt.error().what().find("client-delay"), std::string::npos);
  const LoadResult ping =
      load_scenario_text("[traffic]\nkind = \"ping-pong\"\n", "t.toml",
                         std::vector<std::string>{"traffic.latency=rtt", "platform=none"});
  ASSERT_FALSE(ping.ok());
  EXPECT_NE(ping.error().what().find("latency"), std::string::npos);
}

// mutilate at MAX: two connections, one request outstanding each, 2 us of client between an
// answer and the next request.
std::vector<std::string> closed_loop(std::vector<std::string> more = {}) {
  std::vector<std::string> sets{"traffic.kind=request-response", "traffic.depth=1",
                                "traffic.latency=rtt", "traffic.client-delay=2us"};
  sets.insert(sets.end(), more.begin(), more.end());
  return sets;
}

TEST(clients, a_closed_loop_opens_its_connections_spread_over_one_client_delay) {
  Fixture f(closed_loop());
  EXPECT_TRUE(f.host.peers[1].answered);
  f.run_to(1000 + kReception - 1);
  ASSERT_EQ(f.requests(), 1U);
  EXPECT_EQ(f.last_request().arrival_ns, kReception);
  EXPECT_EQ(f.last_request().flow, 0U);
  f.run_to(1000 + kReception);
  ASSERT_EQ(f.requests(), 2U);
  EXPECT_EQ(f.last_request().flow, 1U);
  f.run_to(100'000);
  EXPECT_EQ(f.requests(), 2U);  // nothing more until an answer comes back
}

TEST(clients, a_closed_loop_keeps_depth_requests_outstanding_on_each_connection) {
  Fixture f(closed_loop({"traffic.depth=3"}));
  f.run_to(100'000);
  EXPECT_EQ(f.requests(), 6U);
}

TEST(clients, a_closed_loop_sends_the_next_request_a_client_delay_after_the_answer) {
  Fixture f(closed_loop());
  f.run_to(2000);
  const PeerEndpoint& peer = f.host.peers[1];
  peer.reply(peer.self, Packet{1000 + kReception, 64, 1}, 5000);
  // mutilate's latency: the round trip (sent at 1000) + the client delay.
  EXPECT_EQ(f.latency().max(), 4000 + 2000);
  f.run_to(7000 + kReception - 1);
  EXPECT_EQ(f.requests(), 2U);
  f.run_to(7000 + kReception);
  ASSERT_EQ(f.requests(), 3U);
  EXPECT_EQ(f.last_request().flow, 1U);  // on the connection that was answered
}

TEST(clients, a_closed_loop_counts_a_lost_request_and_goes_on_with_the_next) {
  Fixture f(closed_loop());
  f.run_to(2000);
  const PeerEndpoint& peer = f.host.peers[0];
  peer.lost(peer.self, 0);
  EXPECT_EQ(f.world.report.sockperf.dropped, 1U);
  EXPECT_EQ(f.latency().count(), 0U);
  f.run_to(2000 + 2000 + kReception);
  ASSERT_EQ(f.requests(), 3U);
  EXPECT_EQ(f.last_request().flow, 0U);
}

TEST(clients, a_depth_is_request_response_reported_as_a_round_trip) {
  const std::string rr = "[traffic]\nkind = \"request-response\"\n";
  const auto refused = [&](std::vector<std::string> sets, const std::string& key) {
    const LoadResult r = load_scenario_text(rr, "t.toml", test::costs_only(rr, sets));
    if (r.ok()) return ::testing::AssertionFailure() << "accepted";
    if (r.error().what().find(key) == std::string::npos)
      return ::testing::AssertionFailure() << r.error().what();
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(load_scenario_text(rr, "t.toml",
                                 test::costs_only(rr, {"traffic.depth=1", "traffic.latency=rtt"}))
                  .ok());
  EXPECT_TRUE(load_scenario_text(rr, "t.toml",
                                 test::costs_only(rr, {"traffic.depth=1", "traffic.latency=rtt",
                                                       "traffic.rate=1000"}))
                  .ok());  // mutilate -q with -d
  EXPECT_TRUE(refused({"traffic.depth=1"}, "traffic.latency"));
  EXPECT_TRUE(refused({}, "traffic.rate"));  // open loop: still needs its rate
  EXPECT_TRUE(refused({"traffic.depth=1", "traffic.latency=rtt", "traffic.kind=ping-pong"},
                      "traffic.depth"));
}

TEST(clients, a_connection_at_its_depth_holds_a_due_request_until_an_answer_frees_it) {
  // One connection at 1000 requests/s (a gap of 1 ms on average), never answered by the host.
  Fixture f(closed_loop({"traffic.flows=1", "traffic.rate=1000"}));
  f.run_to(50'000'000);
  ASSERT_EQ(f.requests(), 1U);  // its later requests came due while the first was outstanding
  const Packet first = f.last_request();
  const PeerEndpoint& peer = f.host.peers[0];
  peer.reply(peer.self, first, 50'000'000);
  f.run_to(50'000'000 + 2000 + kReception - 1);
  EXPECT_EQ(f.requests(), 1U);
  f.run_to(50'000'000 + 2000 + kReception);
  EXPECT_EQ(f.requests(), 2U);  // a client delay after the answer: it was due long ago
}

TEST(clients, connections_answered_at_once_issue_at_the_rate) {
  // The host answers (no moderation): 200 connections at 20 000 requests/s together, one
  // outstanding each, are hardly ever held, so the rate is what they send.
  const std::string text = R"(
[scenario]
duration = "1s"
[traffic]
kind = "request-response"
rate = 20000
flows = 200
depth = 1
latency = "rtt"
client-delay = "10us"
)";
  const RunReport r = test::run(test::loaded(text));
  EXPECT_NEAR(static_cast<double>(r.delivered_packets), 20'000.0, 20'000.0 * 0.03);
  const RunReport max = test::run(test::loaded(text, {"traffic.rate=0"}));
  // Closed: each connection's round trip is its cycle, far above 20 000/s.
  EXPECT_GT(max.delivered_packets, 5 * r.delivered_packets);
}

}  // namespace
}  // namespace irqmod::sim
