// A core's job stack and its threads. See core.hpp.
#include "sim/cpu/core.hpp"

#include <cassert>

namespace irqmod::sim {
namespace {

enum CoreEvent : std::uint16_t {
  kSegmentDone = 1,  // the running segment ends
  kSliceEnd,         // the running thread's slice is used up while another thread waits
  kIdleExit,         // the idle core is out of its idle state: the threads woken meanwhile run
  kNoise,            // + source: the host takes the core (NoiseSource)
};

// World::acting_core for the length of a job's start() or next() (nested: a wake-up inside one
// may start a job on the woken core).
class Acting {
 public:
  Acting(World& world, Core* core) : world_(world), before_(world.acting_core) {
    world_.acting_core = core;
  }
  ~Acting() { world_.acting_core = before_; }
  Acting(const Acting&) = delete;
  Acting& operator=(const Acting&) = delete;

 private:
  World& world_;
  Core* before_;
};

}  // namespace

Core::Core(World& world, std::uint32_t index, Rng rng, Duration slice)
    : world_(world), index_(index), rng_(rng), scheduler_(slice) {
  endpoint_ = world_.engine.bind<&Core::on_event>(*this);
  done_ = world_.engine.make_slot();
  slice_ = world_.engine.make_slot();
  idle_exit_slot_ = world_.engine.make_slot();
}

void Core::set_noise(const std::array<NoiseSource, 2>& sources, Rng rng) {
  noise_ = sources;
  noise_rng_ = rng;
  for (std::size_t i = 0; i < noise_.size(); ++i) {
    if (!noise_[i].enabled()) continue;
    if (noise_slots_[i] == SlotId{}) noise_slots_[i] = world_.engine.make_slot();
    world_.engine.arm(noise_slots_[i], now() + noise_[i].interval.draw(noise_rng_), endpoint_,
                      static_cast<std::uint16_t>(kNoise + i));
  }
}

void Core::on_noise(std::size_t source) {
  const NoiseSource& noise = noise_[source];
  // The next event's time is drawn first, its length second: the events' times do not depend
  // on whether the core was busy.
  const Duration interval = noise.interval.draw(noise_rng_);
  const Duration length = noise.length.draw(noise_rng_);
  world_.engine.arm(noise_slots_[source], now() + std::max(interval, Duration{1}), endpoint_,
                    static_cast<std::uint16_t>(kNoise + source));
  if (length == Duration::zero()) return;
  if (noise_job_.queued) {
    noise_job_.more += length;
    return;
  }
  noise_job_.queued = true;
  // Over the idle task: the vCPU is away, the guest counts the time as idle.
  noise_job_.over_idle = depth_ == 0;
  const ContextKind charge = depth_ == 0 ? ContextKind::thread : stack_[depth_ - 1].segment.charge;
  noise_job_.pending = Segment{length, charge, "noise"};
  noise_job_.more = Duration::zero();
  push(job_of(noise_job_), Level::noise);
}

Duration IdleExit::added(Duration idle) const {
  if (growth.empty()) return Duration::zero();
  if (idle <= growth.front().idle) return growth.front().added;
  for (std::size_t i = 1; i < growth.size(); ++i) {
    const Point& a = growth[i - 1];
    const Point& b = growth[i];
    if (idle > b.idle) continue;
    const double f = static_cast<double>((idle - a.idle).count()) /
                     static_cast<double>((b.idle - a.idle).count());
    return a.added + Duration{static_cast<std::int64_t>(
                         f * static_cast<double>((b.added - a.added).count()) + 0.5)};
  }
  return growth.back().added;
}

// ---- the stack -------------------------------------------------------------------------------

void Core::push(JobRef job, Level level) {
  assert(level != Level::thread && "threads are woken, not pushed");
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

bool Core::idle_noise_on_top() const {
  return depth_ > 0 && stack_[depth_ - 1].level == Level::noise && noise_job_.over_idle;
}

void Core::charge_top(Duration elapsed) {
  const Job& top = stack_[depth_ - 1];
  if (top.level == Level::noise && noise_job_.over_idle) return;  // idle in the guest's count
  world_.report.cpu.charge(index_, top.segment.charge, elapsed);
  if (top.level != Level::thread && count_[static_cast<std::size_t>(Level::thread)] == 0)
    world_.report.cpu.charge_over_idle(index_, elapsed);
  if (top.level == Level::thread) scheduler_.ran(*current_, elapsed);
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
  if (top.level == Level::thread) world_.engine.cancel(slice_);
}

// Charges the running segment up to now without stopping it: its end stays where it was.
void Core::sync_top() {
  Job& top = stack_[depth_ - 1];
  const Duration elapsed = now() - segment_start_;
  charge_top(elapsed);
  top.remaining -= elapsed;
  segment_start_ = now();
}

void Core::run_top() {
  const Job& top = stack_[depth_ - 1];
  // The host's noise over the idle task leaves the core idle in the guest's count (and on its
  // timeline): the idle goes on under it.
  if (idle_since_ && !idle_noise_on_top()) {
    if (world_.trace && now() > *idle_since_) {
      world_.trace->slice(kTraceCpu, index_, "idle", "idle", *idle_since_, now() - *idle_since_);
    }
    idle_since_.reset();
  }
  segment_start_ = now();
  world_.engine.arm(done_, now() + top.remaining, endpoint_, kSegmentDone);
  if (top.level == Level::thread) {
    if (scheduler_.pick(current_) == current_) resched_ = false;  // the scheduler's choice runs
    arm_slice();
  }
}

void Core::pop_top() {
  --count_[static_cast<std::size_t>(stack_[depth_ - 1].level)];
  --depth_;
}

// Makes the top of the stack run: starts fresh jobs (dropping those with nothing to do, blocking
// threads that have nothing to do) and lets a raised softirq run before anything below it.
void Core::settle() {
  while (true) {
    const bool bh_disabled = current_ && current_ == softirq_thread_ && !stack_[0].fresh;
    if (softirq_pending_ && (depth_ == 0 || stack_[depth_ - 1].level < Level::softirq) &&
        jobs_at(Level::softirq) == 0 && !bh_disabled) {
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
    if (auto segment = call_job(top.ref, true)) {
      if (top.level == Level::thread && threads_[*current_].from_own_idle) {
        threads_[*current_].from_own_idle = false;
        segment->length += cost(idle_exit_.run_local);
      }
      Job& started = stack_[depth_ - 1];
      started.segment = *segment;
      started.remaining = segment->length;
      started.fresh = false;
      run_top();
      return;
    }
    if (top.level == Level::thread) {
      finish_thread(top.ref.type->yields(top.ref.self));
    } else {
      pop_top();  // nothing to do
    }
  }
}

void Core::on_event(const Event& event) {
  if (event.kind() >= kNoise) {
    on_noise(event.kind() - kNoise);
    return;
  }
  if (event.kind() == kIdleExit) {
    std::vector<std::uint32_t> woken;
    woken.swap(exiting_);
    // The exit's last part runs the first woken thread: its first segment is that much longer.
    stall(exit_run_);
    exit_run_ = Duration::zero();
    for (const std::uint32_t thread : woken)
      wake_now(thread, false);
    return;
  }
  if (event.kind() == kSliceEnd) {
    // update_deadline: the running thread used its slice; another may run now.
    pause_top();
    if (scheduler_.slice_used(*current_)) scheduler_.renew(*current_);
    reschedule();
    settle();
    return;
  }
  Job& top = stack_[depth_ - 1];
  charge_top(now() - segment_start_);
  top.remaining = Duration::zero();
  segment_start_ = now();
  const JobRef ref = top.ref;
  const Level level = top.level;
  if (level == Level::thread) world_.engine.cancel(slice_);
  const ContextKind charge = top.segment.charge;
  if (level == Level::thread && threads_[*current_].finishing) {
    Thread& done = threads_[*current_];
    const bool runnable = done.woken || ref.type->yields(ref.self);
    done.finishing = done.woken = false;
    finish_thread(runnable);
    settle();
    return;
  }
  const auto segment = call_job(ref, false);
  // next() may push jobs of a lower level under the finished one, never above it.
  assert(stack_[depth_ - 1].ref == ref);
  if (segment) {
    Job& job = stack_[depth_ - 1];
    job.segment = *segment;
    job.remaining = segment->length;
  } else if (level == Level::thread && current_ != softirq_thread_ &&
             (softirq_pending_ || stall_ > Duration::zero())) {
    // The thread's last system call is not over: the softirq it raised runs at that call's
    // local_bh_enable (a veth or loopback send's NAPI, napi_resume_irqs's), and the IPIs it
    // sent and the timers it armed are its time, before it sleeps (/proc/PID/stat counts them).
    Thread& thread = threads_[*current_];
    thread.finishing = true;
    thread.woken = false;
    Job& job = stack_[depth_ - 1];
    job.segment = Segment{take_stall(), charge, "syscall tail"};
    job.remaining = job.segment.length;
  } else if (level == Level::thread) {
    finish_thread(ref.type->yields(ref.self));
    push_stall(Level::softirq, charge);
  } else {
    pop_top();
    push_stall(level, charge);
  }
  settle();
}

// A job's start() (`first`) or next(), with this core acting (World::acting_core): the stall of
// the IPIs its wake-ups sent lengthens the segment it returns.
std::optional<Segment> Core::call_job(const JobRef& ref, bool first) {
  std::optional<Segment> segment;
  {
    const Acting acting(world_, this);
    segment = first ? ref.type->start(ref.self, *this) : ref.type->next(ref.self, *this);
  }
  if (segment) segment->length += take_stall();
  return segment;
}

Duration Core::take_stall() {
  const Duration d = stall_;
  stall_ = Duration::zero();
  return d;
}

void Core::push_stall(Level level, ContextKind charge) {
  if (stall_ == Duration::zero()) return;
  for (StallJob& job : stall_jobs_) {
    if (job.queued) continue;
    job.queued = true;
    job.pending = Segment{take_stall(), charge, "stall"};
    push(job_of(job), level);
    return;
  }
  assert(false && "more stalls queued than the stack holds jobs");
}

// The waker (the acting core, when it is another) pays for the IPI this wake-up sends.
void Core::send_ipi() {
  Core* waker = world_.acting_core;
  if (waker == nullptr || waker == this) return;
  if (wakeup_ipi_.is_constant() && wakeup_ipi_.a_ns == 0) return;
  waker->stall(waker->cost(wakeup_ipi_));
}

void Core::charge_waker() {
  Core* waker = world_.acting_core;
  if (waker == nullptr || waker == this) return;
  if (waker_wakeup_.is_constant() && waker_wakeup_.a_ns == 0) return;
  waker->stall(waker->cost(waker_wakeup_));
}

// ---- threads ---------------------------------------------------------------------------------

std::uint32_t Core::add_thread(JobRef job, bool kernel) {
  const std::uint32_t id = scheduler_.add();
  threads_.push_back(Thread{Job{job, Level::thread, Segment{}, Duration::zero(), true}, kernel});
  return id;
}

// Puts `thread` at the bottom of the stack, under any interrupt work.
void Core::install(std::uint32_t thread) {
  assert(!current_ && depth_ < stack_.size());
  for (std::size_t i = depth_; i > 0; --i)
    stack_[i] = stack_[i - 1];
  stack_[0] = threads_[thread].job;
  ++depth_;
  ++count_[static_cast<std::size_t>(Level::thread)];
  current_ = thread;
  scheduler_.picked(thread);
}

// Takes the current thread off the stack, keeping its job's state.
void Core::uninstall() {
  assert(current_ && jobs_at(Level::thread) == 1);
  if (depth_ == 1) pause_top();
  threads_[*current_].job = stack_[0];
  for (std::size_t i = 0; i + 1 < depth_; ++i)
    stack_[i] = stack_[i + 1];
  --depth_;
  --count_[static_cast<std::size_t>(Level::thread)];
  current_.reset();
}

// The scheduler's choice replaces the current thread, when it differs and the current one can
// be switched out now (an application thread; a kernel thread yields by itself).
void Core::reschedule() {
  const auto next = scheduler_.pick(current_);
  if (next == current_) return;
  if (current_ && threads_[*current_].kernel) {
    resched_ = true;  // ksoftirqd sees need_resched() at its next pass and yields
    return;
  }
  if (current_) uninstall();
  if (next) {
    install(*next);
    resched_ = true;
  }
}

// The current thread's job is finished: it blocks, or (yielded) stays runnable with a job to
// start again; the scheduler picks who runs next.
void Core::finish_thread(bool yielded) {
  const std::uint32_t thread = *current_;
  Job& job = stack_[0];
  job.fresh = true;
  job.remaining = Duration::zero();
  if (!yielded) scheduler_.block(thread);
  if (yielded && scheduler_.slice_used(thread)) scheduler_.renew(thread);
  uninstall();
  threads_[thread].job.fresh = true;
  if (const auto next = scheduler_.pick(std::nullopt)) install(*next);
}

void Core::wake(std::uint32_t thread, bool local_timer) {
  if (threads_[thread].finishing) {
    // try_to_wake_up before its schedule() (it may have been preempted in between): it does not
    // sleep (ttwu_runnable: the waker takes its run queue's lock and sets it running).
    if (!threads_[thread].woken) charge_waker();
    threads_[thread].woken = true;
    return;
  }
  if (scheduler_.runnable(thread)) return;
  // A core whose idle task is current (no thread: nr_running 0) is woken through its wake list
  // and a call-function IPI (kernel/sched/core.c ttwu_queue_cond: `!cpu_rq(cpu)->nr_running`;
  // kernel/smp.c sends it unless the idle loop polls, which a halting one does not) whether it is
  // halted or running interrupt work over the idle task; only the first wake-up of an idle exit
  // sends one (the next ones find the wake list queued), and a wake-up by this core's own work
  // (its timer, its softirq over the idle task) none. Only a halted core (`core_idle`) has an
  // exit to wait for. (The host's noise over the idle task leaves it halted: the wake-up waits
  // for both the exit and the noise's end.)
  const bool core_idle = !current_ && (depth_ == 0 || (depth_ == 1 && idle_noise_on_top()));
  // The idle task is current and this core's own work woke the thread: its timer, or a softirq
  // (or hardirq) running over the idle task.
  const bool own_idle = !current_ && (local_timer || world_.acting_core == this);
  for (const std::uint32_t t : exiting_)
    if (t == thread) return;  // already on its way
  charge_waker();
  if (!current_ && !local_timer && exiting_.empty()) send_ipi();
  if (idle_exit_.enabled() && !local_timer && core_idle) {
    if (exiting_.empty()) {
      const Duration idle = idle_since_ ? now() - *idle_since_ : Duration::zero();
      const Duration exit = cost(idle_exit_.remote) + idle_exit_.added(idle);
      exit_run_ = std::min(exit, cost(idle_exit_.run));
      exiting_.push_back(thread);
      world_.engine.arm(idle_exit_slot_, now() + exit - exit_run_, endpoint_, kIdleExit);
      return;
    }
    exiting_.push_back(thread);  // rides on the exit already under way
    return;
  }
  wake_now(thread, own_idle);
}

void Core::wake_now(std::uint32_t thread, bool own_idle) {
  if (scheduler_.runnable(thread)) return;
  // update_curr() before place_entity(): the running thread's time so far counts in the average
  // the woken thread is placed at.
  const bool running = current_ && depth_ == 1 && !stack_[0].fresh;
  if (running) sync_top();
  scheduler_.wake(thread);
  if (!current_) {
    threads_[thread].from_own_idle = own_idle;
    install(thread);
    resched_ = true;  // an idle core runs the woken thread at once
    if (depth_ == 1) settle();
    return;
  }
  // check_preempt_wakeup_fair: the woken thread runs now only if the scheduler picks it over the
  // current one (RUN_TO_PARITY keeps a thread in its slice); else at the end of the slice.
  const auto before = current_;
  reschedule();
  if (current_ != before) {
    send_ipi();  // resched_curr on another core: the reschedule IPI
    if (depth_ == 1) settle();
  } else if (running) {
    arm_slice();
  }
}

void Core::end_segment_now(std::uint32_t thread) {
  if (current_ == thread) {
    Job& job = stack_[0];
    if (job.fresh) return;
    if (depth_ == 1) {
      pause_top();
      job.remaining = Duration::zero();
      run_top();
    } else {
      job.remaining = Duration::zero();  // resumes when the interrupt work above it is done
    }
    return;
  }
  Job& job = threads_[thread].job;
  if (!job.fresh) job.remaining = Duration::zero();
}

// The running thread's slice end, while another thread waits for the core.
void Core::arm_slice() {
  if (!current_ || scheduler_.runnable_count() < 2 || depth_ == 0 ||
      stack_[depth_ - 1].level != Level::thread) {
    world_.engine.cancel(slice_);
    return;
  }
  world_.engine.arm(slice_, now() + scheduler_.slice_left(*current_), endpoint_, kSliceEnd);
}

void Core::finish() {
  if (depth_ > 0) pause_top();  // charge the running segment up to the end
  if (idle_since_ && world_.trace && now() > *idle_since_) {
    world_.trace->slice(kTraceCpu, index_, "idle", "idle", *idle_since_, now() - *idle_since_);
  }
}

}  // namespace irqmod::sim
