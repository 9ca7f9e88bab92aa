// The NVMe-like drive of seed 003 (src/sim/storage/drive.*), built from its Settings on a World:
// each I/O completes no sooner than its service time after submission and no closer to the one
// before than the IOPS capacity allows, in order; a polled queue's CQEs wait in the CQ until they
// are read; an interrupting queue sends an MSI per CQE (CQEs of one instant share one), or with
// NVMe Interrupt Coalescing (Feature 08h) per THR + 1 CQEs or at the aggregation time's end,
// coalescing off when THR or TIME is 0; and it holds its slots' worth of I/Os. (A submission
// beyond the slots is refused by an assert in drive.cpp, which the Release library compiles out:
// the submitter's tests check that it never submits more than the depth.)
#include "sim/storage/drive.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/scenario_runs.hpp"
#include "sim/cpu/core.hpp"
#include "sim/storage/completion_path.hpp"
#include "sim/storage/storage_bench.hpp"
#include "sim/storage/storage_report.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint8_t kDriveVector = 0x20;  // FIRST_EXTERNAL_VECTOR: the first device vector

Drive::Settings drive_settings(std::int64_t service_ns, std::uint64_t iops = 0,
                               std::uint32_t slots = 32) {
  Drive::Settings s;
  s.iops = iops;
  s.service_time = Distribution::constant_ns(service_ns);
  s.slots = slots;
  return s;
}

// A drive whose CQ is polled (no completion path) or, after interrupting(), whose MSIs go to a
// core's remapped vector.
struct DriveRig : test::StorageBench {
  explicit DriveRig(const Drive::Settings& settings)
      : StorageBench(3), drive(world, 0, settings, Rng(3, 1)) {}
  void interrupting() {
    path.emplace(world, core, StorageMode::interrupts, CompletionPath::Costs{}, 3, counters, 0);
    path->add_vector(kDriveVector, drive,
                     CompletionSink{[](void*, std::uint32_t) { return false; }}, 0);
    drive.connect(*path, kDriveVector);
  }

  Drive drive;
  std::optional<CompletionPath> path;
};

TEST(drive, an_io_completes_after_its_service_time) {
  DriveRig rig(drive_settings(10'000));
  rig.drive.submit(1);
  EXPECT_EQ(rig.drive.next_completion(), at_ns(10'000));
  rig.run_to_ns(9'999);
  EXPECT_EQ(rig.drive.take_cq(), 0U);
  EXPECT_EQ(rig.drive.in_device(), 1U);
  rig.run_to_ns(10'000);
  EXPECT_EQ(rig.drive.take_cq(), 1U);
  EXPECT_EQ(rig.drive.in_device(), 0U);
  EXPECT_EQ(rig.drive.next_completion(), std::nullopt);
}

TEST(drive, completions_are_no_closer_together_than_its_iops_allow) {
  // 100 000 IOPS: one completion per 10 us, however short the service time.
  DriveRig rig(drive_settings(1'000, 100'000));
  rig.drive.submit(3);
  rig.run_to_ns(1'000);
  EXPECT_EQ(rig.drive.take_cq(), 1U);
  EXPECT_EQ(rig.drive.next_completion(), at_ns(11'000));
  rig.run_to_ns(10'999);
  EXPECT_EQ(rig.drive.take_cq(), 0U);
  rig.run_to_ns(21'000);
  EXPECT_EQ(rig.drive.take_cq(), 2U);
  EXPECT_EQ(rig.drive.submitted(), 3U);
  EXPECT_EQ(rig.drive.posted(), 3U);
}

TEST(drive, an_idle_drive_takes_the_service_time_not_the_capacitys_gap) {
  // The gap counts from the latest completion: 50 us after it, the drive is idle again.
  DriveRig rig(drive_settings(1'000, 100'000));
  rig.drive.submit(1);
  rig.run_to_ns(50'000);
  EXPECT_EQ(rig.drive.take_cq(), 1U);
  rig.drive.submit(1);
  EXPECT_EQ(rig.drive.next_completion(), at_ns(51'000));
}

TEST(drive, ios_complete_in_submission_order_whatever_their_drawn_service_times) {
  Drive::Settings settings = drive_settings(0);
  settings.service_time = Distribution{DistributionKind::uniform, 1'000, 100'000, 0};
  DriveRig rig(settings);
  for (int i = 0; i < 20; ++i) {
    rig.drive.submit(1);
    rig.run_to_ns(ns_since_epoch(rig.world.now()) + 2'000);
  }
  Instant last = at_ns(0);
  std::uint64_t taken = 0;
  while (const auto next = rig.drive.next_completion()) {
    EXPECT_GE(*next, last);
    last = *next;
    rig.run_to_ns(ns_since_epoch(*next));
    taken += rig.drive.take_cq();
  }
  EXPECT_EQ(taken, 20U);
  EXPECT_GT(last, at_ns(40'000));  // some service times were drawn long
}

TEST(drive, a_polled_queues_cqes_wait_in_the_cq_until_they_are_read) {
  DriveRig rig(drive_settings(1'000));
  rig.drive.submit(2);
  rig.run_to_ns(5'000);
  EXPECT_EQ(rig.drive.posted(), 0U);  // no event posts them: whoever reads the CQ lands them
  rig.drive.land();
  EXPECT_EQ(rig.drive.posted(), 2U);
  EXPECT_EQ(rig.drive.in_cq(), 2U);
  EXPECT_EQ(rig.drive.msis(), 0U);
  EXPECT_EQ(rig.drive.take_cq(), 2U);
  EXPECT_EQ(rig.drive.in_cq(), 0U);
}

TEST(drive, an_interrupting_queue_sends_an_msi_per_cqe_and_one_for_cqes_of_one_instant) {
  DriveRig apart(drive_settings(1'000, 1'000'000));  // 1 us apart
  apart.interrupting();
  apart.drive.submit(3);
  apart.run_to_ns(10'000);
  EXPECT_EQ(apart.drive.posted(), 3U);
  EXPECT_EQ(apart.drive.msis(), 3U);
  EXPECT_EQ(apart.path->msis(), 3U);

  DriveRig together(drive_settings(1'000));  // no capacity limit: all three at 1 us
  together.interrupting();
  together.drive.submit(3);
  together.run_to_ns(10'000);
  EXPECT_EQ(together.drive.posted(), 3U);
  EXPECT_EQ(together.drive.msis(), 1U);
}

TEST(drive, coalescing_sends_an_msi_per_threshold_plus_one_cqes_or_at_the_aggregation_time) {
  Drive::Settings settings = drive_settings(1'000, 1'000'000);
  settings.aggregation_threshold = 1;  // 0-based: two CQEs per interrupt
  settings.aggregation_time = microseconds(100);
  DriveRig rig(settings);
  rig.interrupting();
  rig.drive.submit(3);  // CQEs at 1, 2 and 3 us
  rig.run_to_ns(1'500);
  EXPECT_EQ(rig.drive.msis(), 0U);  // one CQE: below the threshold
  rig.run_to_ns(2'000);
  EXPECT_EQ(rig.drive.msis(), 1U);  // the second one: THR + 1 reached
  rig.run_to_ns(102'999);
  EXPECT_EQ(rig.drive.msis(), 1U);  // the third waits for the time that began at its CQE
  rig.run_to_ns(103'000);
  EXPECT_EQ(rig.drive.msis(), 2U);
  EXPECT_EQ(rig.drive.posted(), 3U);
}

TEST(drive, coalescing_is_off_when_the_threshold_or_the_time_is_zero) {
  Drive::Settings no_time = drive_settings(1'000, 1'000'000);
  no_time.aggregation_threshold = 7;
  Drive::Settings no_threshold = drive_settings(1'000, 1'000'000);
  no_threshold.aggregation_time = microseconds(100);
  for (const Drive::Settings& settings : {no_time, no_threshold}) {
    DriveRig rig(settings);
    rig.interrupting();
    rig.drive.submit(4);
    rig.run_to_ns(4'000);
    EXPECT_EQ(rig.drive.msis(), 4U);
  }
}

TEST(drive, it_holds_as_many_ios_as_its_slots_and_frees_them_as_they_complete) {
  DriveRig rig(drive_settings(1'000, 0, 2));
  rig.drive.submit(2);
  EXPECT_EQ(rig.drive.in_device(), 2U);
  rig.run_to_ns(1'000);
  EXPECT_EQ(rig.drive.take_cq(), 2U);
  rig.drive.submit(2);  // the slots are free again
  EXPECT_EQ(rig.drive.in_device(), 2U);
  rig.run_to_ns(2'000);
  EXPECT_EQ(rig.drive.take_cq(), 2U);
  EXPECT_EQ(rig.drive.submitted(), 4U);
}

}  // namespace
}  // namespace irqmod::sim
