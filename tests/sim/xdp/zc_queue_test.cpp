// One queue pair in AF_XDP zero-copy mode (src/sim/xdp/zc_queue.*: i40e's i40e_xsk.c as seed
// 002 ran it), on two cores (interrupts on core 0), with the test as the application: it fills
// and drains the socket's rings itself and, where a test needs a poll at a chosen time, busy-polls
// from a core. The ring takes its buffers from the fill ring with one descriptor kept empty;
// frames without a buffer are dropped; a poll redirects up to its budget into the socket's Rx ring
// (a full one drops and recycles the buffer) and refills once, setting need_wakeup when the fill
// ring is short; interrupts are throttled to rx-usecs; a kick schedules the idle context through
// a software interrupt; Tx sends up to xdp.tx-budget as the rings have room, completions after
// the wire; a poll that did not finish off the interrupt's core forces a write-back interrupt.
#include "sim/xdp/zc_queue.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "irqmod/sim/metrics.hpp"
#include "sim/cpu/core.hpp"
#include "sim/world.hpp"
#include "sim/xdp/xsk.hpp"
#include "sim/xdp/zc_bench.hpp"

namespace irqmod::sim {
namespace {

using test::zc_settings;

// A thread that busy-polls the queue once (napi_busy_loop for one turn, then busy_poll_stop's
// final poll), both with `budget`, as xdpsock's poll() does in a busy-polling run.
struct ZcBusyPoller {
  ZcQueue* queue = nullptr;
  int budget = 0;
  bool turn_done = false;
  std::optional<Segment> start(Core& core) {
    turn_done = false;
    if (!queue->busy_acquire(false)) return std::nullopt;
    return Segment{queue->busy_poll_begin(budget, core), ContextKind::busy_poll, "busy poll"};
  }
  std::optional<Segment> next(Core& core) {
    if (turn_done) {
      queue->final_poll_end(core);
      return std::nullopt;
    }
    queue->busy_poll_end(core);
    turn_done = true;
    return Segment{queue->busy_poll_stop(false, budget, core), ContextKind::busy_poll, "busy poll"};
  }
};

struct ZcRig : test::ZcBench {
  explicit ZcRig(const ZcQueue::Settings& settings, std::uint64_t fill_frames = 2048)
      : ZcBench(settings, fill_frames) {
    poller.queue = &*queue;
    poller_thread = cores[1].add_thread(job_of(poller), false);
  }
  // Core 1's thread busy-polls once with `budget`, from now.
  void busy_poll(int budget) {
    poller.budget = budget;
    cores[1].wake(poller_thread);
  }

  ZcBusyPoller poller;
  std::uint32_t poller_thread = 0;
};

TEST(zc_queue, starts_with_the_rings_buffers_from_the_fill_ring_one_descriptor_kept_empty) {
  ZcRig rig(zc_settings(0, false));
  EXPECT_EQ(rig.queue->rx_posted(), 511U);
  EXPECT_EQ(rig.xsk.fill.count, 2048U - 511U);
}

TEST(zc_queue, frames_land_on_posted_buffers_and_without_one_are_dropped) {
  ZcRig rig(zc_settings(1, false), 10);
  rig.run_to_ns(15'000);  // arrivals at 1, 2, ... 15 us
  rig.queue->land();
  EXPECT_EQ(rig.counters().arrived, 15U);
  EXPECT_EQ(rig.counters().no_buffer, 5U);
  EXPECT_EQ(rig.queue->rx_written(), 10U);
  EXPECT_EQ(rig.queue->rx_posted(), 0U);
}

TEST(zc_queue, an_interrupt_polls_the_frame_into_the_sockets_rx_ring_and_refills) {
  ZcRig rig(zc_settings(1'000));  // one frame at 1 us, the next at 1001 us
  rig.run_to_ns(100'000);
  EXPECT_EQ(rig.counters().interrupts, 1U);
  EXPECT_EQ(rig.world.report.cores[0].device_irqs, 1U);
  EXPECT_EQ(rig.world.report.cores[0].polls, 1U);
  EXPECT_EQ(rig.counters().redirected, 1U);
  EXPECT_EQ(rig.xsk.rx.count, 1U);
  EXPECT_EQ(rig.queue->rx_posted(), 511U);  // the used buffer replaced from the fill ring
  EXPECT_FALSE(rig.xsk.fill_needs_wakeup);
  // entry + handler, then the poll: its fixed part and one frame
  EXPECT_EQ(rig.busy(0, ContextKind::hardirq), nanoseconds(1'000));
  EXPECT_EQ(rig.busy(0, ContextKind::softirq), nanoseconds(1'010));
}

TEST(zc_queue, interrupts_come_no_sooner_than_rx_usecs_after_the_last) {
  ZcQueue::Settings settings = zc_settings(1);
  settings.itr = microseconds(50);
  ZcRig rig(settings);
  rig.run_to_ns(150'999);
  EXPECT_EQ(rig.counters().interrupts, 3U);  // at 1, 51 and 101 us
  rig.run_to_ns(151'000);
  EXPECT_EQ(rig.counters().interrupts, 4U);
  EXPECT_EQ(rig.counters().no_buffer, 0U);
}

TEST(zc_queue, a_short_fill_ring_sets_need_wakeup_and_a_kick_polls_and_refills) {
  ZcRig rig(zc_settings(1'000), 511);  // no buffer beyond the ring's own
  rig.run_to_ns(100'000);
  EXPECT_EQ(rig.counters().redirected, 1U);
  EXPECT_EQ(rig.counters().refill_misses, 1U);
  EXPECT_TRUE(rig.xsk.fill_needs_wakeup);
  EXPECT_EQ(rig.queue->rx_posted(), 510U);
  // The application gives the frame back and calls recvfrom(): ndo_xsk_wakeup.
  rig.xsk.rx.consume(1);
  rig.xsk.fill.produce(1, 1);
  rig.queue->kick();
  rig.run_to_ns(200'000);
  EXPECT_EQ(rig.counters().kicks, 1U);
  EXPECT_EQ(rig.counters().interrupts, 2U);  // the software interrupt
  EXPECT_EQ(rig.queue->rx_posted(), 511U);
  EXPECT_FALSE(rig.xsk.fill_needs_wakeup);
}

TEST(zc_queue, a_full_rx_ring_drops_the_frame_and_recycles_its_buffer) {
  ZcRig rig(zc_settings(1, false));
  rig.xsk.rx.size = 2;
  rig.run_to_ns(3'000);  // three frames written back
  rig.busy_poll(64);
  rig.run_to_ns(10'000);
  EXPECT_EQ(rig.counters().redirected, 2U);
  EXPECT_EQ(rig.counters().rx_ring_full, 1U);
  // Two refilled, one recycled: every descriptor has a buffer again (one more frame landed on
  // one during the final poll).
  EXPECT_EQ(rig.queue->rx_posted() + rig.queue->rx_written(), 511U);
  EXPECT_EQ(rig.xsk.fill.count, 2048U - 511U - 2U);
}

TEST(zc_queue, a_poll_takes_no_more_than_its_budget) {
  ZcRig rig(zc_settings(1, false));
  rig.run_to_ns(20'000);                        // twenty frames written back
  ASSERT_TRUE(rig.queue->busy_acquire(false));  // the test's own poll, step by step
  rig.queue->busy_poll_begin(8, rig.cores[1]);
  EXPECT_EQ(rig.queue->in_poll_rx(), 8U);
  EXPECT_EQ(rig.queue->rx_written(), 12U);
  rig.queue->busy_poll_end(rig.cores[1]);
  EXPECT_EQ(rig.xsk.rx.count, 8U);
}

TEST(zc_queue, tx_sends_up_to_its_budget_and_completes_after_the_wire) {
  ZcRig rig(zc_settings(0, false));
  rig.xsk.tx.produce(300, 1);
  rig.busy_poll(64);     // the turn sends 256 (2.56 us of work), the final poll the other 44
  rig.run_to_ns(5'000);  // the wire is busy until 32.56 us
  EXPECT_EQ(rig.counters().sent, 256U + 44U);
  EXPECT_EQ(rig.xsk.tx.count, 0U);
  EXPECT_EQ(rig.xsk.completion.count, 0U);
  EXPECT_EQ(rig.queue->hw_tx_outstanding(), 300U);
  rig.run_to_ns(40'000);  // 300 x 100 ns on the wire since about 1 us
  rig.busy_poll(64);
  rig.run_to_ns(50'000);
  EXPECT_EQ(rig.xsk.completion.count, 300U);
  EXPECT_EQ(rig.queue->hw_tx_outstanding(), 0U);
}

TEST(zc_queue, tx_waits_for_room_on_the_completion_ring) {
  ZcRig rig(zc_settings(0, false));
  rig.xsk.completion.size = 4;  // a completion is reserved per descriptor sent
  rig.xsk.tx.produce(10, 1);
  rig.busy_poll(64);
  rig.run_to_ns(10'000);
  EXPECT_EQ(rig.counters().sent, 4U);
  EXPECT_EQ(rig.xsk.tx.count, 6U);
}

// i40e_napi_poll's off-affinity branch (the 2019 driver): a poll that used its budget on a core
// other than the interrupt's returns budget - 1 and forces a write-back interrupt, so NAPI stops
// polling there and the interrupt brings the context back to the vector's core. Without the
// branch the full budget makes NAPI poll again on the busy poller's core, in its NET_RX.
TEST(zc_queue, an_unfinished_poll_off_the_interrupts_core_gives_the_context_back_to_it) {
  for (const bool force_wb : {true, false}) {
    ZcQueue::Settings settings = zc_settings(1);
    settings.itr = microseconds(1'000);  // after the first interrupt (1 us), the next at 1001 us
    settings.off_affinity_force_wb = force_wb;
    ZcRig rig(settings);
    rig.run_to_ns(20'000);
    ASSERT_EQ(rig.counters().interrupts, 1U);
    rig.busy_poll(8);  // 19 frames wait: the budget is used
    rig.run_to_ns(1'000'000);
    const CoreCounters& off = rig.world.report.cores[1];
    EXPECT_EQ(off.polls - off.busy_polls, force_wb ? 0U : 1U) << "force_wb " << force_wb;
    rig.run_to_ns(1'001'000);
    EXPECT_EQ(rig.counters().interrupts, 2U) << "force_wb " << force_wb;
  }
}

}  // namespace
}  // namespace irqmod::sim
