// The host's TCP connections (src/sim/host/tcp_host.*), handed a poll's frames directly, behind a
// stack whose frames leave by a recording software device. Receive: GRO makes one skb of a
// poll's run of in-order frames of one connection, up to 64 KiB (skb_gro_receive), and TCP
// decides its ACK once per skb; the ACKs planned in the poll leave at its end, their values on
// the connection's path; a lone segment's delayed ACK leaves from the core that received it.
// Send: a write leaves at once as GSO skbs on the writing core's softirq transmitter as far as
// the window allows; an ACK frame (an skb of its own) frees the send buffer, sends what the
// window then allows, resends what the Tx path lost, and wakes a writer blocked on the buffer.
#include "sim/host/tcp_host.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/core.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/softirq_tx.hpp"
#include "sim/host/stack.hpp"
#include "sim/net/tcp_path.hpp"
#include "sim/net/tcp_receiver.hpp"
#include "sim/net/tcp_sender.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint32_t kSegment = 1448;                            // the MSS's payload
constexpr std::uint32_t kDataFrame = kSegment + kTcpFrameOverhead;  // 1518 bytes

// Flows: 0 and 1 are connections the host receives on (their ACKs: flows 2 and 3); 4 is one it
// sends on, whose peer's ACKs arrive on flow 5.
constexpr std::uint32_t kSendTuple = 4;
constexpr std::uint32_t kPeerAckFlow = 5;

// What left through the software device: the frame and the core it left from.
struct Departed {
  Packet frame;
  std::uint32_t core = 0;
};

struct TcpHostRig {
  TcpHostRig() {
    world.report.cpu = CpuTime(2);
    world.report.cores.resize(2);
    world.report.tcp.emplace();
    stack.set_softirq_tx({&tx0, &tx1});
    stack.set_device_xmit(
        DeviceXmit{[](void* self, const Packet& frame, std::uint32_t core) {
                     static_cast<TcpHostRig*>(self)->departed.push_back(Departed{frame, core});
                     return true;
                   },
                   this});
    TcpReceiver::Config no_quickacks;
    no_quickacks.max_quickacks = 0;  // past the connection's start: the two-segment rule
    tcp.add(0, 2, path0, no_quickacks);
    tcp.add(1, 3, path1, no_quickacks);
  }
  // A poll on `core` took `flows`' frames (data frames, or the peer's ACKs on kPeerAckFlow):
  // what TCP made of them; the planned ACKs leave at the poll's end.
  TcpHost::Work poll(const std::vector<std::uint32_t>& flows, std::uint32_t core = 0) {
    Ring<Packet> frames(64);
    for (const std::uint32_t flow : flows) {
      const std::uint32_t bytes = flow == kPeerAckFlow ? kTcpFrameOverhead : kDataFrame;
      frames.push(Packet{ns_since_epoch(world.now()), bytes, flow});
    }
    std::vector<std::uint32_t> planned;
    const TcpHost::Work work = tcp.plan(frames, 0, world.now(), core, planned);
    tcp.send_planned(planned);
    return work;
  }
  std::uint32_t add_sender(std::uint32_t window, std::uint32_t send_buffer) {
    TcpSender::Config config;
    config.window = window;
    config.send_buffer = send_buffer;
    const std::uint32_t s = tcp.add_sender(kSendTuple, kPeerAckFlow, return_path, config);
    tcp.set_writer(
        s, Waiter{[](void* self) { ++static_cast<TcpHostRig*>(self)->writer_wakeups; }, this});
    return s;
  }
  void run_to_ns(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }

  World world;
  Core core0{world, 0, Rng(13, 0), microseconds(3000)};
  Core core1{world, 1, Rng(13, 1), microseconds(3000)};
  Peers peers = Peers(6);
  Stack stack{world, peers, 6, 2};
  SoftirqTx tx0{world, core0, stack, SoftirqTxCosts{}};
  SoftirqTx tx1{world, core1, stack, SoftirqTxCosts{}};
  TcpHost tcp{world, stack, 6};
  TcpPath path0{kTcpAcksInFlight};
  TcpPath path1{kTcpAcksInFlight};
  TcpReturnPath return_path{kTcpAcksInFlight};
  std::vector<Departed> departed;
  int writer_wakeups = 0;
};

TEST(tcp_host, gro_makes_one_skb_of_a_polls_run_and_its_ack_leaves_at_the_polls_end) {
  TcpHostRig rig;
  const TcpHost::Work work = rig.poll({0, 0, 0, 0});
  EXPECT_EQ(work.skbs, 1);
  EXPECT_EQ(work.acks, 1);  // an skb of more than one segment: acknowledged at once
  EXPECT_EQ(rig.tcp.receiver(0).rcv_nxt(), 4U * kSegment);
  ASSERT_EQ(rig.path0.acks.size(), 1U);
  EXPECT_EQ(rig.path0.acks.front(), 4U * kSegment);
  ASSERT_EQ(rig.departed.size(), 1U);
  EXPECT_EQ(rig.departed[0].frame.flow, 2U);  // the connection's ACK flow
  EXPECT_EQ(rig.departed[0].frame.frame_bytes, kTcpFrameOverhead);
  EXPECT_EQ(rig.world.report.tcp->received_bytes, 4U * kSegment);
}

TEST(tcp_host, an_skb_stops_growing_at_64_kib) {
  TcpHostRig rig;
  const TcpHost::Work work = rig.poll(std::vector<std::uint32_t>(50, 0));
  EXPECT_EQ(work.skbs, 2);  // 45 segments (65 160 bytes), then 5
  EXPECT_EQ(work.acks, 2);
  ASSERT_EQ(rig.path0.acks.size(), 2U);
  EXPECT_EQ(rig.path0.acks[0], 45U * kSegment);
  EXPECT_EQ(rig.path0.acks[1], 50U * kSegment);
}

TEST(tcp_host, another_connections_frame_ends_the_skb) {
  TcpHostRig rig;
  const TcpHost::Work work = rig.poll({0, 0, 1, 0});
  EXPECT_EQ(work.skbs, 3);
  EXPECT_EQ(work.acks, 1);  // the two-segment skb; the lone segments wait for the timer
  EXPECT_EQ(rig.tcp.receiver(0).rcv_nxt(), 3U * kSegment);
  EXPECT_EQ(rig.tcp.receiver(1).rcv_nxt(), kSegment);
  EXPECT_TRUE(rig.path1.acks.empty());
}

TEST(tcp_host, frames_of_no_connection_are_not_tcps) {
  TcpHostRig rig;
  EXPECT_FALSE(rig.tcp.carries(3));
  const TcpHost::Work work = rig.poll({3, 3});
  EXPECT_EQ(work.skbs, 0);
  EXPECT_TRUE(rig.departed.empty());
}

TEST(tcp_host, a_lone_segments_delayed_ack_leaves_from_the_core_that_received_it) {
  TcpHostRig rig;
  const TcpHost::Work work = rig.poll({1}, 1);
  EXPECT_EQ(work.acks, 0);
  rig.run_to_ns(39'999'999);
  EXPECT_TRUE(rig.path1.acks.empty());
  rig.run_to_ns(40'000'000);  // TCP_ATO_MIN after the segment
  ASSERT_EQ(rig.path1.acks.size(), 1U);
  EXPECT_EQ(rig.path1.acks.front(), kSegment);
  ASSERT_EQ(rig.departed.size(), 1U);
  EXPECT_EQ(rig.departed[0].frame.flow, 3U);
  EXPECT_EQ(rig.departed[0].core, 1U);
}

TEST(tcp_host, a_write_leaves_at_once_as_gso_skbs_on_the_writing_cores_softirq_tx) {
  TcpHostRig rig;
  const std::uint32_t s = rig.add_sender(65'536, 131'072);
  EXPECT_EQ(rig.tcp.room(s), 131'072U);
  rig.tcp.write(s, 100'000, 1);
  // The window (64 KiB) lets out 45 segments, one GSO skb; the rest waits for ACKs.
  EXPECT_EQ(rig.tcp.sender(s).snd_nxt(), 45U * kSegment);
  EXPECT_EQ(rig.tcp.room(s), 31'072U);
  EXPECT_EQ(rig.tx1.added(), 45U);
  EXPECT_EQ(rig.tx0.added(), 0U);
  rig.run_to_ns(1'000);  // the softirq transmitter's pass
  EXPECT_EQ(rig.tx1.skbs(), 1U);
  ASSERT_EQ(rig.departed.size(), 45U);
  EXPECT_EQ(rig.departed[0].frame.flow, kSendTuple);
  EXPECT_EQ(rig.departed[0].frame.frame_bytes, kDataFrame);
  EXPECT_EQ(rig.departed[0].core, 1U);
}

TEST(tcp_host, an_ack_frees_the_buffer_sends_more_and_wakes_the_blocked_writer) {
  TcpHostRig rig;
  const std::uint32_t s = rig.add_sender(65'536, 131'072);
  rig.tcp.write(s, 131'072, 0);
  ASSERT_EQ(rig.tcp.room(s), 0U);
  rig.tcp.block_writer(s);
  rig.return_path.acks.push(TcpReturnPath::Stamp{0, 45U * kSegment});
  const TcpHost::Work work = rig.poll({kPeerAckFlow});
  EXPECT_EQ(work.skbs, 1);  // the ACK is an skb of its own
  EXPECT_EQ(rig.tcp.sender(s).snd_una(), 45U * kSegment);
  EXPECT_EQ(rig.world.report.tcp->sent_bytes, 45U * kSegment);
  EXPECT_EQ(rig.tcp.sender(s).snd_nxt(), 90U * kSegment);  // the window's next 45 segments
  EXPECT_EQ(rig.writer_wakeups, 1);
  EXPECT_TRUE(rig.return_path.acks.empty());
}

TEST(tcp_host, a_blocked_writer_sleeps_on_until_the_buffer_is_two_thirds_free) {
  TcpHostRig rig;
  const std::uint32_t s = rig.add_sender(65'536, 131'072);
  rig.tcp.write(s, 131'072, 0);
  rig.tcp.block_writer(s);
  rig.return_path.acks.push(TcpReturnPath::Stamp{0, 10U * kSegment});
  rig.poll({kPeerAckFlow});
  EXPECT_EQ(rig.tcp.sender(s).snd_una(), 10U * kSegment);
  EXPECT_EQ(rig.writer_wakeups, 0);  // 116 592 bytes still queued: more than 2/3 of 128 KiB
}

TEST(tcp_host, segments_the_tx_path_lost_are_sent_again_with_the_next_ack) {
  TcpHostRig rig;
  const std::uint32_t s = rig.add_sender(1 << 20, 131'072);  // a window that never limits
  rig.tcp.write(s, 131'072, 0);  // 90 whole segments: two GSO skbs of 45
  EXPECT_EQ(rig.tx0.added(), 90U);
  rig.return_path.lost_segments = 2;
  rig.poll({kPeerAckFlow});  // no new ACK value: only the resend
  EXPECT_EQ(rig.return_path.lost_segments, 0U);
  EXPECT_EQ(rig.tcp.sender(s).snd_nxt(), 90U * kSegment);  // no new data: the same bytes again
  EXPECT_EQ(rig.tx0.added(), 90U + 2U);
}

}  // namespace
}  // namespace irqmod::sim
