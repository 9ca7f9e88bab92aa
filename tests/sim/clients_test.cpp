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
    LoadResult loaded = load_scenario_text(kScenario, "test.toml", sets);
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
    peer.lost(peer.self);
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
  peer.lost(peer.self);
  EXPECT_EQ(world.report.sockperf.dropped, 1U);
  EXPECT_EQ(world.report.latency.count(), 1U);
}

}  // namespace
}  // namespace irqmod::sim
