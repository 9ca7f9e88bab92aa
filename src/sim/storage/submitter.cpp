// The t/io_uring submitter. See submitter.hpp.
#include "sim/storage/submitter.hpp"

#include <algorithm>
#include <cassert>

namespace irqmod::sim {

Submitter::Submitter(Core& core, Drive& drive, const Settings& settings, const Costs& costs,
                     StorageCounters& counters)
    : core_(core), drive_(drive), settings_(settings), costs_(costs), counters_(counters) {
  // t/io_uring's main(): "if (batch_complete > depth) batch_complete = depth", and the same for
  // batch_submit.
  settings_.batch_submit = std::min(settings_.batch_submit, settings_.depth);
  settings_.batch_complete = std::min(settings_.batch_complete, settings_.depth);
  thread_ = core_.add_thread(job_of(*this), false);
}

bool Submitter::deliver(std::uint32_t completions) {
  delivered_ += completions;
  unpaid_ += completions;
  if (!blocked_) return false;
  blocked_ = false;
  woken_ = true;
  core_.wake(thread_);
  return true;
}

// One io_uring_enter: prepare and submit what the ring has room for, then wait or poll.
Segment Submitter::submit_call(Core& core) {
  const std::uint64_t room = settings_.depth - std::min<std::uint64_t>(inflight_, settings_.depth);
  prepped_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(room, settings_.batch_submit));
  inflight_ += prepped_;
  // t/io_uring counts the prepared I/Os twice here (inflight already holds them), as it does.
  to_wait_ = prepped_ > 0 && inflight_ + prepped_ <= settings_.depth
                 ? 0
                 : std::min<std::uint64_t>(inflight_ + prepped_, settings_.batch_complete);
  ++counters_.submit_calls;
  step_ = Step::submit;
  Duration length = core.cost(costs_.syscall) + core.cost(costs_.submit, prepped_);
  if (unpaid_ > 0) {  // task work handed over while the thread ran: run on the way in
    length += core.cost(costs_.complete, static_cast<std::int64_t>(unpaid_));
    unpaid_ = 0;
  }
  return Segment{length, ContextKind::thread, "io_uring_enter"};
}

void Submitter::reap() {
  counters_.completed += delivered_;
  inflight_ -= delivered_;
  delivered_ = 0;
}

std::optional<Segment> Submitter::start(Core& core) {
  if (woken_) {
    woken_ = false;
    step_ = Step::woken;
    Duration length = core.cost(costs_.context_switch);
    length += core.cost(costs_.complete, static_cast<std::int64_t>(unpaid_));
    unpaid_ = 0;
    return Segment{length, ContextKind::thread, "io_uring task work"};
  }
  return submit_call(core);
}

std::optional<Segment> Submitter::after_submit(Core& core) {
  drive_.submit(prepped_);
  counters_.submitted += prepped_;
  // t/io_uring's to_wait counts the prepared I/Os twice, so it can ask for more completions than
  // are in flight (depth 4, batch-submit 3, batch-complete 4): waiting for interrupts the real
  // call would sleep forever; polling, io_iopoll_check would return once nothing is left to poll
  // (not modelled). The thread stops and the run fails (storage_run.cpp) instead of idling or
  // spinning.
  if (to_wait_ > inflight_) {
    stalled_ = true;
    return std::nullopt;
  }
  // Without a wait the call has no IORING_ENTER_GETEVENTS: it neither polls nor sleeps.
  if (to_wait_ == 0) {
    reap();
    return submit_call(core);
  }
  if (settings_.mode == StorageMode::polled) {
    step_ = Step::poll;
    return Segment{core.cost(costs_.poll), ContextKind::thread, "iopoll"};
  }
  return wait_or_continue(core);
}

// Enough completions: reap them and make the next call; else sleep until a handler wakes us.
std::optional<Segment> Submitter::wait_or_continue(Core& core) {
  if (delivered_ >= to_wait_) {
    reap();
    return submit_call(core);
  }
  blocked_ = true;
  return std::nullopt;
}

std::optional<Segment> Submitter::next(Core& core) {
  switch (step_) {
    case Step::submit:
      return after_submit(core);
    case Step::woken:
      return wait_or_continue(core);
    case Step::poll: {
      found_ = drive_.take_cq();
      if (found_ > 0) {
        step_ = Step::poll_work;
        return Segment{core.cost(costs_.cqe, found_) + core.cost(costs_.complete, found_),
                       ContextKind::thread, "iopoll completions"};
      }
      if (delivered_ >= to_wait_) {
        reap();
        return submit_call(core);
      }
      // Nothing yet: io_iopoll_check keeps polling; jump to the next CQE. One is in the drive:
      // to_wait <= inflight (after_submit), and fewer than to_wait were found.
      const auto next = drive_.next_completion();
      assert(next && "an IOPOLL wait with no I/O in the drive");
      const Duration spin = next && *next > core.now() ? *next - core.now() : nanoseconds(1);
      step_ = Step::spin;
      return Segment{spin, ContextKind::busy_poll, "iopoll spin"};
    }
    case Step::spin:
      step_ = Step::poll;
      return Segment{core.cost(costs_.poll), ContextKind::thread, "iopoll"};
    case Step::poll_work:
      delivered_ += found_;
      found_ = 0;
      if (delivered_ >= to_wait_) {
        reap();
        return submit_call(core);
      }
      step_ = Step::poll;
      return Segment{core.cost(costs_.poll), ContextKind::thread, "iopoll"};
  }
  return std::nullopt;
}

}  // namespace irqmod::sim
