// The far end of netperf's TCP_STREAM (src/sim/far/tcp_sink.*: netserver's receiving
// connections), on a 1 Gbit/s wire (a 70-byte ACK's last bit arrives 624 ns after it starts) into
// a port whose DMA delay outlasts each test: each data frame is one skb that TcpReceiver judges
// when it arrives; an ACK at once in quick-ACK mode and for every second full segment, else the
// 40 ms delayed-ACK timer; each ACK's value goes on its connection's return path stamped with
// its frame's arrival at the host, on the sparse side of the peer's wire; a segment the host's Tx
// path dropped counts on the path for the host's sender to send again.
#include "sim/far/tcp_sink.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "irqmod/sim/link.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/far/wire.hpp"
#include "sim/net/tcp_path.hpp"
#include "sim/net/tcp_receiver.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/port.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint64_t kSinkLinkBps = 1'000'000'000;
constexpr std::int64_t kAckReceptionNs = 624;  // (70 + 8) bytes x 8 ns
constexpr std::uint32_t kMss = 1448;

TcpReceiver::Config sink_config(std::uint32_t quickacks) {
  TcpReceiver::Config c;
  c.max_quickacks = quickacks;
  return c;
}

struct SinkRig {
  explicit SinkRig(std::uint32_t quickacks = 0, std::size_t connections = 1)
      : paths(make_paths(connections)),
        sink(world, port, wire, 10, path_pointers(), sink_config(quickacks)) {}
  std::deque<TcpReturnPath> make_paths(std::size_t n) {
    std::deque<TcpReturnPath> p;
    for (std::size_t i = 0; i < n; ++i)
      p.emplace_back(kTcpAcksInFlight);
    return p;
  }
  std::vector<TcpReturnPath*> path_pointers() {
    std::vector<TcpReturnPath*> p;
    for (TcpReturnPath& path : paths)
      p.push_back(&path);
    return p;
  }
  // The host's Tx queue put a data segment of connection `i` on the wire; its last bit reaches
  // the sink at `arrival_ns`.
  void data(std::size_t i, std::int64_t arrival_ns) {
    const PeerEndpoint e = sink.data_endpoint(i);
    e.reply(e.self, Packet{0, kMss + kTcpFrameOverhead, static_cast<std::uint32_t>(i)}, arrival_ns);
  }
  void run_to_ns(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }

  World world;
  Port port{world, kSinkLinkBps, seconds(100)};
  FarWire wire{Link(kSinkLinkBps)};
  std::deque<TcpReturnPath> paths;
  TcpBulkReceiver sink;
};

TEST(tcp_sink, acknowledges_each_segment_at_once_in_quick_ack_mode) {
  SinkRig rig(16);
  rig.data(0, 10'000);
  rig.data(0, 20'000);
  rig.run_to_ns(30'000);
  ASSERT_EQ(rig.paths[0].acks.size(), 2U);
  EXPECT_EQ(rig.paths[0].acks[0].arrival_ns, 10'000 + kAckReceptionNs);
  EXPECT_EQ(rig.paths[0].acks[0].acked, kMss);
  EXPECT_EQ(rig.paths[0].acks[1].acked, 2 * kMss);
  EXPECT_EQ(rig.sink.receiver(0).quick(), 14U);
}

TEST(tcp_sink, acknowledges_every_second_full_segment_at_once) {
  SinkRig rig;
  rig.data(0, 10'000);
  rig.run_to_ns(15'000);
  EXPECT_TRUE(rig.paths[0].acks.empty());
  rig.data(0, 20'000);
  rig.run_to_ns(30'000);
  ASSERT_EQ(rig.paths[0].acks.size(), 1U);
  EXPECT_EQ(rig.paths[0].acks[0].arrival_ns, 20'000 + kAckReceptionNs);
  EXPECT_EQ(rig.paths[0].acks[0].acked, 2 * kMss);
  EXPECT_EQ(rig.wire.sparse.frames(), 1U);
  rig.run_to_ns(100'000'000);  // the ACK left nothing for the delayed-ACK timer
  EXPECT_EQ(rig.paths[0].acks.size(), 1U);
}

TEST(tcp_sink, a_lone_segment_is_acknowledged_by_the_delayed_ack_timer_40_ms_later) {
  SinkRig rig;
  rig.data(0, 10'000);
  rig.run_to_ns(40'009'999);
  EXPECT_TRUE(rig.paths[0].acks.empty());
  rig.run_to_ns(40'010'000);
  ASSERT_EQ(rig.paths[0].acks.size(), 1U);
  EXPECT_EQ(rig.paths[0].acks[0].arrival_ns, 40'010'000 + kAckReceptionNs);
  EXPECT_EQ(rig.paths[0].acks[0].acked, kMss);
  EXPECT_EQ(rig.sink.receiver(0).rcv_wup(), kMss);
}

TEST(tcp_sink, each_connection_acknowledges_on_its_own_path_in_turn_on_the_sparse_wire) {
  SinkRig rig(16, 2);
  rig.data(1, 10'000);
  rig.data(0, 10'000);  // the same instant: its ACK waits for the first one's wire time
  rig.run_to_ns(30'000);
  ASSERT_EQ(rig.paths[0].acks.size(), 1U);
  ASSERT_EQ(rig.paths[1].acks.size(), 1U);
  EXPECT_EQ(rig.paths[1].acks[0].arrival_ns, 10'000 + kAckReceptionNs);
  EXPECT_EQ(rig.paths[0].acks[0].arrival_ns,
            10'000 + rig.wire.sparse.occupancy_ps(kTcpFrameOverhead) / 1000 + kAckReceptionNs);
  EXPECT_EQ(rig.sink.receiver(0).rcv_nxt(), kMss);
  EXPECT_EQ(rig.sink.receiver(1).rcv_nxt(), kMss);
}

TEST(tcp_sink, a_segment_the_host_dropped_counts_on_its_path_for_the_sender) {
  SinkRig rig(0, 2);
  const PeerEndpoint e = rig.sink.data_endpoint(1);
  e.lost(e.self, 1);
  EXPECT_EQ(rig.paths[1].lost_segments, 1U);
  EXPECT_EQ(rig.paths[0].lost_segments, 0U);
}

}  // namespace
}  // namespace irqmod::sim
