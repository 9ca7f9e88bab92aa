// A core's completion interrupts, remapped or posted. See completion_path.hpp.
#include "sim/storage/completion_path.hpp"

#include <bit>
#include <cassert>

namespace irqmod::sim {

CompletionPath::CompletionPath(World& world, Core& core, StorageMode mode, const Costs& costs,
                               std::uint8_t max_coalescing_loop, StorageCounters& counters,
                               std::uint32_t notification_vector)
    : world_(world),
      core_(core),
      mode_(mode),
      costs_(costs),
      counters_(counters),
      notification_vector_(notification_vector),
      descriptor_(max_coalescing_loop) {}

void CompletionPath::add_vector(std::uint8_t vector, Drive& drive, CompletionSink sink,
                                std::uint32_t report_vector) {
  assert(posted_msi::is_device_vector(vector));
  queues_[vector] = Queue{&drive, sink, report_vector};
}

void CompletionPath::msi(std::uint8_t vector) {
  ++msis_;
  ++counters_.device_msis;
  if (mode_ == StorageMode::posted_msi) {
    if (descriptor_.post(vector)) ++counters_.notifications;
  } else {
    std::uint64_t& word = irr_[vector / posted_msi::kBitsPerWord];
    const std::uint64_t bit = std::uint64_t{1} << (vector % posted_msi::kBitsPerWord);
    if (word & bit) {
      ++irr_merged_;
      ++counters_.merged;
      return;
    }
    word |= bit;
  }
  if (!running_ && (mode_ != StorageMode::posted_msi || descriptor_.notification_pending())) {
    running_ = true;
    core_.push(job_of(*this), Level::hardirq);
  }
}

bool CompletionPath::conserved() const {
  if (mode_ == StorageMode::posted_msi) {
    return descriptor_.is_conserved() && descriptor_.counters().posted == msis_;
  }
  unsigned pending = 0;
  for (const std::uint64_t w : irr_)
    pending += static_cast<unsigned>(std::popcount(w));
  return msis_ == irr_taken_ + irr_merged_ + pending;
}

void CompletionPath::count_interrupt(std::uint32_t report_vector) {
  ++counters_.cpu_interrupts;
  world_.report.interrupts.count(report_vector);
  ++world_.report.cores[core_.index()].device_irqs;
  if (world_.trace) {
    world_.trace->instant(kTraceCpu, core_.index(), "interrupt", "interrupt", world_.now());
  }
}

std::optional<Segment> CompletionPath::start(Core& core) {
  return begin_interrupt(core);
}

// The core takes the next interrupt: the highest pending vector (remapped), or the
// notification. Nothing pending: the job ends.
std::optional<Segment> CompletionPath::begin_interrupt(Core& core) {
  if (mode_ == StorageMode::posted_msi) {
    if (!descriptor_.notification_pending()) {
      running_ = false;
      return std::nullopt;
    }
    descriptor_.begin_notification();
    count_interrupt(notification_vector_);
    step_ = Step::entry;
    return Segment{core.cost(costs_.irq_entry), ContextKind::hardirq, "posted msi notification"};
  }
  for (std::size_t w = posted_msi::kPirWords; w-- > 0;) {
    if (irr_[w] == 0) continue;
    const unsigned bit =
        posted_msi::kBitsPerWord - 1 - static_cast<unsigned>(std::countl_zero(irr_[w]));
    irr_[w] &= ~(std::uint64_t{1} << bit);
    ++irr_taken_;
    vector_ = static_cast<std::uint8_t>(w * posted_msi::kBitsPerWord + bit);
    count_interrupt(queues_[vector_].report_vector);
    ++counters_.handler_calls;
    taken_in_call_ = 0;
    step_ = Step::handler;
    return Segment{core.cost(costs_.irq_entry) + core.cost(costs_.nvme_irq), ContextKind::hardirq,
                   "nvme irq"};
  }
  running_ = false;
  return std::nullopt;
}

// handle_pending_pir: a loop scan while ON is set (its bits taken at its start, its cost
// after), or pi_clear_on and the final scan, whose bits are taken at the end of its cost: a
// device that posts in between sees ON clear and sends a new notification, and its bit is also
// taken by this scan (the kernel's race; that notification may find the PIR empty).
std::optional<Segment> CompletionPath::scan() {
  if (descriptor_.phase() == posted_msi::Phase::loop_done) {
    descriptor_.clear_outstanding();
    step_ = Step::final_scan;
    return Segment{core_.cost(costs_.pir_scan), ContextKind::hardirq, "pir scan"};
  }
  take_pass(descriptor_.demux_pass());
  step_ = Step::scan;
  return Segment{core_.cost(costs_.pir_scan), ContextKind::hardirq, "pir scan"};
}

void CompletionPath::take_pass(const posted_msi::PassResult& result) {
  final_scan_ = result.final;
  ++counters_.pir_scans;
  pass_ = result.vectors;
  pass_at_ = pass_.begin();
}

std::optional<Segment> CompletionPath::next_vector(Core& core) {
  if (pass_at_ != pass_.end()) {
    vector_ = *pass_at_;
    ++pass_at_;
    ++counters_.handler_calls;
    taken_in_call_ = 0;
    step_ = Step::handler;
    return Segment{core.cost(costs_.nvme_irq), ContextKind::hardirq, "nvme irq"};
  }
  if (!final_scan_) return scan();
  descriptor_.eoi();
  return begin_interrupt(core);
}

// nvme_poll_cq: the CQEs posted so far; the loop ends at the first one not yet written.
std::optional<Segment> CompletionPath::read_cq(Core& core) {
  Queue& queue = queues_[vector_];
  taking_ = queue.drive->take_cq();
  if (taking_ > 0) {
    taken_in_call_ += taking_;
    step_ = Step::cqes;
    Duration length = core.cost(costs_.nvme_cqe, taking_);
    if (wake_due_) {
      length += core.cost(costs_.wakeup);
      wake_due_ = false;
    }
    return Segment{length, ContextKind::hardirq, "nvme cqes"};
  }
  if (taken_in_call_ == 0) ++counters_.empty_calls;
  if (wake_due_) {
    wake_due_ = false;
    step_ = Step::wake;
    return Segment{core.cost(costs_.wakeup), ContextKind::hardirq, "wake submitter"};
  }
  return handler_done(core);
}

std::optional<Segment> CompletionPath::handler_done(Core& core) {
  if (mode_ == StorageMode::posted_msi) return next_vector(core);
  return begin_interrupt(core);  // EOI, then the next pending vector if any
}

std::optional<Segment> CompletionPath::next(Core& core) {
  switch (step_) {
    case Step::entry:
      return scan();
    case Step::scan:
      return next_vector(core);
    case Step::final_scan:
      take_pass(descriptor_.final_pass());
      return next_vector(core);
    case Step::handler:
      return read_cq(core);
    case Step::cqes: {
      const Queue& queue = queues_[vector_];
      const std::uint32_t handed = taking_;
      taking_ = 0;
      if (queue.sink.deliver(queue.sink.self, handed)) wake_due_ = true;
      return read_cq(core);
    }
    case Step::wake:
      return handler_done(core);
  }
  return std::nullopt;
}

}  // namespace irqmod::sim
