// A core's receive backlog (src/sim/host/backlog.*: netif_rx's softnet_data.input_pkt_queue and
// process_backlog; OpenBSD's ipintrq and ipintr), fed from an interrupt handler on one core: a
// frame is queued and the backlog's NAPI context scheduled on the core's NET_RX; its poll takes
// up to the weight from the head, charges process_backlog's fixed part and the stack per frame,
// and hands the frames up when its time has passed (with the device context's NAPI id), the
// rest waiting for the next pass; a full queue (netdev_max_backlog) refuses the frame.
#include "sim/host/backlog.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/stack.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

// An interrupt handler (100 ns) that ends with netif_rx: `frames` frames of `flow` to backlog
// target `target`, as NAPI context 5 took them; whether each was accepted.
struct NetifRxHandler {
  Backlog* backlog = nullptr;
  int frames = 0;
  std::uint32_t flow = 0;
  std::uint8_t target = 0;
  std::vector<bool> accepted;
  std::optional<Segment> start(Core&) {
    return Segment{nanoseconds(100), ContextKind::hardirq, "netif_rx"};
  }
  std::optional<Segment> next(Core& core) {
    for (int i = 0; i < frames; ++i)
      accepted.push_back(backlog->enqueue(Packet{ns_since_epoch(core.now()), 64, flow}, 5, target));
    return std::nullopt;
  }
};

// A waiter that counts its wake-ups.
struct BacklogWakeups {
  int count = 0;
  Waiter waiter() {
    return Waiter{[](void* self) { ++static_cast<BacklogWakeups*>(self)->count; }, this};
  }
};

// Two tuples, one core: tuple 0 to `socket` on `stack`, tuple 1 to `other_socket` on `other`.
struct BacklogRig {
  BacklogRig(std::uint32_t capacity, int weight)
      : backlog(
            world, net_rx, stack, capacity, weight,
            BacklogCosts{Distribution::constant_ns(1'000), Distribution::constant_ns(100), {}}) {
    world.report.cpu = CpuTime(1);
    world.report.cores.resize(1);
    stack.bind(0, socket, false, 0);
    other.bind(1, other_socket, false, 0);
    socket.set_waiter(wakeups.waiter());
    handler.backlog = &backlog;
  }
  // The handler runs now and queues `frames` frames.
  void interrupt(int frames, std::uint32_t flow = 0, std::uint8_t target = 0) {
    handler.frames = frames;
    handler.flow = flow;
    handler.target = target;
    core.push(job_of(handler), Level::hardirq);
  }
  void run_to_ns(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }

  World world;
  Core core{world, 0, Rng(11, 0), microseconds(3000)};
  NetRx net_rx{core, NetRx::Budget{}, 2};
  Peers peers = Peers(2);
  Stack stack{world, peers, 2, 1};
  Stack other{world, peers, 2, 1};
  Socket socket;
  Socket other_socket;
  BacklogWakeups wakeups;
  Backlog backlog;
  NetifRxHandler handler;
};

TEST(backlog, queued_frames_go_up_the_stack_once_the_backlog_poll_has_run) {
  BacklogRig rig(1000, 64);
  rig.interrupt(3);  // [0, 100) ns; then NET_RX: 1 us + 3 x 100 ns
  rig.run_to_ns(100);
  EXPECT_EQ(rig.backlog.size(), 3U);
  EXPECT_TRUE(rig.socket.empty());
  rig.run_to_ns(1'399);
  EXPECT_TRUE(rig.socket.empty());
  rig.run_to_ns(1'400);
  EXPECT_EQ(rig.socket.size(), 3U);
  EXPECT_EQ(rig.socket.napi_id(), 5U);  // the device context that received them (sk_napi_id)
  EXPECT_EQ(rig.backlog.size(), 0U);
  EXPECT_EQ(rig.wakeups.count, 1);  // once for the poll's batch
  EXPECT_EQ(rig.world.report.cores[0].polls, 1U);
  EXPECT_EQ(rig.world.report.cpu.busy(0, ContextKind::softirq), nanoseconds(1'300));
  EXPECT_EQ(rig.handler.accepted, (std::vector<bool>{true, true, true}));
}

TEST(backlog, a_poll_takes_at_most_the_weight_and_the_rest_waits_for_the_next_pass) {
  BacklogRig rig(1000, 4);
  rig.interrupt(10);
  rig.run_to_ns(100 + 1'400);  // the first poll: 1 us + 4 x 100 ns
  EXPECT_EQ(rig.socket.size(), 4U);
  EXPECT_EQ(rig.backlog.size(), 6U);
  rig.run_to_ns(100'000);
  EXPECT_EQ(rig.socket.size(), 10U);
  EXPECT_EQ(rig.world.report.cores[0].polls, 3U);  // 4 + 4 + 2
  EXPECT_EQ(rig.world.report.cpu.busy(0, ContextKind::softirq) +
                rig.world.report.cpu.busy(0, ContextKind::ksoftirqd),
            nanoseconds(3 * 1'000 + 10 * 100));
}

TEST(backlog, a_full_backlog_refuses_the_frame_for_the_caller_to_drop) {
  BacklogRig rig(4, 64);  // netdev_max_backlog = 4
  rig.interrupt(6);
  rig.run_to_ns(100);
  EXPECT_EQ(rig.handler.accepted, (std::vector<bool>{true, true, true, true, false, false}));
  EXPECT_EQ(rig.backlog.size(), 4U);
  rig.run_to_ns(100'000);
  EXPECT_EQ(rig.socket.size(), 4U);
  rig.interrupt(1);  // the poll emptied it: room again
  rig.run_to_ns(200'000);
  EXPECT_EQ(rig.handler.accepted.back(), true);
  EXPECT_EQ(rig.socket.size(), 5U);
}

TEST(backlog, each_frame_goes_up_the_stack_it_was_queued_for) {
  BacklogRig rig(1000, 64);
  const std::uint8_t other = rig.backlog.add_target(rig.other);
  EXPECT_EQ(other, 1U);
  rig.interrupt(2, 1, other);
  rig.run_to_ns(100'000);
  EXPECT_EQ(rig.other_socket.size(), 2U);
  EXPECT_TRUE(rig.socket.empty());
}

}  // namespace
}  // namespace irqmod::sim
