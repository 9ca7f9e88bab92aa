// Builds and runs a storage scenario. See storage_run.hpp.
#include "sim/storage/storage_run.hpp"

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/cpu/core.hpp"
#include "sim/run_setup.hpp"
#include "sim/scenario_values.hpp"
#include "sim/storage/completion_path.hpp"
#include "sim/storage/drive.hpp"
#include "sim/storage/storage_report.hpp"
#include "sim/storage/submitter.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

// Device vectors are numbered from FIRST_EXTERNAL_VECTOR, one per drive (nvme-pci allocates
// one per completion queue; a drive here has one queue).
std::uint8_t vector_of(std::uint32_t drive) {
  return static_cast<std::uint8_t>(posted_msi::kFirstExternalVector + drive);
}

// The cores (Machine, without NET_RX), then the storage model's components.
struct StorageHost : Machine {
  explicit StorageHost(World& w) : Machine(w) {}
  std::deque<Drive> drives;
  std::deque<CompletionPath> paths;
  std::vector<CompletionPath*> path_of_core;
  std::deque<Submitter> submitters;
};

// The schema caps storage.drives so that every drive has a device vector.
static_assert(64 <= posted_msi::kFirstSystemVector - posted_msi::kFirstExternalVector);

}  // namespace

std::optional<Error> validate_storage(const Scenario& s) {
  const StorageSection& st = s.storage;
  // A kernel's switches are not keys the scenario set (they stay unused in a storage run).
  const Scenario defaults = default_scenario_on(s);
  // Which keys a storage run reads at all is the schema's (KeySpec::readers, check_readers):
  // what is left are the rules between the keys it reads.
  if (st.drives == 0) return std::nullopt;
  const auto cores_exist = [&](const char* key, const std::string& list) -> std::optional<Error> {
    const auto cores = parse_cpu_list(list);
    if (!cores) return Error{key, cores.error().message};
    for (const std::uint32_t c : cores.value()) {
      if (c >= s.cpu.cores) {
        return Error{key, std::to_string(c) + " is not a core; allowed: 0 to " +
                              std::to_string(s.cpu.cores - 1) +
                              " (cpu.cores = " + std::to_string(s.cpu.cores) + ")"};
      }
    }
    return std::nullopt;
  };
  if (auto e = cores_exist("storage.thread-cores", st.thread_cores)) return e;
  if (auto e = cores_exist("storage.irq-cores", st.irq_cores)) return e;
  if (st.mode != StorageMode::posted_msi &&
      st.max_coalescing_loop != defaults.storage.max_coalescing_loop) {
    return Error{"storage.max-coalescing-loop",
                 "only the posted MSI handler has a coalescing loop; allowed: the default, or "
                 "storage.mode = \"posted-msi\""};
  }
  if (st.mode == StorageMode::polled &&
      (st.aggregation_threshold != 0 || st.aggregation_time != 0)) {
    return Error{st.aggregation_threshold != 0 ? "storage.aggregation-threshold"
                                               : "storage.aggregation-time",
                 "a polled queue raises no interrupt to aggregate; allowed: 0, or "
                 "storage.mode = \"interrupts\" / \"posted-msi\""};
  }
  return std::nullopt;
}

Expected<RunReport> simulate_storage(const Scenario& s, const RunOptions& options) {
  const StorageSection& st = s.storage;
  const CpuSection& cpu = s.cpu;
  auto world = std::make_unique<World>();
  world->trace = options.trace;
  world->event_per_arrival = options.event_per_arrival;
  auto host = std::make_unique<StorageHost>(*world);
  // Vectors 0 .. drives-1: the drives' completion vectors; vector `drives`: the posted MSI
  // notification (the PMN line of /proc/interrupts), counted once per notification taken.
  start_run(*host, s, st.drives + 1);
  RunReport& report = world->report;
  StorageCounters& counters = report.storage.emplace();
  host->path_of_core.assign(cpu.cores, nullptr);

  const std::vector<std::uint32_t> thread_cores = parse_cpu_list(st.thread_cores).value();
  const std::vector<std::uint32_t> irq_cores = parse_cpu_list(st.irq_cores).value();
  const CompletionPath::Costs path_costs{cpu.irq_entry, cpu.nvme_irq, cpu.nvme_cqe, cpu.pir_scan,
                                         cpu.wakeup};
  const Submitter::Costs thread_costs{cpu.syscall,    cpu.uring_submit, cpu.uring_complete,
                                      cpu.uring_poll, cpu.nvme_cqe,     cpu.context_switch};
  const Submitter::Settings thread_settings{st.mode, st.queue_depth, st.batch_submit,
                                            st.batch_complete};
  const Drive::Settings drive_settings{st.iops, st.service_time, st.aggregation_threshold,
                                       nanoseconds(100'000) * st.aggregation_time, st.queue_depth};
  for (std::uint32_t d = 0; d < st.drives; ++d) {
    Drive& drive = host->drives.emplace_back(*world, d, drive_settings,
                                             Rng(s.scenario.seed, stream::kStorage + d));
    Core& thread_core = host->cores[thread_cores[d % thread_cores.size()]];
    Submitter& submitter =
        host->submitters.emplace_back(thread_core, drive, thread_settings, thread_costs, counters);
    if (st.mode == StorageMode::polled) continue;  // IOPOLL queues have no interrupt
    const std::uint32_t c = irq_cores[d % irq_cores.size()];
    if (!host->path_of_core[c]) {
      host->path_of_core[c] = &host->paths.emplace_back(
          *world, host->cores[c], st.mode, path_costs,
          static_cast<std::uint8_t>(st.max_coalescing_loop), counters, st.drives);
    }
    host->path_of_core[c]->add_vector(vector_of(d), drive, submitter.sink(), d);
    drive.connect(*host->path_of_core[c], vector_of(d));
  }
  if (world->trace) {
    world->trace->process_name(kTraceCpu, "cpu");
    for (const Core& core : host->cores)
      world->trace->thread_name(kTraceCpu, core.index(), "core " + std::to_string(core.index()));
  }
  for (Submitter& submitter : host->submitters)
    submitter.start();

  // A storage run has no warm-up yet (validate_storage); its counters are the report's own.
  WarmupMark warmup(*host, s, [] {});
  run_to_end(*world, s, options, [&](const Event& event) { world->engine.dispatch(event); });
  finish_run(*host);
  for (Drive& drive : host->drives)
    drive.land();

  // I/Os: submitted = reaped + in the drives + in their CQs + handed over, not yet reaped.
  Conservation books;
  books.entered = counters.submitted;
  books.delivered = counters.completed;
  for (const Drive& drive : host->drives)
    books.in_flight += drive.in_device() + drive.in_cq();
  for (const Submitter& submitter : host->submitters)
    books.in_flight += submitter.unreaped();
  for (const CompletionPath& path : host->paths)
    books.in_flight += path.in_hand();
  report.conservation = books;
  report.delivered_packets = counters.completed;
  if (auto error = books.check()) return *error;
  for (const Submitter& submitter : host->submitters) {
    if (!submitter.stalled()) continue;
    return Error{"storage.batch-complete",
                 "a submitter waited for " + std::to_string(submitter.to_wait()) +
                     " completions with " + std::to_string(submitter.inflight()) +
                     " I/Os in flight (t/io_uring's to_wait counts the I/Os just prepared twice): "
                     "with interrupts the real call would sleep forever, and with IOPOLL the "
                     "kernel would return early (io_iopoll_check stops when nothing is left to "
                     "poll), which is not modelled; allowed: a storage.batch-complete and "
                     "storage.batch-submit whose waits never exceed the I/Os in flight (e.g. "
                     "batch-submit + batch-complete <= queue-depth, or batch-submit = "
                     "queue-depth)"};
  }
  // MSIs: every one the drives sent reached a core's IRR or PIR, and was taken once, merged
  // into a pending one, or is still pending.
  std::uint64_t msis = 0;
  for (const Drive& drive : host->drives)
    msis += drive.msis();
  std::uint64_t received = 0;
  for (const CompletionPath& path : host->paths) {
    received += path.msis();
    if (!path.conserved()) {
      return Error{"conservation", "a core's PIR/IRR books do not balance: MSIs " +
                                       std::to_string(path.msis()) + " lost or delivered twice"};
    }
    counters.merged += path.posted_counters().merged;
    counters.empty_notifications += path.posted_counters().empty_runs;
  }
  if (msis != received || msis != counters.device_msis) {
    return Error{"conservation", "drives sent " + std::to_string(msis) + " MSIs, cores received " +
                                     std::to_string(received)};
  }
  warmup.subtract_from(report);
  return std::move(report);
}

}  // namespace irqmod::sim
