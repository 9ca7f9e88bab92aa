// The stack: a polled frame goes to its tuple's socket, or with SO_INCOMING_CPU to the socket of
// the thread on the receiving core; a full socket drops and tells the peer; a batch wakes each
// socket that got data once; a reply leaves on the Tx queue XPS maps to the sending core, else
// on the one the tuple's hash picks.
#include "sim/host/stack.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "irqmod/sim/link.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/host/socket.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/tx_queue.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

// A waiter that counts its wake-ups.
struct Wakeups {
  int count = 0;
  Waiter waiter() {
    return Waiter{[](void* self) { ++static_cast<Wakeups*>(self)->count; }, this};
  }
};

// A peer that counts the losses it hears of.
struct Losses {
  int count = 0;
  PeerEndpoint endpoint() {
    PeerEndpoint e;
    e.lost = [](void* self, std::uint32_t) { ++static_cast<Losses*>(self)->count; };
    e.self = this;
    return e;
  }
};

// Four tuples, four cores, three sockets.
struct Fixture {
  Fixture() : peers(4, losses.endpoint()), stack(world, peers, 4, 4) {
    for (int i = 0; i < 3; ++i)
      sockets[i].set_waiter(wakeups[i].waiter());
  }
  Packet frame(std::uint32_t flow, std::uint32_t bytes = 64) { return Packet{0, bytes, flow}; }

  World world;
  Losses losses;
  Peers peers;
  Stack stack;
  Socket sockets[3];
  Wakeups wakeups[3];
};

TEST(stack, queues_a_frame_on_its_tuples_socket_and_remembers_the_napi_context) {
  Fixture f;
  f.stack.bind(0, f.sockets[0], false, 0);
  f.stack.bind(1, f.sockets[1], false, 0);
  f.stack.receive(f.frame(1), 3, 0);
  EXPECT_TRUE(f.sockets[0].empty());
  ASSERT_EQ(f.sockets[1].size(), 1U);
  EXPECT_EQ(f.sockets[1].front().flow, 1U);
  EXPECT_EQ(f.sockets[1].napi_id(), 3U);
  EXPECT_EQ(f.sockets[0].napi_id(), 0U);
}

TEST(stack, a_tuple_without_incoming_cpu_ignores_the_socket_of_the_receiving_core) {
  Fixture f;
  f.stack.bind_core(2, f.sockets[2]);
  f.stack.bind(0, f.sockets[0], false, 0);
  f.stack.receive(f.frame(0), 1, 2);
  EXPECT_EQ(f.sockets[0].size(), 1U);
  EXPECT_TRUE(f.sockets[2].empty());
}

TEST(stack, incoming_cpu_delivers_to_the_socket_bound_to_the_receiving_core) {
  Fixture f;
  f.stack.bind_core(1, f.sockets[1]);
  f.stack.bind_core(2, f.sockets[2]);
  f.stack.bind(0, f.sockets[0], true, 0);
  f.stack.receive(f.frame(0), 1, 2);
  f.stack.receive(f.frame(0), 1, 1);
  EXPECT_TRUE(f.sockets[0].empty());
  EXPECT_EQ(f.sockets[1].size(), 1U);
  EXPECT_EQ(f.sockets[2].size(), 1U);
}

TEST(stack, incoming_cpu_falls_back_to_the_tuples_socket_on_a_core_without_a_thread) {
  Fixture f;
  f.stack.bind_core(1, f.sockets[1]);
  f.stack.bind(0, f.sockets[0], true, 0);
  f.stack.receive(f.frame(0), 1, 3);
  EXPECT_EQ(f.sockets[0].size(), 1U);
  EXPECT_TRUE(f.sockets[1].empty());
}

TEST(stack, a_core_keeps_the_first_socket_bound_to_it) {
  Fixture f;
  f.stack.bind_core(1, f.sockets[1]);
  f.stack.bind_core(1, f.sockets[2]);
  f.stack.bind(0, f.sockets[0], true, 0);
  f.stack.receive(f.frame(0), 1, 1);
  EXPECT_EQ(f.sockets[1].size(), 1U);
  EXPECT_TRUE(f.sockets[2].empty());
}

TEST(stack, a_full_socket_drops_as_socket_queue_full_and_reports_the_loss_to_the_peer) {
  Fixture f;
  f.stack.bind(0, f.sockets[0], false, 0);
  // 141 frames of 1500 bytes fit in rmem_default (211 500 of 212 992 bytes); the 142nd does not.
  for (int i = 0; i < 141; ++i)
    f.stack.receive(f.frame(0, 1500), 1, 0);
  EXPECT_EQ(f.world.report.drops.count(DropReason::socket_queue_full), 0U);
  f.stack.receive(f.frame(0, 1500), 1, 0);
  EXPECT_EQ(f.sockets[0].size(), 141U);
  EXPECT_EQ(f.world.report.drops.count(DropReason::socket_queue_full), 1U);
  EXPECT_EQ(f.losses.count, 1);
  f.stack.receive(f.frame(0, 64), 1, 0);  // a small frame still fits
  EXPECT_EQ(f.sockets[0].size(), 142U);
}

TEST(stack, end_batch_wakes_each_socket_that_got_data_once) {
  Fixture f;
  f.stack.bind(0, f.sockets[0], false, 0);
  f.stack.bind(1, f.sockets[1], false, 0);
  f.stack.bind(2, f.sockets[0], false, 0);
  f.stack.receive(f.frame(0), 1, 0);
  f.stack.receive(f.frame(1), 1, 0);
  f.stack.receive(f.frame(2), 1, 0);
  f.stack.receive(f.frame(0), 1, 0);
  EXPECT_EQ(f.wakeups[0].count, 0);  // not before the batch ends
  f.stack.end_batch();
  EXPECT_EQ(f.wakeups[0].count, 1);
  EXPECT_EQ(f.wakeups[1].count, 1);
  EXPECT_EQ(f.wakeups[2].count, 0);
  f.stack.end_batch();  // an empty batch wakes nobody
  EXPECT_EQ(f.wakeups[0].count, 1);
  EXPECT_EQ(f.wakeups[1].count, 1);
}

TEST(stack, a_frame_dropped_at_the_socket_wakes_nobody) {
  Fixture f;
  f.stack.bind(0, f.sockets[0], false, 0);
  for (int i = 0; i < 141; ++i)
    f.stack.receive(f.frame(0, 1500), 1, 0);
  f.stack.end_batch();
  ASSERT_EQ(f.wakeups[0].count, 1);
  f.stack.receive(f.frame(0, 1500), 1, 0);
  f.stack.end_batch();
  EXPECT_EQ(f.wakeups[0].count, 1);
}

// Two Tx queues on one wire; the stack's tuples have the hashes 6 and 7.
struct TxFixture : Fixture {
  TxFixture() {
    for (std::uint32_t q = 0; q < 2; ++q)
      tx.emplace_back(world, q, 16, 16, false, Duration::zero(), wire, peers);
    stack.set_tx_queues({&tx[0], &tx[1]});
    stack.bind(0, sockets[0], false, 6);
    stack.bind(1, sockets[0], false, 7);
  }
  Link wire{1'000'000'000};
  std::deque<TxQueue> tx;
};

TEST(stack, send_reply_uses_the_tx_queue_of_the_sending_core_when_there_is_one) {
  TxFixture f;
  f.stack.send_reply(f.frame(0), 1);  // the hash would pick queue 0
  EXPECT_EQ(f.tx[0].sent(), 0U);
  EXPECT_EQ(f.tx[1].sent(), 1U);
  f.stack.send_reply(f.frame(1), 0);  // the hash would pick queue 1
  EXPECT_EQ(f.tx[0].sent(), 1U);
  EXPECT_EQ(f.tx[1].sent(), 1U);
}

TEST(stack, send_reply_from_a_core_beyond_the_queues_picks_the_tuple_hash_modulo_queues) {
  TxFixture f;
  f.stack.send_reply(f.frame(0), 3);  // 6 mod 2
  EXPECT_EQ(f.tx[0].sent(), 1U);
  EXPECT_EQ(f.tx[1].sent(), 0U);
  f.stack.send_reply(f.frame(1), 2);  // 7 mod 2
  f.stack.send_reply(f.frame(1), 3);
  EXPECT_EQ(f.tx[0].sent(), 1U);
  EXPECT_EQ(f.tx[1].sent(), 2U);
}

}  // namespace
}  // namespace irqmod::sim
