// A core's job stack. See core.hpp.
#include "sim/cpu/core.hpp"

#include <cassert>

namespace irqmod::sim {
namespace {

enum Kind : std::uint16_t { kSegmentDone = 1 };

}  // namespace

Core::Core(World& world, std::uint32_t index) : world_(world), index_(index) {
  endpoint_ = world_.engine.bind<&Core::on_event>(*this);
  done_ = world_.engine.make_slot();
}

void Core::push(JobRef job, Level level) {
  assert(depth_ < stack_.size() && "job stack overflow");
  std::size_t pos = depth_;
  while (pos > 0 && stack_[pos - 1].level >= level)
    --pos;
  if (pos == depth_ && depth_ > 0) pause_top();
  for (std::size_t i = depth_; i > pos; --i)
    stack_[i] = stack_[i - 1];
  stack_[pos] = Job{job, level, Segment{}, Duration::zero(), true};
  ++depth_;
  ++count_[static_cast<std::size_t>(level)];
  if (pos == depth_ - 1) settle();
}

void Core::charge_top(Duration elapsed) {
  const Job& top = stack_[depth_ - 1];
  world_.report.cpu.charge(index_, top.segment.charge, elapsed);
  if (world_.trace && elapsed > Duration::zero()) {
    world_.trace->slice(kTraceCpu, index_, top.segment.label, to_string(top.segment.charge),
                        segment_start_, elapsed);
  }
}

void Core::pause_top() {
  Job& top = stack_[depth_ - 1];
  if (top.fresh) return;
  const Duration elapsed = now() - segment_start_;
  charge_top(elapsed);
  top.remaining -= elapsed;
  segment_start_ = now();
  world_.engine.cancel(done_);
}

void Core::run_top() {
  const Job& top = stack_[depth_ - 1];
  if (idle_since_) {
    if (world_.trace && now() > *idle_since_) {
      world_.trace->slice(kTraceCpu, index_, "idle", "idle", *idle_since_, now() - *idle_since_);
    }
    idle_since_.reset();
  }
  segment_start_ = now();
  world_.engine.arm(done_, now() + top.remaining, endpoint_, kSegmentDone);
}

void Core::pop_top() {
  --count_[static_cast<std::size_t>(stack_[depth_ - 1].level)];
  --depth_;
}

// Makes the top of the stack run: starts fresh jobs (dropping those with nothing to do) and lets
// a raised softirq run before anything of a lower level.
void Core::settle() {
  while (true) {
    if (softirq_pending_ && (depth_ == 0 || stack_[depth_ - 1].level < Level::softirq) &&
        jobs_at(Level::softirq) == 0) {
      softirq_pending_ = false;
      push(softirq_job_, Level::softirq);
      return;  // push() settled
    }
    if (depth_ == 0) {
      if (!idle_since_) idle_since_ = now();
      return;
    }
    Job& top = stack_[depth_ - 1];
    if (!top.fresh) {
      run_top();
      return;
    }
    if (const auto segment = top.ref.type->start(top.ref.self, *this)) {
      Job& started = stack_[depth_ - 1];
      started.segment = *segment;
      started.remaining = segment->length;
      started.fresh = false;
      run_top();
      return;
    }
    pop_top();  // nothing to do
  }
}

void Core::on_event(const Event&) {
  Job& top = stack_[depth_ - 1];
  charge_top(now() - segment_start_);
  top.remaining = Duration::zero();
  segment_start_ = now();
  const JobRef ref = top.ref;
  const std::size_t position = depth_ - 1;
  const auto segment = ref.type->next(ref.self, *this);
  // next() may push jobs of a lower level under the finished one, never above it.
  assert(stack_[depth_ - 1].ref == ref && depth_ - 1 >= position);
  (void)position;
  if (segment) {
    Job& job = stack_[depth_ - 1];
    job.segment = *segment;
    job.remaining = segment->length;
  } else {
    pop_top();
  }
  settle();
}

void Core::finish() {
  if (depth_ > 0) pause_top();  // charge the running segment up to the end
  if (idle_since_ && world_.trace && now() > *idle_since_) {
    world_.trace->slice(kTraceCpu, index_, "idle", "idle", *idle_since_, now() - *idle_since_);
  }
}

}  // namespace irqmod::sim
