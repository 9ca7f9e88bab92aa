// ping on the far side (src/sim/far/ping.*: ping -i), on a 1 Gbit/s wire (a 64-byte request's
// last bit arrives 576 ns after it starts) into a port whose DMA delay outlasts each test, so the
// requests are sent and never landed: one request per interval at the exact rate whatever the
// replies do, served on the sparse side of the peer's wire (fq_codel: ahead of the bulk queue),
// the round trip recorded as ping prints it (from the send to the reply's last bit), a reply
// matched to its request by the request's arrival, the older requests forgotten as lost.
#include "sim/far/ping.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "irqmod/sim/link.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/far/wire.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/port.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint64_t kGigabit = 1'000'000'000;
constexpr std::int64_t kPingArrivalNs = 576;  // (64 + 8) bytes x 8 ns on an idle wire

struct PingRig {
  explicit PingRig(std::uint64_t rate) : ping(world, port, wire, 0, 2, 64, rate) {
    world.report.ping.emplace();
  }
  void run_to_ns(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }
  // The host's echo reply to the request that reached it at `request_arrival_ns`, back at the
  // pinger at `reply_ns`.
  void reply(std::int64_t request_arrival_ns, std::int64_t reply_ns) {
    const PeerEndpoint e = ping.endpoint();
    e.reply(e.self, Packet{request_arrival_ns, 64, 0}, reply_ns);
  }
  const PingReport& report() const { return *world.report.ping; }

  World world;
  Port port{world, kGigabit, seconds(100)};
  FarWire wire{Link(kGigabit)};
  PingSender ping;
};

TEST(ping, sends_one_request_per_interval_at_the_exact_rate) {
  PingRig rig(3);  // 333 333 333.33 ns apart: the remainder is carried, no drift
  rig.ping.start();
  rig.run_to_ns(0);
  EXPECT_EQ(rig.report().sent, 1U);
  rig.run_to_ns(666'666'666);
  EXPECT_EQ(rig.report().sent, 3U);
  rig.run_to_ns(999'999'999);
  EXPECT_EQ(rig.report().sent, 3U);
  rig.run_to_ns(1'000'000'000);
  EXPECT_EQ(rig.report().sent, 4U);
  EXPECT_EQ(rig.wire.sparse.frames(), 4U);
}

TEST(ping, records_the_round_trip_from_the_send_to_the_replys_last_bit) {
  PingRig rig(1000);
  rig.ping.start();
  rig.run_to_ns(1'000'000);  // requests at 0 and 1 ms
  rig.reply(kPingArrivalNs, 40'000);
  rig.reply(1'000'000 + kPingArrivalNs, 1'030'000);
  EXPECT_EQ(rig.report().rtt.count(), 2U);
  EXPECT_EQ(rig.report().rtt.max(), 40'000);
  EXPECT_EQ(rig.report().rtt.min(), 30'000);
}

TEST(ping, a_reply_forgets_the_requests_before_its_own) {
  PingRig rig(1000);
  rig.ping.start();
  rig.run_to_ns(2'000'000);  // requests at 0, 1 and 2 ms
  rig.reply(2'000'000 + kPingArrivalNs, 2'050'000);
  EXPECT_EQ(rig.report().rtt.count(), 1U);
  rig.reply(kPingArrivalNs, 2'060'000);              // its request was forgotten: lost on the way
  rig.reply(2'000'000 + kPingArrivalNs, 2'070'000);  // a second reply to one request
  EXPECT_EQ(rig.report().rtt.count(), 1U);
  EXPECT_EQ(rig.report().rtt.min(), 50'000);
}

TEST(ping, a_request_does_not_wait_behind_the_peers_bulk_queue) {
  PingRig rig(1000);
  for (int i = 0; i < 100; ++i)
    rig.wire.bulk.transmit(0, 1518);  // ~1.2 ms of bulk frames queued at time 0
  const std::int64_t bulk_free_ps = rig.wire.bulk.free_at_ps();
  rig.ping.start();
  rig.run_to_ns(0);
  rig.reply(kPingArrivalNs, 10'000);  // the request arrived 576 ns after its send
  EXPECT_EQ(rig.report().rtt.count(), 1U);
  // Its time on the wire still counts: the bulk queue's later frames leave that much later.
  EXPECT_EQ(rig.wire.bulk.free_at_ps(), bulk_free_ps + rig.wire.bulk.occupancy_ps(64));
}

TEST(ping, a_loss_on_the_host_counts_in_the_report) {
  PingRig rig(1000);
  const PeerEndpoint e = rig.ping.endpoint();
  EXPECT_TRUE(e.answered);
  e.lost(e.self, 0);
  e.lost(e.self, 0);
  EXPECT_EQ(rig.report().lost, 2U);
}

}  // namespace
}  // namespace irqmod::sim
