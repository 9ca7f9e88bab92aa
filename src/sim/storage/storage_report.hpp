// The storage section of the report (seed 003, [storage]): the counters the drives, completion
// paths and submitters count in, and the table of how they print (JSON "storage", the text's
// storage line).
#pragma once

#include <cstdint>

#include "irqmod/sim/counter_table.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/optional_section.hpp"

namespace irqmod::sim {

// I/Os and how their completions reached the CPU.
struct StorageCounters {
  std::uint64_t submitted = 0;       // I/Os handed to the drives (io_uring SQEs consumed)
  std::uint64_t completed = 0;       // I/Os whose CQE the submitting thread reaped
  std::uint64_t device_msis = 0;     // MSIs the drives sent (after NVMe interrupt aggregation)
  std::uint64_t cpu_interrupts = 0;  // interrupts the cores took: vectors, or notifications
  std::uint64_t notifications = 0;   // posted MSI notifications sent (storage.mode = posted-msi)
  std::uint64_t handler_calls = 0;   // NVMe interrupt handler calls (one per vector delivery)
  std::uint64_t merged = 0;          // MSIs whose vector was already pending (IRR or PIR bit)
  std::uint64_t pir_scans = 0;       // PIR scans of the notification handler, final ones included
  std::uint64_t empty_calls = 0;     // handler calls that found no CQE
  std::uint64_t empty_notifications = 0;  // notifications whose scans found no vector: sent by
                                          // an MSI posted between pi_clear_on and the final scan
  std::uint64_t submit_calls = 0;         // io_uring_enter calls of the submitting threads
};

inline constexpr Counter<StorageCounters> kStorageCounterEntries[] = {
    {"submitted", at<&StorageCounters::submitted>, Unit::count, Warmup::subtract},
    {.name = "completed",
     .at = at<&StorageCounters::completed>,
     .unit = Unit::count,
     .warmup = Warmup::subtract,
     .rate = "iops"},
    {.name = "device_msis",
     .at = at<&StorageCounters::device_msis>,
     .unit = Unit::count,
     .warmup = Warmup::subtract,
     .rate = "device_msis_per_second"},
    {.name = "cpu_interrupts",
     .at = at<&StorageCounters::cpu_interrupts>,
     .unit = Unit::count,
     .warmup = Warmup::subtract,
     .rate = "cpu_interrupts_per_second"},
    {.name = "notifications",
     .at = at<&StorageCounters::notifications>,
     .unit = Unit::count,
     .warmup = Warmup::subtract,
     .rate = "notifications_per_second"},
    {"handler_calls", at<&StorageCounters::handler_calls>, Unit::count, Warmup::subtract},
    {"empty_calls", at<&StorageCounters::empty_calls>, Unit::count, Warmup::subtract},
    {"merged", at<&StorageCounters::merged>, Unit::count, Warmup::subtract},
    {"pir_scans", at<&StorageCounters::pir_scans>, Unit::count, Warmup::subtract},
    {"empty_notifications", at<&StorageCounters::empty_notifications>, Unit::count,
     Warmup::subtract},
    {"submit_calls", at<&StorageCounters::submit_calls>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<StorageCounters> kStorageCounters{
    "storage",
    "storage: {completed/s} IOPS ({completed} completed of {submitted} submitted, {submit_calls} "
    "io_uring_enter calls); device MSIs {device_msis/s}/s, CPU interrupts {cpu_interrupts/s}/s, "
    "notifications {notifications/s}/s; handler calls {handler_calls/s}/s ({empty_calls} empty), "
    "merged MSIs {merged}, PIR scans {pir_scans}, empty notifications {empty_notifications}\n",
    kStorageCounterEntries};

}  // namespace irqmod::sim
