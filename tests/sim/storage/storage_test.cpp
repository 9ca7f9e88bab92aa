// The storage model of seed 003 (src/sim/storage/): drives, the t/io_uring submitter, and the
// completion paths (polled, remapped vectors, posted MSI), checked on small scenarios with
// constant costs. The seed's own numbers are in seed_003_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"
#include "sim/storage/storage_report.hpp"

namespace irqmod::sim {
namespace {

// Two drives, each with its thread and vector on its own core; costs of the order of
// platforms/xeon-nvme.toml, written out so that the test does not move with the platform.
constexpr const char* kBase = R"(
[scenario]
duration = "10ms"
[cpu]
cores = 2
irq-entry = 600
nvme-irq = 150
nvme-cqe = 20
uring-submit = 30
uring-complete = 20
uring-poll = 40
pir-scan = 30
syscall = 100
wakeup = 400
context-switch = 600
[storage]
drives = 2
thread-cores = "0-1"
irq-cores = "0-1"
)";

LoadResult load(std::vector<std::string> sets, const char* text = kBase) {
  return load_scenario_text(text, "storage.toml", test::costs_only(text, sets));
}

RunReport run(std::vector<std::string> sets, const char* text = kBase) {
  LoadResult s = load(std::move(sets), text);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().what());
  auto r = simulate(s.value());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

std::string json_of(const RunReport& r) {
  std::ostringstream out;
  write_json(out, r);
  return out.str();
}

double per_second(std::uint64_t n, const RunReport& r) {
  return static_cast<double>(n) / (static_cast<double>(r.sim_time.count()) / 1e9);
}

TEST(storage, a_polled_run_takes_no_interrupt_and_keeps_its_cores_busy) {
  const RunReport r = run({"storage.mode=polled"});
  ASSERT_TRUE(r.storage);
  EXPECT_EQ(r.storage->device_msis, 0u);
  EXPECT_EQ(r.interrupts.total(), 0u);
  for (std::size_t c = 0; c < 2; ++c)
    EXPECT_EQ(r.cpu.busy(c), r.sim_time) << "core " << c;
  // Drive-bound: 5.1 M IOPS each.
  EXPECT_NEAR(per_second(r.storage->completed, r), 2 * 5.1e6, 0.02 * 2 * 5.1e6);
  EXPECT_EQ(r.delivered_packets, r.storage->completed);
}

TEST(storage, a_drive_never_completes_faster_than_its_iops_capacity) {
  for (const char* iops : {"storage.iops=1000000", "storage.iops=3000000"}) {
    const RunReport r = run({"storage.mode=polled", iops});
    const double limit = 2 * std::stod(std::string(iops).substr(13));
    EXPECT_LE(per_second(r.storage->completed, r), limit * 1.001) << iops;
    EXPECT_GT(per_second(r.storage->completed, r), limit * 0.98) << iops;
  }
}

TEST(storage, a_lone_io_completes_after_its_service_time) {
  // Queue depth 1: one I/O at a time, so the rate is 1 / (service time + the CPU's share).
  const RunReport r = run({"storage.mode=polled", "storage.queue-depth=1", "storage.batch-submit=1",
                           "storage.batch-complete=1", "storage.service-time=50us"});
  const double per_drive = per_second(r.storage->completed, r) / 2;
  EXPECT_LT(per_drive, 1e6 / 50.0);
  EXPECT_GT(per_drive, 1e6 / 51.0);
}

TEST(storage, interrupts_are_taken_per_vector_and_msis_during_the_handler_are_merged) {
  const RunReport r = run({"storage.mode=interrupts"});
  const StorageCounters& s = *r.storage;
  // No aggregation: a device MSI per CQE (all but the last few, still in the drives' CQs).
  EXPECT_GE(s.device_msis + 256, s.completed);
  EXPECT_EQ(s.notifications, 0u);
  EXPECT_EQ(s.cpu_interrupts, r.interrupts.total());
  EXPECT_EQ(s.handler_calls, s.cpu_interrupts);  // one handler per interrupt
  EXPECT_EQ(r.interrupts.count_of(2), 0u);       // no notification vector
  // Interrupts are fewer than MSIs: the ones arriving while the vector is pending merge.
  EXPECT_LT(s.cpu_interrupts, s.device_msis / 2);
  EXPECT_GT(s.merged, 0u);
}

TEST(storage, no_msi_is_lost_or_delivered_twice_in_any_mode) {
  // Every MSI was taken by one handler call, merged into a pending bit, or is still pending
  // (at most one per vector). The run itself fails if a core's PIR or IRR books do not balance.
  for (const char* mode : {"storage.mode=interrupts", "storage.mode=posted-msi"}) {
    for (const auto& [extra, also] :
         {std::pair{"storage.aggregation-threshold=0", "storage.aggregation-time=0"},
          std::pair{"storage.aggregation-threshold=3", "storage.aggregation-time=1"},
          std::pair{"storage.aggregation-threshold=255", "storage.aggregation-time=1"},
          std::pair{"cpu.nvme-irq=uniform(50ns, 3us)", "storage.irq-cores=0-1"},
          std::pair{"storage.irq-cores=0", "storage.irq-cores=0"}}) {
      const RunReport r = run({mode, extra, also});
      const StorageCounters& s = *r.storage;
      const std::uint64_t accounted = s.handler_calls - s.empty_calls + s.merged;
      // Empty calls: a remapped vector raised again during its own handler, or (posted) a bit
      // taken by a scan whose handler found the CQ already read; they are still deliveries.
      EXPECT_LE(s.handler_calls + s.merged, s.device_msis) << mode << " " << extra;
      EXPECT_GE(s.handler_calls + s.merged + 2, s.device_msis) << mode << " " << extra;
      EXPECT_LE(accounted, s.device_msis);
      EXPECT_TRUE(r.conservation.ok());
      EXPECT_EQ(r.conservation.entered, s.submitted);
    }
  }
}

TEST(storage, posted_msi_sends_one_notification_while_the_on_bit_is_set) {
  const RunReport irq = run({"storage.mode=interrupts"});
  const RunReport posted = run({"storage.mode=posted-msi"});
  const StorageCounters& s = *posted.storage;
  EXPECT_EQ(s.cpu_interrupts, s.notifications);
  EXPECT_EQ(posted.interrupts.count_of(2), s.notifications);  // the notification vector
  EXPECT_EQ(posted.interrupts.count_of(0) + posted.interrupts.count_of(1), 0u);
  EXPECT_GT(s.handler_calls, s.notifications);  // the demux loop runs handlers again
  EXPECT_GE(s.pir_scans, 2 * s.notifications);  // at least a loop scan and the final one
  EXPECT_LT(s.notifications, irq.storage->cpu_interrupts);
}

TEST(storage, nvme_aggregation_threshold_sends_an_msi_per_threshold_plus_one_cqes) {
  // TIME 1 (100 us) is never reached at 5.1 M CQEs/s: the threshold decides.
  const RunReport r = run({"storage.aggregation-threshold=7", "storage.aggregation-time=1"});
  const StorageCounters& s = *r.storage;
  const double cqes = static_cast<double>(s.completed);
  EXPECT_NEAR(static_cast<double>(s.device_msis), cqes / 8, cqes / 8 * 0.02);
}

TEST(storage, nvme_aggregation_time_bounds_how_long_a_cqe_waits_for_its_msi) {
  // A threshold never reached at queue depth 1: every CQE waits the aggregation time (100 us)
  // for its MSI, so each I/O takes service time + 100 us.
  const RunReport r = run({"storage.queue-depth=1", "storage.batch-submit=1",
                           "storage.batch-complete=1", "storage.service-time=10us",
                           "storage.aggregation-threshold=255", "storage.aggregation-time=1"});
  const double per_drive = per_second(r.storage->completed, r) / 2;
  EXPECT_LT(per_drive, 1e6 / 110.0);
  EXPECT_GT(per_drive, 1e6 / 115.0);
  EXPECT_NEAR(static_cast<double>(r.storage->device_msis),
              static_cast<double>(r.storage->completed), 2);
}

TEST(storage, aggregation_with_thr_or_time_zero_is_off_an_msi_per_cqe) {
  // Feature 08h: "If either the TIME or the THR fields are cleared to 0h, then interrupt
  // coalescing is implicitly disabled". THR 255 alone must neither hold CQEs back nor stop the
  // run: the same run as no aggregation at all.
  for (const char* mode : {"storage.mode=interrupts", "storage.mode=posted-msi"}) {
    const RunReport off = run({mode});
    const RunReport thr = run({mode, "storage.aggregation-threshold=255"});
    const RunReport time = run({mode, "storage.aggregation-time=255"});
    EXPECT_GT(thr.storage->completed, 10'000u) << mode;
    EXPECT_GE(thr.storage->device_msis + 256, thr.storage->completed) << mode;
    EXPECT_EQ(json_of(thr), json_of(off)) << mode;
    EXPECT_EQ(json_of(time), json_of(off)) << mode;
  }
}

TEST(storage, t_io_uring_clamps_its_batches_to_the_queue_depth) {
  // fio t/io_uring.c main(): batch_complete and batch_submit above the depth are set to it.
  for (const char* mode : {"storage.mode=interrupts", "storage.mode=polled"}) {
    const RunReport big =
        run({mode, "storage.queue-depth=4", "storage.batch-submit=4", "storage.batch-complete=8"});
    const RunReport clamped =
        run({mode, "storage.queue-depth=4", "storage.batch-submit=4", "storage.batch-complete=4"});
    EXPECT_GT(big.storage->completed, 1'000u) << mode;
    EXPECT_EQ(json_of(big), json_of(clamped)) << mode;
    const RunReport submit =
        run({mode, "storage.queue-depth=4", "storage.batch-submit=9", "storage.batch-complete=4"});
    EXPECT_EQ(json_of(submit), json_of(clamped)) << mode;
  }
}

TEST(storage, a_submitter_that_would_wait_for_more_than_it_has_in_flight_fails_the_run) {
  // Depth 4, 3 per call, waiting for 4: t/io_uring's first call asks for min(3 + 3, 4) = 4
  // completions with 3 in flight and would wait forever. The run says so instead of idling
  // (interrupts) or spinning (polled).
  for (const char* mode :
       {"storage.mode=interrupts", "storage.mode=polled", "storage.mode=posted-msi"}) {
    LoadResult s =
        load({mode, "storage.queue-depth=4", "storage.batch-submit=3", "storage.batch-complete=4"});
    ASSERT_TRUE(s.ok());
    auto r = simulate(s.value());
    ASSERT_FALSE(r.ok()) << mode;
    EXPECT_NE(r.error().what().find("storage.batch-complete: a submitter waited for 4 "
                                    "completions with 3 I/Os in flight"),
              std::string::npos)
        << r.error().what();
  }
}

TEST(storage, an_msi_posted_between_clearing_on_and_the_final_scan_notifies_again) {
  // sysvec_posted_msi_notification clears ON, then scans the PIR once more: an MSI posted in
  // between sends a notification and is taken by that scan, so the notification finds nothing.
  const RunReport r = run({"storage.mode=posted-msi", "cpu.pir-scan=200"});
  const StorageCounters& s = *r.storage;
  EXPECT_GT(s.empty_notifications, 0u);
  EXPECT_LT(s.empty_notifications, s.notifications / 2);
  EXPECT_TRUE(r.conservation.ok());
}

TEST(storage, every_storage_key_changes_the_run) {
  struct Case {
    const char* mode;
    const char* set;
    const char* base = "storage.drives=2";  // a setting the key needs to act
  };
  const Case cases[] = {
      {"interrupts", "storage.drives=1"},
      {"interrupts", "storage.mode=posted-msi"},
      {"polled", "storage.iops=1000000"},
      {"polled", "storage.service-time=100us"},
      {"interrupts", "storage.aggregation-threshold=4", "storage.aggregation-time=1"},
      {"interrupts", "storage.aggregation-time=2", "storage.aggregation-threshold=255"},
      {"posted-msi", "storage.aggregation-threshold=4", "storage.aggregation-time=1"},
      {"posted-msi", "storage.aggregation-time=2", "storage.aggregation-threshold=255"},
      {"interrupts", "storage.queue-depth=16"},
      {"interrupts", "storage.batch-submit=8"},
      {"polled", "storage.batch-complete=8"},
      {"interrupts", "storage.thread-cores=0"},
      {"interrupts", "storage.irq-cores=0"},
      {"posted-msi", "storage.max-coalescing-loop=1"},
      {"interrupts", "cpu.irq-entry=900"},
      {"interrupts", "cpu.nvme-irq=300"},
      {"interrupts", "cpu.nvme-cqe=40"},
      {"interrupts", "cpu.uring-submit=60"},
      {"interrupts", "cpu.uring-complete=40"},
      {"polled", "cpu.uring-poll=500"},
      {"posted-msi", "cpu.pir-scan=200"},
      {"interrupts", "cpu.syscall=500"},
      {"interrupts", "cpu.wakeup=900"},
      {"interrupts", "cpu.context-switch=1500"},
      // The same costs on the other paths: IOPOLL's CQEs and completions, the posted MSI path's
      // wake-up and the thread's side, and the polled call's entry.
      {"polled", "cpu.nvme-cqe=40"},
      {"polled", "cpu.uring-complete=40"},
      {"polled", "cpu.syscall=500"},
      {"posted-msi", "cpu.wakeup=900"},
      {"posted-msi", "cpu.context-switch=1500"},
      {"posted-msi", "cpu.syscall=500"},
  };
  for (const Case& c : cases) {
    const std::string mode = std::string("storage.mode=") + c.mode;
    const std::string base = json_of(run({mode, c.base}));
    EXPECT_NE(json_of(run({mode, c.base, c.set})), base) << c.set << " is ignored";
  }
}

TEST(storage, landing_polled_cqes_lazily_gives_the_same_run_as_an_event_per_cqe) {
  for (const char* mode :
       {"storage.mode=polled", "storage.mode=interrupts", "storage.mode=posted-msi"}) {
    LoadResult s = load({mode, "storage.service-time=uniform(2us, 9us)"});
    ASSERT_TRUE(s.ok());
    auto lazy = simulate(s.value());
    RunOptions eager;
    eager.event_per_arrival = true;
    auto each = simulate(s.value(), eager);
    ASSERT_TRUE(lazy.ok() && each.ok());
    RunReport a = lazy.value();
    RunReport b = each.value();
    if (std::string(mode) == "storage.mode=polled") {
      EXPECT_LT(a.events, b.events);
    }
    a.events = b.events = 0;
    a.peak_pending_events = b.peak_pending_events = 0;
    EXPECT_EQ(json_of(a), json_of(b)) << mode;
  }
}

TEST(storage, a_storage_scenario_writes_back_to_the_same_scenario) {
  LoadResult s = load({"storage.mode=posted-msi", "storage.max-coalescing-loop=4",
                       "storage.aggregation-threshold=3", "storage.aggregation-time=2"});
  ASSERT_TRUE(s.ok());
  std::ostringstream out;
  write_toml(out, s.value());
  LoadResult back = load_scenario_text(out.str(), "storage.toml", test::costs_only(out.str(), {}));
  ASSERT_TRUE(back.ok()) << back.error().what();
  EXPECT_EQ(back.value(), s.value());
}

TEST(storage, a_run_is_deterministic) {
  for (const char* mode :
       {"storage.mode=polled", "storage.mode=interrupts", "storage.mode=posted-msi"}) {
    EXPECT_EQ(json_of(run({mode})), json_of(run({mode}))) << mode;
  }
}

TEST(storage, bad_storage_settings_are_refused_by_key) {
  const auto error = [](std::vector<std::string> sets) {
    LoadResult s = load(std::move(sets));
    return s.ok() ? std::string() : s.error().what();
  };
  EXPECT_NE(error({"storage.thread-cores=0-2"}).find("storage.thread-cores: 2 is not a core"),
            std::string::npos);
  EXPECT_NE(error({"storage.irq-cores=5"}).find("storage.irq-cores: 5 is not a core"),
            std::string::npos);
  // A network key is refused by its own name.
  EXPECT_NE(error({"traffic.rate=1000"}).find("traffic.rate: is not read by a storage run"),
            std::string::npos);
  EXPECT_NE(error({"scenario.warmup=1ms"}).find("scenario.warmup"), std::string::npos);
  EXPECT_NE(error({"nic.rx-ring=1024"}).find("nic.rx-ring: is not read by a storage run"),
            std::string::npos);
  EXPECT_NE(error({"napi.busy_read=50"}).find("napi.busy_read: is not read by a storage run"),
            std::string::npos);
  EXPECT_NE(error({"cpu.irq-cores=1"}).find("cpu.irq-cores: is not read by a storage run"),
            std::string::npos);
  EXPECT_NE(error({"cpu.app-core=1"}).find("cpu.app-core: is not read by a storage run"),
            std::string::npos);
  EXPECT_NE(error({"storage.max-coalescing-loop=4"}).find("storage.max-coalescing-loop"),
            std::string::npos);
  EXPECT_NE(error({"storage.mode=polled", "storage.aggregation-time=1"})
                .find("storage.aggregation-time: a polled queue"),
            std::string::npos);
  EXPECT_NE(error({"storage.mode=fast"}).find("storage.mode"), std::string::npos);
  EXPECT_TRUE(error({"storage.mode=posted-msi", "storage.max-coalescing-loop=4"}).empty());
}

TEST(storage, storage_keys_without_drives_are_refused_by_key) {
  // storage.drives = 0 builds the network host: a storage key would be silently ignored.
  constexpr const char* kNetwork = R"(
[scenario]
duration = "1ms"
)";
  const auto error = [&](std::vector<std::string> sets) {
    LoadResult s = load(std::move(sets), kNetwork);
    return s.ok() ? std::string() : s.error().what();
  };
  EXPECT_TRUE(error({}).empty());
  for (const char* set : {"storage.max-coalescing-loop=9", "storage.mode=polled",
                          "storage.queue-depth=4", "storage.service-time=10us"}) {
    const std::string key = std::string(set).substr(0, std::string(set).find('='));
    EXPECT_NE(error({set}).find(key + ": is not read by a NIC run"), std::string::npos)
        << error({set});
  }
  EXPECT_NE(error({"storage.drives=0", "storage.iops=1000"}).find("storage.iops"),
            std::string::npos);
}

}  // namespace
}  // namespace irqmod::sim
