// One t/io_uring submitter thread (fio's t/io_uring.c, as seed 003 ran it): a ring of
// storage.queue-depth entries on one drive, random reads submitted in batches, each
// io_uring_enter call submitting what it prepared and waiting for a batch of completions once
// the ring is full:
//   to_prep   = min(depth - inflight, batch_submit);  inflight += to_prep
//   to_wait   = to_prep && inflight + to_prep <= depth ? 0 : min(inflight + to_prep,
//   batch_complete) io_uring_enter(to_prep, to_wait, to_wait ? GETEVENTS : 0); reap every CQE in
//   the ring
// How the completions arrive depends on storage.mode:
//   polled (IORING_SETUP_IOPOLL): the call polls the drive's CQ itself (io_iopoll_check: rounds
//     of cpu.uring-poll, each CQE cpu.nvme-cqe + cpu.uring-complete) until to_wait are found;
//     between CQEs it spins (busy_poll time). No interrupt.
//   interrupts / posted-msi: the interrupt handler hands CQEs over (io_uring's task work); a
//     call that has fewer than to_wait sleeps, and is woken by each handler that hands it some
//     (task_work_add), runs their completions (cpu.uring-complete each, after a context switch)
//     and sleeps again until it has to_wait.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/cpu/core.hpp"
#include "sim/storage/completion_path.hpp"
#include "sim/storage/drive.hpp"
#include "sim/storage/storage_report.hpp"

namespace irqmod::sim {

class Submitter {
 public:
  struct Settings {
    StorageMode mode = StorageMode::interrupts;
    std::uint32_t depth = 0;           // storage.queue-depth
    std::uint32_t batch_submit = 0;    // storage.batch-submit (clamped to depth, as t/io_uring)
    std::uint32_t batch_complete = 0;  // storage.batch-complete (clamped to depth)
  };
  struct Costs {
    Distribution syscall;         // cpu.syscall: io_uring_enter's entry and exit
    Distribution submit;          // cpu.uring-submit: per I/O submitted
    Distribution complete;        // cpu.uring-complete: per I/O completed and reaped
    Distribution poll;            // cpu.uring-poll: one IOPOLL round
    Distribution cqe;             // cpu.nvme-cqe: per CQE found by a poll
    Distribution context_switch;  // cpu.context-switch: switching to the woken thread
  };

  Submitter(Core& core, Drive& drive, const Settings& settings, const Costs& costs,
            StorageCounters& counters);
  Submitter(const Submitter&) = delete;
  Submitter& operator=(const Submitter&) = delete;

  // Makes the thread runnable (at the start of the run).
  void start() { core_.wake(thread_); }
  CompletionSink sink() { return CompletionSink{&Submitter::deliver_thunk, this}; }

  // I/Os submitted and not yet reaped; completions handed over and not yet reaped.
  std::uint64_t inflight() const { return inflight_; }
  std::uint64_t unreaped() const { return delivered_ + found_; }
  // The thread stopped in a call that waits for more completions than it has in flight.
  bool stalled() const { return stalled_; }
  std::uint64_t to_wait() const { return to_wait_; }

  // The thread's job (Core's JobType).
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  enum class Step : std::uint8_t {
    submit,     // the call's submission part ended: hand the I/Os to the drive
    poll,       // an IOPOLL round ended: read the CQ
    poll_work,  // the CQEs a round found were completed
    spin,       // the poll spun until the next CQE
    woken,      // the woken thread ran its task work
  };

  static bool deliver_thunk(void* self, std::uint32_t n) {
    return static_cast<Submitter*>(self)->deliver(n);
  }
  bool deliver(std::uint32_t completions);
  Segment submit_call(Core& core);
  std::optional<Segment> after_submit(Core& core);
  std::optional<Segment> wait_or_continue(Core& core);
  void reap();

  Core& core_;
  Drive& drive_;
  Settings settings_;
  Costs costs_;
  StorageCounters& counters_;
  std::uint32_t thread_ = 0;
  Step step_ = Step::submit;
  std::uint64_t inflight_ = 0;   // submitted, not reaped (t/io_uring's s->inflight)
  std::uint32_t prepped_ = 0;    // I/Os of the current call
  std::uint64_t to_wait_ = 0;    // completions the current call waits for
  std::uint64_t delivered_ = 0;  // completions in the ring (or handed over), not yet reaped
  std::uint64_t unpaid_ = 0;     // handed over by an interrupt, task work not yet run
  std::uint32_t found_ = 0;      // CQEs the last poll round found
  bool blocked_ = false;         // asleep in io_uring_enter's wait
  bool woken_ = false;           // woken while waiting, not run yet
  bool stalled_ = false;         // waited for completions that cannot come (stopped)
};

}  // namespace irqmod::sim
