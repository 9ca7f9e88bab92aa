// The xdpsock sample's benchmarks (src/sim/xdp/xdpsock.*: samples/bpf/xdpsock_user.c as seed 002
// ran them) as a thread on core 1, over a zero-copy queue interrupting core 0: rxdrop takes
// batches of at most xdp.batch from the Rx ring and gives the buffers back to the fill ring;
// r-t-c makes no system call for Rx, and with need_wakeup calls recvfrom() when the fill ring's
// flag is set; poll() sleeps until the driver's data_ready wakes it; the RFC's busy poll
// busy-polls from poll() and never sleeps; txpush queues whole batches from frames not in flight
// and kicks Tx with sendto() while frames are outstanding; l2fwd sends every received frame back.
#include "sim/xdp/xdpsock.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario_runs.hpp"
#include "sim/cpu/core.hpp"
#include "sim/world.hpp"
#include "sim/xdp/xsk.hpp"
#include "sim/xdp/zc_bench.hpp"
#include "sim/xdp/zc_queue.hpp"

namespace irqmod::sim {
namespace {

Xdpsock::Costs xdpsock_costs() {
  const auto ns = [](std::int64_t n) { return Distribution::constant_ns(n); };
  // syscall, context switch, busy-poll iteration, per frame, cache line, poll()'s work, a socket
  // call's dispatch
  return Xdpsock::Costs{ns(1'000), ns(2'000), ns(200), ns(50), ns(0), ns(300), ns(400)};
}

Xdpsock::Settings xdpsock_settings(XdpApp app, XdpMethod method) {
  Xdpsock::Settings s;
  s.app = app;
  s.method = method;
  return s;
}

struct XdpsockRig : test::ZcBench {
  XdpsockRig(const Xdpsock::Settings& app_settings, const ZcQueue::Settings& queue_settings,
             std::uint64_t fill_frames = 2048)
      : ZcBench(queue_settings, fill_frames) {
    app.emplace(cores[1], xsk, *queue, app_settings, xdpsock_costs());
  }
  const Xdpsock::Counters& app_counters() const { return app->counters(); }

  std::optional<Xdpsock> app;
};

TEST(xdpsock, rxdrop_takes_batches_of_at_most_xdp_batch_and_refills_the_fill_ring) {
  XdpsockRig rig(xdpsock_settings(XdpApp::rxdrop, XdpMethod::rtc), test::zc_settings(0, false));
  rig.xsk.rx.produce(100, 0);  // frames the driver redirected, before the application starts
  const std::uint64_t fill_before = rig.xsk.fill.count;
  rig.app->start();
  rig.run_to_ns(3'199);
  EXPECT_EQ(rig.app_counters().received, 0U);
  rig.run_to_ns(3'200);  // 64 x 50 ns
  EXPECT_EQ(rig.app_counters().received, 64U);
  rig.run_to_ns(5'000);  // the other 36
  EXPECT_EQ(rig.app_counters().received, 100U);
  EXPECT_EQ(rig.xsk.rx.count, 0U);
  EXPECT_EQ(rig.xsk.fill.count, fill_before + 100U);
  EXPECT_EQ(rig.app->held(), 0U);
  EXPECT_EQ(rig.busy(1, ContextKind::thread), nanoseconds(5'000));
}

TEST(xdpsock, run_to_completion_receives_everything_without_a_system_call) {
  XdpsockRig rig(xdpsock_settings(XdpApp::rxdrop, XdpMethod::rtc), test::zc_settings(1));
  rig.app->start();
  rig.run_to_ns(1'000'000);
  EXPECT_EQ(rig.app_counters().syscalls, 0U);
  EXPECT_EQ(rig.app_counters().sleeps, 0U);
  EXPECT_GE(rig.app_counters().received, 990U);  // a frame every 1 us since 1 us
  EXPECT_EQ(rig.counters().no_buffer, 0U);
  EXPECT_EQ(rig.counters().kicks, 0U);
}

TEST(xdpsock, with_need_wakeup_rtc_calls_recvfrom_when_the_fill_ring_asks) {
  for (const bool need_wakeup : {true, false}) {
    Xdpsock::Settings settings = xdpsock_settings(XdpApp::rxdrop, XdpMethod::rtc);
    settings.need_wakeup = need_wakeup;
    // The ring's own buffers only: every refill finds the fill ring short and sets the flag.
    XdpsockRig rig(settings, test::zc_settings(100), 511);
    rig.app->start();
    rig.run_to_ns(1'000'000);
    EXPECT_GT(rig.counters().refill_misses, 0U);
    EXPECT_EQ(rig.app_counters().syscalls > 0, need_wakeup) << "need_wakeup " << need_wakeup;
    EXPECT_EQ(rig.counters().kicks, rig.app_counters().syscalls);  // each recvfrom() kicks
    EXPECT_GE(rig.app_counters().received, 9U);
  }
}

TEST(xdpsock, poll_sleeps_until_the_drivers_data_ready_wakes_it) {
  // One frame at 1 us, the next at 1001 us.
  XdpsockRig rig(xdpsock_settings(XdpApp::rxdrop, XdpMethod::poll), test::zc_settings(1'000));
  rig.app->start();
  rig.run_to_ns(500'000);
  // poll() slept, was woken by the frame's poll, took it, and sleeps again.
  EXPECT_EQ(rig.app_counters().received, 1U);
  EXPECT_EQ(rig.app_counters().sleeps, 2U);
  EXPECT_EQ(rig.app_counters().syscalls, 2U);
  // two poll() calls (1 us + 0.3 us each), the switch back after the sleep, the frame
  EXPECT_EQ(rig.busy(1, ContextKind::thread), nanoseconds(2 * 1'300 + 2'000 + 50));
}

TEST(xdpsock, the_rfcs_busy_poll_polls_the_queue_from_poll_and_never_sleeps) {
  Xdpsock::Settings settings = xdpsock_settings(XdpApp::rxdrop, XdpMethod::busypoll);
  settings.busy_usecs = 20;
  XdpsockRig rig(settings, test::zc_settings(1));
  rig.app->start();
  rig.run_to_ns(1'000'000);
  EXPECT_EQ(rig.app_counters().sleeps, 0U);
  EXPECT_GT(rig.world.report.cores[1].busy_polls, 0U);
  EXPECT_GT(rig.busy(1, ContextKind::busy_poll), Duration::zero());
  EXPECT_GE(rig.app_counters().received, 990U);
}

TEST(xdpsock, txpush_queues_whole_batches_from_frames_not_in_flight_and_kicks_tx) {
  Xdpsock::Settings settings = xdpsock_settings(XdpApp::txpush, XdpMethod::rtc);
  settings.frames = 128;  // two batches of 64
  XdpsockRig rig(settings, test::zc_settings(0));
  rig.app->start();
  rig.run_to_ns(6'400);  // two batches' work, 64 x 50 ns each, with a kick between them
  EXPECT_EQ(rig.app_counters().queued, 64U);
  rig.run_to_ns(1'000'000);
  EXPECT_EQ(rig.app_counters().queued % 64, 0U);
  EXPECT_GT(rig.app_counters().completed, 1'000U);
  EXPECT_LE(rig.app->outstanding(), 128U);
  EXPECT_EQ(rig.app_counters().queued - rig.app_counters().completed, rig.app->outstanding());
  EXPECT_GT(rig.app_counters().syscalls, 0U);
  EXPECT_EQ(rig.counters().kicks, rig.app_counters().syscalls);  // each sendto() kicks
  EXPECT_EQ(rig.app_counters().received, 0U);
}

TEST(xdpsock, l2fwd_sends_every_frame_it_receives_back_out) {
  XdpsockRig rig(xdpsock_settings(XdpApp::l2fwd, XdpMethod::rtc), test::zc_settings(2));
  rig.app->start();
  rig.run_to_ns(1'000'000);
  EXPECT_GE(rig.app_counters().received, 490U);  // a frame every 2 us
  EXPECT_EQ(rig.app_counters().queued, rig.app_counters().received);
  // Each one queued is completed, or on the Tx ring, in the driver or on the completion ring.
  EXPECT_EQ(rig.app_counters().completed + rig.xsk.tx.count + rig.queue->hw_tx_outstanding() +
                rig.queue->in_poll_tx() + rig.xsk.completion.count,
            rig.app_counters().queued);
  EXPECT_GT(rig.app_counters().completed, 0U);
}

}  // namespace
}  // namespace irqmod::sim
