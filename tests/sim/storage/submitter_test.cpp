// One t/io_uring submitter thread (src/sim/storage/submitter.*, fio's t/io_uring.c as seed 003
// ran it) on one core and a drive, with round costs: each io_uring_enter submits
// min(depth - inflight, batch-submit) I/Os and waits only when the ring would be full
// (inflight + to_prep > depth, the prepared I/Os counted twice as t/io_uring does), for
// min(that, batch-complete) completions; batches are clamped to the depth; with interrupts the
// thread sleeps until completions are handed over (task work paid after a context switch, or on
// the next call's way in when it was running); with IOPOLL it polls the CQ itself and spins
// between CQEs; a wait for more than is in flight stops it.
#include "sim/storage/submitter.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/scenario_runs.hpp"
#include "sim/cpu/core.hpp"
#include "sim/storage/completion_path.hpp"
#include "sim/storage/drive.hpp"
#include "sim/storage/storage_bench.hpp"
#include "sim/storage/storage_report.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

Submitter::Costs submitter_costs() {
  const auto ns = [](std::int64_t n) { return Distribution::constant_ns(n); };
  // syscall, per I/O submitted, per I/O completed, an IOPOLL round, a CQE, a context switch
  return Submitter::Costs{ns(1'000), ns(100), ns(200), ns(300), ns(50), ns(2'000)};
}

// An interrupt handler at chosen instants: it reads the drive's CQ (nvme_poll_cq) and hands
// what it found to the thread (io_uring task work); whether that woke the thread.
struct TaskWorkSender {
  Drive* drive = nullptr;
  CompletionSink sink;
  int woke = 0;
  int found_running = 0;
  void on_event(const Event&) {
    const bool woken = sink.deliver(sink.self, drive->take_cq());
    ++(woken ? woke : found_running);
  }
};

struct SubmitterRig : test::StorageBench {
  SubmitterRig(StorageMode mode, std::uint32_t depth, std::uint32_t batch_submit,
               std::uint32_t batch_complete, std::int64_t service_ns, std::uint64_t iops = 0)
      : StorageBench(9),
        drive(world, 0, drive_settings(depth, service_ns, iops), Rng(9, 1)),
        submitter(core, drive, Submitter::Settings{mode, depth, batch_submit, batch_complete},
                  submitter_costs(), counters) {
    sender.drive = &drive;
    sender.sink = submitter.sink();
    sender_endpoint = world.engine.bind<&TaskWorkSender::on_event>(sender);
  }
  static Drive::Settings drive_settings(std::uint32_t depth, std::int64_t service_ns,
                                        std::uint64_t iops) {
    Drive::Settings s;
    s.iops = iops;
    s.service_time = Distribution::constant_ns(service_ns);
    s.slots = depth;
    return s;
  }
  void hand_over_at(std::int64_t ns) { world.engine.schedule(at_ns(ns), sender_endpoint, 1); }
  // The thread starts at time 0 and runs until `ns`.
  void run_from_start_to_ns(std::int64_t ns) {
    submitter.start();
    run_to_ns(ns);
  }
  Duration thread_time() const { return busy(ContextKind::thread); }

  Drive drive;
  Submitter submitter;
  TaskWorkSender sender;
  EndpointId sender_endpoint{};
};

constexpr std::int64_t kNeverNs = 1'000'000'000;  // a service time no test waits for

// A drive of 1M IOPS: the calls' I/Os (submitted at 1.4 and 2.8 us) complete at 2.4, 3.4, 4.4,
// 5.4, then 6.4 ... 9.4 us.
struct PacedDrive {
  static constexpr std::int64_t kServiceNs = 1'000;
  static constexpr std::uint64_t kIops = 1'000'000;
};

TEST(submitter, submits_in_batches_and_waits_only_once_the_ring_is_full) {
  SubmitterRig rig(StorageMode::interrupts, 8, 4, 4, kNeverNs);
  rig.run_from_start_to_ns(50'000);
  // The first call's 4 leave room for 4 more: no wait. The second fills the ring and waits for 4.
  EXPECT_EQ(rig.counters.submit_calls, 2U);
  EXPECT_EQ(rig.drive.submitted(), 8U);
  EXPECT_EQ(rig.counters.submitted, 8U);
  EXPECT_EQ(rig.submitter.inflight(), 8U);
  EXPECT_EQ(rig.submitter.to_wait(), 4U);
  EXPECT_FALSE(rig.submitter.stalled());
  EXPECT_EQ(rig.thread_time(), nanoseconds(2 * (1'000 + 4 * 100)));
}

TEST(submitter, a_waiting_thread_is_woken_by_each_hand_over_and_reaps_once_it_has_its_batch) {
  SubmitterRig rig(StorageMode::interrupts, 8, 4, 4, PacedDrive::kServiceNs, PacedDrive::kIops);
  rig.submitter.start();
  rig.hand_over_at(3'500);   // 2 CQEs, asleep: woken; runs 2 us + 2 x 0.2 us, sleeps again
  rig.hand_over_at(10'000);  // the other 6, asleep: woken; 8, more than the 4 it waits for
  rig.run_to_ns(50'000);
  EXPECT_EQ(rig.sender.woke, 2);
  EXPECT_EQ(rig.counters.completed, 8U);
  // Calls 3 and 4 submit the 8 reaped slots again (the first of them without a wait).
  EXPECT_EQ(rig.counters.submit_calls, 4U);
  EXPECT_EQ(rig.counters.submitted, 16U);
  EXPECT_EQ(rig.submitter.inflight(), 8U);  // the depth: never more
  EXPECT_EQ(rig.drive.in_device(), 8U);
  EXPECT_EQ(rig.submitter.unreaped(), 0U);
  EXPECT_EQ(rig.thread_time(), nanoseconds(4 * 1'400 + (2'000 + 2 * 200) + (2'000 + 6 * 200)));
}

TEST(submitter, completions_handed_over_while_it_runs_are_paid_on_the_next_calls_way_in) {
  SubmitterRig rig(StorageMode::interrupts, 8, 4, 4, PacedDrive::kServiceNs, PacedDrive::kIops);
  rig.submitter.start();
  rig.hand_over_at(3'500);  // 2 CQEs: woken; its task work runs [3.5, 5.9) us
  rig.hand_over_at(5'500);  // 2 more, running: no wake-up; 4 delivered, the batch is complete
  rig.run_to_ns(50'000);
  EXPECT_EQ(rig.sender.woke, 1);
  EXPECT_EQ(rig.sender.found_running, 1);
  EXPECT_EQ(rig.counters.completed, 4U);
  EXPECT_EQ(rig.counters.submit_calls, 3U);
  // calls 1 and 2; the task work (switch + 2 completions); call 3 with the other 2 completions
  EXPECT_EQ(rig.thread_time(),
            nanoseconds(2 * 1'400 + (2'000 + 2 * 200) + (1'000 + 4 * 100 + 2 * 200)));
}

TEST(submitter, batches_larger_than_the_depth_are_clamped_to_it) {
  SubmitterRig rig(StorageMode::interrupts, 2, 8, 8, kNeverNs);
  rig.run_from_start_to_ns(50'000);
  EXPECT_EQ(rig.counters.submit_calls, 1U);
  EXPECT_EQ(rig.drive.submitted(), 2U);
  EXPECT_EQ(rig.submitter.to_wait(), 2U);  // batch-complete 8 clamped to 2
  EXPECT_FALSE(rig.submitter.stalled());
}

TEST(submitter, a_wait_for_more_than_is_in_flight_stops_the_thread) {
  // depth 4, batch-submit 3, batch-complete 4: to_wait = min(3 + 3, 4) = 4 with 3 in flight.
  SubmitterRig rig(StorageMode::interrupts, 4, 3, 4, 1'000);
  rig.run_from_start_to_ns(50'000);
  EXPECT_TRUE(rig.submitter.stalled());
  EXPECT_EQ(rig.submitter.to_wait(), 4U);
  EXPECT_EQ(rig.submitter.inflight(), 3U);
  EXPECT_EQ(rig.counters.submit_calls, 1U);
}

TEST(submitter, iopoll_polls_the_cq_itself_and_spins_until_the_next_cqe) {
  SubmitterRig rig(StorageMode::polled, 4, 4, 4, 10'000);
  rig.submitter.start();
  // call [0, 1.4) us, I/Os in the drive until 11.4 us; a round [1.4, 1.7) finds nothing; spin
  // to 11.4; a round [11.4, 11.7) finds 4; their CQEs and completions [11.7, 12.7); call 2.
  rig.run_to_ns(13'000);
  EXPECT_EQ(rig.counters.completed, 4U);
  EXPECT_EQ(rig.counters.submit_calls, 2U);
  EXPECT_EQ(rig.counters.submitted, 4U);  // call 2 is still preparing
  EXPECT_EQ(rig.busy(ContextKind::busy_poll), nanoseconds(9'700));
  EXPECT_EQ(rig.thread_time(), nanoseconds(1'400 + 2 * 300 + 4 * (50 + 200)));
  rig.run_to_ns(14'100);
  EXPECT_EQ(rig.counters.submitted, 8U);
}

}  // namespace
}  // namespace irqmod::sim
