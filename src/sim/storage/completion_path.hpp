// How a core takes its drives' completion MSIs (seed 003), one object per core that has vectors:
//
//   interrupts: each MSI sets its vector's bit in the local APIC's request register (IRR); the
//     core takes the highest pending vector when no hard interrupt of its own runs (handlers do
//     not nest), clears the bit and runs entry + nvme_irq, which reads the CQ until it is empty.
//     An MSI while its bit is set is merged; one during the vector's own handler sets the bit
//     again and costs a second interrupt after the EOI, which may find the CQ empty.
//   posted-msi: each MSI is posted into the core's PIR through the library's
//     posted_msi::PostedMsiDescriptor; only a post that finds ON clear sends the notification.
//     Its handler is sysvec_posted_msi_notification step by step: entry, then PIR scans (each
//     charged cpu.pir-scan) whose vectors' nvme_irq handlers run in turn, up to the loop limit,
//     then ON cleared, the final scan (its bits taken after its cost, so an MSI posted between
//     pi_clear_on and the scan both notifies and is taken), EOI. MSIs posted while the handlers
//     run are coalesced:
//     the longer they run, the more the next scan takes (what the seed's author points out).
//
// The handler's CQEs are handed to the submitting thread (io_uring's completion, run as task
// work in its context), which the handler wakes when it waits (cpu.wakeup, charged here).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "irqmod/policy/posted_msi.hpp"
#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/cpu/core.hpp"
#include "sim/storage/drive.hpp"
#include "sim/storage/storage_report.hpp"

namespace irqmod::sim {

// Where a queue's completions go: the submitting thread. Returns whether it woke the thread.
struct CompletionSink {
  bool (*deliver)(void* self, std::uint32_t completions) = nullptr;
  void* self = nullptr;
};

class CompletionPath {
 public:
  struct Costs {
    Distribution irq_entry;  // cpu.irq-entry: entry, exit and EOI of one interrupt
    Distribution nvme_irq;   // cpu.nvme-irq: one call of the queue's handler
    Distribution nvme_cqe;   // cpu.nvme-cqe: one CQE in the handler
    Distribution pir_scan;   // cpu.pir-scan: one scan of the PIR
    Distribution wakeup;     // cpu.wakeup: waking the submitting thread
  };

  // `notification_vector`: the report's vector number for posted MSI notifications.
  CompletionPath(World& world, Core& core, StorageMode mode, const Costs& costs,
                 std::uint8_t max_coalescing_loop, StorageCounters& counters,
                 std::uint32_t notification_vector);
  CompletionPath(const CompletionPath&) = delete;
  CompletionPath& operator=(const CompletionPath&) = delete;

  // A device vector of this core: its drive (whose CQ the handler reads), where its completions
  // go, and its number in the report. Precondition: posted_msi::is_device_vector(vector).
  void add_vector(std::uint8_t vector, Drive& drive, CompletionSink sink,
                  std::uint32_t report_vector);

  // A device MSI arrives for `vector`.
  void msi(std::uint8_t vector);

  // Every MSI taken, merged or still pending, none twice (PIR or IRR books).
  bool conserved() const;
  std::uint64_t msis() const { return msis_; }
  // CQEs a running handler has read and not yet handed to the thread.
  std::uint32_t in_hand() const { return taking_; }
  const posted_msi::Counters& posted_counters() const { return descriptor_.counters(); }

  // The hardirq job (Core's JobType).
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  enum class Step : std::uint8_t {
    entry,       // posted: the notification's entry ended; scan next
    scan,        // posted: a loop scan's cost ended; run its vectors' handlers
    final_scan,  // posted: ON was cleared and the final scan's cost ended; take its bits
    handler,     // the handler's fixed part (and, remapped, the entry) ended; read the CQ
    cqes,        // the handler's CQEs were processed; hand them over, read the CQ again
    wake,        // the wake-up of the thread was paid; the handler returns
  };
  struct Queue {
    Drive* drive = nullptr;
    CompletionSink sink;
    std::uint32_t report_vector = 0;
  };

  std::optional<Segment> begin_interrupt(Core& core);
  std::optional<Segment> scan();
  void take_pass(const posted_msi::PassResult& result);
  std::optional<Segment> next_vector(Core& core);
  std::optional<Segment> read_cq(Core& core);
  std::optional<Segment> handler_done(Core& core);
  void count_interrupt(std::uint32_t report_vector);

  World& world_;
  Core& core_;
  StorageMode mode_;
  Costs costs_;
  StorageCounters& counters_;
  std::uint32_t notification_vector_;
  std::array<Queue, posted_msi::kNumVectors> queues_{};
  // interrupts: the IRR bits of this core's device vectors, laid out like the PIR
  std::array<std::uint64_t, posted_msi::kPirWords> irr_{};
  std::uint64_t irr_taken_ = 0;  // MSIs whose IRR bit the core took (interrupts)
  std::uint64_t irr_merged_ = 0;
  // posted-msi
  posted_msi::PostedMsiDescriptor descriptor_;
  posted_msi::VectorSet pass_{};             // the current scan's vectors
  posted_msi::VectorSet::Iterator pass_at_;  // the next of them to handle
  bool final_scan_ = false;                  // the current scan is the one after ON was cleared
  // the job
  bool running_ = false;  // the job is on the core's stack
  Step step_ = Step::entry;
  std::uint8_t vector_ = 0;   // the vector whose handler runs
  std::uint32_t taking_ = 0;  // CQEs the running segment processes
  std::uint32_t taken_in_call_ = 0;
  bool wake_due_ = false;  // the thread was woken: the handler pays cpu.wakeup
  std::uint64_t msis_ = 0;
};

}  // namespace irqmod::sim
