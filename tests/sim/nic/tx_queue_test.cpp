// The Tx queue: descriptors and the qdisc in front of them, on a 1 Gbit/s wire where a 64-byte
// frame holds the wire 672 ns and reaches the peer 576 ns after it starts. Without Tx interrupts a
// descriptor is free once its frame left the wire; with them it stays taken until a poll cleans
// its write-back.
#include "sim/nic/tx_queue.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/sim/link.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint64_t k1G = 1'000'000'000;
constexpr std::int64_t kWire = 672;       // ns a 64-byte frame holds the wire at 1 Gbit/s
constexpr std::int64_t kReception = 576;  // ns from its first bit to its last at the peer

// The peer of every flow: when each reply reached it, and the losses it heard of.
struct Recorder {
  std::vector<std::int64_t> arrivals;
  std::vector<std::uint32_t> flows;
  int lost = 0;

  PeerEndpoint endpoint() {
    PeerEndpoint e;
    e.reply = [](void* self, const Packet& request, std::int64_t arrival_ns) {
      auto* r = static_cast<Recorder*>(self);
      r->arrivals.push_back(arrival_ns);
      r->flows.push_back(request.flow);
    };
    e.lost = [](void* self, std::uint32_t) { ++static_cast<Recorder*>(self)->lost; };
    e.self = this;
    e.answered = true;
    return e;
  }
};

// A Tx queue of `descriptors` behind a qdisc of `qdisc` packets, with or without interrupts.
struct Fixture {
  Fixture(std::uint32_t descriptors, std::uint32_t qdisc, bool interrupts,
          Duration dma_delay = Duration::zero())
      : peers(2, recorder.endpoint()),
        tx(world, 0, descriptors, qdisc, interrupts, dma_delay, wire, peers) {}

  void send(std::uint32_t flow = 0) { tx.send_reply(Packet{0, 64, flow}); }
  void advance_to(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }
  std::uint64_t drops(DropReason reason) const { return world.report.drops.count(reason); }

  World world;
  Link wire{k1G};
  Recorder recorder;
  Peers peers;
  TxQueue tx;
};

// ---- without Tx interrupts ---------------------------------------------------------------------

TEST(tx_queue, sends_a_reply_at_once_and_the_peer_gets_its_last_bit_after_the_reception_time) {
  Fixture f(4, 10, false);
  f.advance_to(1000);
  f.send(1);
  EXPECT_EQ(f.recorder.arrivals, std::vector<std::int64_t>{1000 + kReception});
  EXPECT_EQ(f.recorder.flows, std::vector<std::uint32_t>{1});
  EXPECT_EQ(f.tx.sent(), 1U);
  EXPECT_EQ(f.tx.queued(), 0U);
}

TEST(tx_queue, without_interrupts_frames_beyond_the_ring_wait_in_the_qdisc_then_go_back_to_back) {
  // The qdisc is a FIFO behind the ring, and a descriptor frees exactly when the frame before it
  // has left the wire: the frames it holds go on the wire at once, queued behind the ring's.
  Fixture f(2, 8, false);
  for (int i = 0; i < 5; ++i)
    f.send();
  EXPECT_EQ(f.tx.sent(), 5U);
  EXPECT_EQ(f.tx.queued(), 0U);
  EXPECT_EQ(f.recorder.arrivals,
            (std::vector<std::int64_t>{kReception, kWire + kReception, 2 * kWire + kReception,
                                       3 * kWire + kReception, 4 * kWire + kReception}));
  EXPECT_EQ(f.recorder.lost, 0);
  EXPECT_EQ(f.world.report.drops.total(), 0U);
}

TEST(tx_queue, without_interrupts_a_frame_waiting_in_the_qdisc_needs_no_later_send) {
  Fixture f(1, 8, false);
  for (int i = 0; i < 3; ++i)
    f.send();
  f.advance_to(100'000);
  EXPECT_EQ(f.tx.queued(), 0U);
  EXPECT_EQ(f.tx.sent(), 3U);
  EXPECT_EQ(f.recorder.arrivals,
            (std::vector<std::int64_t>{kReception, kWire + kReception, 2 * kWire + kReception}));
}

TEST(tx_queue, drops_at_qdisc_full_when_ring_and_qdisc_are_full_and_tells_the_peer) {
  Fixture f(1, 2, false);
  for (int i = 0; i < 5; ++i)
    f.send();
  EXPECT_EQ(f.tx.sent(), 3U);  // one descriptor and two qdisc places
  EXPECT_EQ(f.drops(DropReason::qdisc_full), 2U);
  EXPECT_EQ(f.drops(DropReason::tx_ring_full), 0U);
  EXPECT_EQ(f.recorder.lost, 2);
  // Once the first frame left the wire there is room for one more.
  f.advance_to(kWire);
  f.send();
  f.send();
  EXPECT_EQ(f.tx.sent(), 4U);
  EXPECT_EQ(f.drops(DropReason::qdisc_full), 3U);
}

TEST(tx_queue, drops_at_tx_ring_full_with_txqueuelen_0) {
  Fixture f(2, 0, false);
  for (int i = 0; i < 3; ++i)
    f.send();
  EXPECT_EQ(f.tx.sent(), 2U);
  EXPECT_EQ(f.tx.queued(), 0U);
  EXPECT_EQ(f.drops(DropReason::tx_ring_full), 1U);
  EXPECT_EQ(f.drops(DropReason::qdisc_full), 0U);
  EXPECT_EQ(f.recorder.lost, 1);
  // Once both frames left the wire their descriptors are free again.
  f.advance_to(2 * kWire);
  f.send();
  EXPECT_EQ(f.tx.sent(), 3U);
}

TEST(tx_queue, without_interrupts_has_no_write_back_to_land) {
  Fixture f(4, 10, false);
  f.send();
  EXPECT_FALSE(f.tx.interrupts());
  EXPECT_EQ(f.tx.next_writeback(), Instant::max());
}

// ---- with Tx interrupts ------------------------------------------------------------------------

TEST(tx_queue, with_interrupts_descriptors_stay_taken_until_a_poll_cleans_them) {
  Fixture f(2, 0, true);
  f.send();
  f.send();
  f.advance_to(1'000'000);  // long after both frames left the wire
  f.send();
  EXPECT_EQ(f.drops(DropReason::tx_ring_full), 1U);
  EXPECT_EQ(f.tx.land_next(f.world.now()), at_ns(kWire));
  const TxQueue::Cleaned cleaned = f.tx.clean();
  EXPECT_EQ(cleaned.frames, 1U);
  f.send();
  EXPECT_EQ(f.tx.sent(), 3U);
  EXPECT_EQ(f.drops(DropReason::tx_ring_full), 1U);
}

TEST(tx_queue, land_next_returns_write_backs_in_order_at_frame_end_plus_dma_delay) {
  Fixture f(8, 0, true, nanoseconds(500));
  for (int i = 0; i < 3; ++i)
    f.send();
  // Frame k leaves the wire (inter-frame gap included) at (k + 1) x 672 ns.
  EXPECT_EQ(f.tx.next_writeback(), at_ns(kWire + 500));
  EXPECT_EQ(f.tx.land_next(at_ns(kWire + 499)), std::nullopt);
  EXPECT_EQ(f.tx.land_next(at_ns(kWire + 500)), at_ns(kWire + 500));
  EXPECT_EQ(f.tx.next_writeback(), at_ns(2 * kWire + 500));
  EXPECT_EQ(f.tx.land_next(at_ns(1'000'000)), at_ns(2 * kWire + 500));
  EXPECT_EQ(f.tx.land_next(at_ns(1'000'000)), at_ns(3 * kWire + 500));
  EXPECT_EQ(f.tx.land_next(at_ns(1'000'000)), std::nullopt);
  EXPECT_EQ(f.tx.next_writeback(), Instant::max());
}

TEST(tx_queue, clean_frees_only_written_back_descriptors_and_counts_their_bytes) {
  Fixture f(8, 0, true);
  f.tx.send_reply(Packet{0, 64, 0});
  f.tx.send_reply(Packet{0, 100, 0});
  f.tx.send_reply(Packet{0, 64, 0});
  EXPECT_EQ(f.tx.clean().frames, 0U);  // nothing written back yet
  f.tx.land_next(at_ns(1'000'000));
  f.tx.land_next(at_ns(1'000'000));
  const TxQueue::Cleaned cleaned = f.tx.clean();
  EXPECT_EQ(cleaned.frames, 2U);
  EXPECT_EQ(cleaned.bytes, 164U);
  EXPECT_TRUE(cleaned.finished);
  EXPECT_NE(f.tx.next_writeback(), Instant::max());  // the third is still in flight
}

TEST(tx_queue, clean_takes_at_most_the_work_limit_and_reports_unfinished_work_beyond_it) {
  const std::uint32_t n = kTxCleanLimit + 44;
  Fixture f(n, 0, true);
  for (std::uint32_t i = 0; i < n; ++i)
    f.send();
  while (f.tx.land_next(at_ns(1'000'000'000))) {
  }
  const TxQueue::Cleaned first = f.tx.clean();
  EXPECT_EQ(first.frames, kTxCleanLimit);
  EXPECT_EQ(first.bytes, 64U * kTxCleanLimit);
  EXPECT_FALSE(first.finished);
  const TxQueue::Cleaned second = f.tx.clean();
  EXPECT_EQ(second.frames, 44U);
  EXPECT_TRUE(second.finished);
}

TEST(tx_queue, clean_moves_frames_waiting_in_the_qdisc_onto_the_freed_descriptors) {
  Fixture f(2, 4, true);
  for (int i = 0; i < 4; ++i)
    f.send();
  EXPECT_EQ(f.tx.queued(), 2U);
  f.advance_to(2000);
  f.tx.land_next(f.world.now());
  f.tx.land_next(f.world.now());
  EXPECT_EQ(f.tx.clean().frames, 2U);
  EXPECT_EQ(f.tx.queued(), 0U);
  EXPECT_EQ(f.tx.sent(), 4U);
  // The wire has been idle since 1344 ns: the two go out from the clean, back to back.
  EXPECT_EQ(f.recorder.arrivals,
            (std::vector<std::int64_t>{kReception, kWire + kReception, 2000 + kReception,
                                       2000 + kWire + kReception}));
}

}  // namespace
}  // namespace irqmod::sim
