// Seed 003 (posted MSI, Jens Axboe's test of the series): four gen2 Optane drives, one t/io_uring
// thread per drive, random 512 B reads, polled vs interrupts vs posted MSI, on the shipped
// scenarios (platform xeon-nvme: five numbers fitted or constrained on one row, 003-interrupts'
// IOPS: cpu.irq-entry fitted on it after cpu.uring-submit, nvme-cqe, uring-complete and
// uring-poll were moved down from mid-range to make it reachable, a second fit on that row).
// "ints/sec" is read as the interrupts the CPUs took: vector interrupts, or with posted MSI the
// notifications (PMN in /proc/interrupts); the handler calls (vmstat's reading) are a miss too.
//
// What the seed says and what the model gives (docs/seeds.md, "Seed 003 in detail"):
//   polled        20.36 M IOPS             20.40 M: the drives' 5.1 M each (the seed's own
//                                          figure, so a weak prediction: polling has CPU to spare)
//   interrupts    14.37 M IOPS at 2.82 M/s 14.35 M (FITTED) at 3.51 M/s: +25 %, a miss, pinned
//   posted MSI    14.90 M IOPS at 2.34 M/s 14.66 M (-1.6 %) at 2.00 M/s (-15 %), pinned
//   the ordering  polled > posted > interrupts, fewer interrupts with posted MSI: holds
//   gen5, ~200k/s 30-50 % fewer            24 % fewer with each vector on its thread's CPU (a
//                                          miss, pinned; the load was chosen for ~200k/s);
//                                          EXPLORATORY, tried after that miss: 32 % with four
//                                          vectors sharing a CPU;
//                                          IOPS unchanged within 1 % (the CPUs are not saturated)
//   the author's  "coalescing depends on   notifications / device MSIs falls from 0.25 to 0.02
//   point         how long the handler     as the handler's run time grows from 0 to 2 us
//                 runs"
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/shared_runs.hpp"
#include "sim/storage/storage_report.hpp"

namespace irqmod::sim {
namespace {

// A run shared by the suite's tests (shared_runs.hpp): several read the same scenario.
const RunReport& run_shipped(const std::string& name, const std::vector<std::string>& sets = {}) {
  return test::shared_run(std::string(IRQMOD_SCENARIO_DIR) + "/seeds/" + name, sets);
}

double per_second(std::uint64_t n, const RunReport& r) {
  return static_cast<double>(n) / (static_cast<double>(r.sim_time.count()) / 1e9);
}
double iops(const RunReport& r) {
  return per_second(r.storage->completed, r);
}
double interrupts(const RunReport& r) {
  return per_second(r.interrupts.total(), r);
}

TEST(seed_003, polled_beats_posted_msi_which_beats_interrupts_with_fewer_interrupts) {
  const RunReport& polled = run_shipped("003-polled.toml");
  const RunReport& irq = run_shipped("003-interrupts.toml");
  const RunReport& posted = run_shipped("003-posted-msi.toml");
  EXPECT_GT(iops(polled), iops(posted));
  EXPECT_GT(iops(posted), iops(irq));
  EXPECT_LT(interrupts(posted), interrupts(irq));
  EXPECT_EQ(polled.interrupts.total(), 0u);

  // Polled: the drives' capacity, 4 x 5.1 M (seed 20.36 M).
  EXPECT_NEAR(iops(polled), 20.36e6, 0.01 * 20.36e6);
  // The fitted row: 14.37 M within the runs' spread.
  EXPECT_NEAR(iops(irq), 14.37e6, 0.01 * 14.37e6);
  // Predicted: posted MSI's IOPS within 3 % of the seed's 14.90 M (the model: -1.6 %), its
  // gain over interrupts +2.2 % (seed +3.7 %).
  EXPECT_NEAR(iops(posted), 14.90e6, 0.03 * 14.90e6);
  const double gain = iops(posted) / iops(irq) - 1;
  EXPECT_GT(gain, 0.01);
  EXPECT_LT(gain, 0.04);
}

TEST(seed_003, the_interrupt_rates_are_a_finding_too_many_vector_interrupts_too_few_notifications) {
  const RunReport& irq = run_shipped("003-interrupts.toml");
  const RunReport& posted = run_shipped("003-posted-msi.toml");
  // MISS, pinned: the model takes 3.51 M interrupts/s where the seed has 2.82 M (+25 %): at the
  // fitted entry cost each interrupt handles 4.1 CQEs, the seed's 5.1. The one number fitted
  // sets the IOPS, not the batch per interrupt; what sets that (how long the handler and the
  // thread's wake-up take per interrupt against 196 ns between CQEs) is estimated, and the
  // seed's machine spends more per interrupt and less per I/O than the estimates.
  EXPECT_GT(interrupts(irq), 1.20 * 2.82e6);
  EXPECT_LT(interrupts(irq), 1.30 * 2.82e6);
  // Under vmstat's reading (per-vector handler calls; PMN is not in /proc/stat's intr) the posted
  // row would be 7.78 M/s, x3.3 of the seed: 1.9 CQEs per handler call against 4.1 with
  // interrupts. A finding, pinned.
  EXPECT_NEAR(per_second(posted.storage->handler_calls, posted) / 2.34e6, 3.32, 0.1);
  EXPECT_NEAR(iops(irq) / per_second(irq.storage->handler_calls, irq), 4.1, 0.1);
  EXPECT_NEAR(iops(posted) / per_second(posted.storage->handler_calls, posted), 1.9, 0.1);
  // MISS, pinned: with posted MSI 2.00 M notifications/s where the seed has 2.34 M (-15 %); the
  // model's reduction (-43 %) is larger than the seed's (-17 %), the same excess of MSIs per
  // handler: one vector per CPU coalesces only with itself, so the reduction comes from MSIs
  // that arrive while its own handler runs, which the too-short handler and entry make many.
  EXPECT_GT(interrupts(posted), 0.80 * 2.34e6);
  EXPECT_LT(interrupts(posted), 0.90 * 2.34e6);
  const double reduction = 1 - interrupts(posted) / interrupts(irq);
  EXPECT_GT(reduction, 0.35);
  EXPECT_LT(reduction, 0.50);
}

TEST(seed_003, coalescing_grows_with_how_long_the_handlers_run) {
  // The seed's author: the demux loop does not wait for MSIs, so coalescing depends on how long
  // the drivers' handlers run. Sweep cpu.nvme-irq (the handler's fixed part) on the posted-MSI
  // scenario: the share of device MSIs that cost a notification falls monotonically.
  double previous = 2;
  for (const char* ns : {"0", "100", "250", "500", "1000", "2000"}) {
    const RunReport& r = run_shipped("003-posted-msi.toml",
                                     {std::string("cpu.nvme-irq=") + ns, "scenario.duration=30ms"});
    const double ratio =
        static_cast<double>(r.storage->notifications) / static_cast<double>(r.storage->device_msis);
    std::printf("nvme-irq %5s ns: %.2f M MSIs/s, %.3f M notifications/s, ratio %.3f\n", ns,
                per_second(r.storage->device_msis, r) / 1e6,
                per_second(r.storage->notifications, r) / 1e6, ratio);
    EXPECT_LT(ratio, previous) << "nvme-irq " << ns;
    previous = ratio;
  }
  EXPECT_LT(previous, 0.05);
}

TEST(seed_003, gen5_at_about_200k_interrupts_fewer_interrupts_and_no_iops_gain) {
  const RunReport& irq = run_shipped("003-gen5-interrupts.toml");
  const RunReport& posted = run_shipped("003-gen5-posted-msi.toml");
  // The load was chosen for ~200k interrupts/s (the seed's rate); the model gives 175k.
  EXPECT_NEAR(interrupts(irq), 200e3, 0.15 * 200e3);
  const double reduction = 1 - interrupts(posted) / interrupts(irq);
  std::printf(
      "gen5, a vector per thread CPU: %.0f -> %.0f interrupts/s, %.1f %% fewer (seed: "
      "30-50 %%)\n",
      interrupts(irq), interrupts(posted), 100 * reduction);
  // MISS, pinned: 24 % fewer, below the seed's 30-50 %, with one vector per CPU (the Optane
  // rows' assumption). The reduction comes from completions of the thread's other I/Os landing
  // while the handler runs.
  EXPECT_GT(reduction, 0.18);
  EXPECT_LT(reduction, 0.30);
  // Where the CPU is not saturated, posted MSI saves interrupts but gains no IOPS.
  EXPECT_NEAR(iops(posted) / iops(irq), 1.0, 0.02);
  for (std::size_t c = 0; c < irq.cpu.cores(); ++c)
    EXPECT_LT(per_second(irq.cpu.busy(c).count(), irq) / 1e9, 0.5) << "core " << c;

  // EXPLORATORY, not a prediction: this second placement (all four vectors on CPU 0, the threads
  // elsewhere) was tried after the first placement missed. Vectors coalesce with each other and
  // the reduction falls in the seed's band; that shows the band is reachable, not that the
  // seed's setup was this one. Pinned so that a change to it is seen.
  const RunReport& irq0 = run_shipped("003-gen5-interrupts.toml", {"storage.irq-cores=0"});
  const RunReport& posted0 = run_shipped("003-gen5-posted-msi.toml", {"storage.irq-cores=0"});
  const double shared = 1 - interrupts(posted0) / interrupts(irq0);
  std::printf("gen5, four vectors on CPU 0: %.0f -> %.0f interrupts/s, %.1f %% fewer\n",
              interrupts(irq0), interrupts(posted0), 100 * shared);
  EXPECT_GT(shared, 0.30);
  EXPECT_LT(shared, 0.50);
  EXPECT_NEAR(iops(posted0) / iops(irq0), 1.0, 0.02);
}

}  // namespace
}  // namespace irqmod::sim
