// A CPU core: a stack of jobs by level (hardirq > softirq > the running thread) over a fair
// scheduler of threads. The running job's segment is one engine event; a higher-level job
// preempts it and it resumes later with the time it had left. CPU time is charged per context
// kind as segments end, and each segment is a slice on the core's timeline.
//
// The core knows a job only as (its type's two functions, the object, the level): it never sees
// an application's phases or a NAPI context. NET_RX is raised as a flag, the way
// __raise_softirq_irqoff sets a pending bit; the core starts the NET_RX job (set_softirq_job) on
// the next occasion where nothing of softirq level or above runs, as irq_exit / local_bh_enable do.
//
// Threads (application threads, ksoftirqd) are SCHED_NORMAL tasks of this core, scheduled by
// FairScheduler (EEVDF): one of them is at the bottom of the stack at a time. A woken thread
// runs at once on an idle core and otherwise when the running thread's slice ends or it blocks;
// a kernel thread (ksoftirqd) is switched out only between its segments (cond_resched).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/engine.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/time.hpp"
#include "sim/cpu/scheduler.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Core;

// One stretch of work: how long, what it is charged to, and its name on the timeline.
struct Segment {
  Duration length{};
  ContextKind charge = ContextKind::thread;
  std::string_view label;  // a string literal: the trace keeps it until the slice is written
};

// A job's behaviour. start(): the job reached the top for the first time; its first segment, or
// none when it has nothing to do (it is dropped). next(): its segment ended; the next segment, or
// none when the job is finished. A thread whose job is finished blocks, unless `yields` says it
// only gave the CPU away (cond_resched) and is still runnable: its job start()s again later.
struct JobType {
  std::optional<Segment> (*start)(void* self, Core& core);
  std::optional<Segment> (*next)(void* self, Core& core);
  bool (*yields)(const void* self) = nullptr;
};

// A job as the core holds it: its type and object.
struct JobRef {
  const JobType* type = nullptr;
  void* self = nullptr;
  friend bool operator==(const JobRef&, const JobRef&) = default;
};

// The type whose start() and next() call `T::start(Core&)` and `T::next(Core&)` (and yields()
// `T::yields()` when T has one).
template <typename T>
inline constexpr JobType kJobTypeOf{
    [](void* self, Core& core) { return static_cast<T*>(self)->start(core); },
    [](void* self, Core& core) { return static_cast<T*>(self)->next(core); },
    [](const void* self) {
      if constexpr (requires(const T& t) { t.yields(); }) {
        return static_cast<const T*>(self)->yields();
      } else {
        (void)self;
        return false;
      }
    }};

template <typename T>
JobRef job_of(T& object) {
  return JobRef{&kJobTypeOf<T>, &object};
}

// How late a thread woken on this core starts when the core was idle (the wake-up came from
// another core: an IPI to a core in the idle loop). On a virtual machine a vCPU that went idle
// executes HLT and the host stops running it; the longer it stays idle, the later it runs again
// (the host's halt polling ends, its caches go cold). So: `remote` always, plus `growth` at the
// core's idle time, linear between its points (idle increasing), the first point's before it and
// the last one's beyond it. All zero (the default): a woken thread on an idle core runs at once.
struct IdleExit {
  struct Point {
    Duration idle{};   // how long the core had been idle
    Duration added{};  // what the exit takes more then than after a short idle
  };
  Distribution remote{};      // cpu.wakeup-remote
  std::vector<Point> growth;  // cpu.wakeup-idle
  // cpu.wakeup-run: of the exit, the part at its end in which the core runs the woken thread
  // (its switch-in and return to user space; a vCPU's exits on that path): busy, charged to that
  // thread's first segment, the exit no longer. 0: the whole exit is idle.
  Distribution run{};
  // cpu.wakeup-run-local: a thread switched in where the idle task ran, woken by this core's own
  // interrupt work (a NAPI poll in softirq over idle, its own timer): the idle task's switch to
  // it and its return to user space (on a virtual machine the exits on that path), charged to
  // its first segment. There is no IPI and no halted vCPU to wait for, so no exit latency:
  // the thread's work starts that much later. 0: the switch costs cpu.wakeup and
  // cpu.context-switch only, as between two running threads.
  Distribution run_local{};
  bool enabled() const { return !(remote.is_constant() && remote.a_ns == 0) || !growth.empty(); }
  // `growth` at `idle`.
  Duration added(Duration idle) const;
};

// Time the host takes from a core (cpu.noise, cpu.noise-long): the tick, the interrupts of
// devices the model does not have, other tasks, and on a virtual machine the exits and the
// host's own preemptions of the vCPU. A source is a renewal process: the next event comes a
// draw of `interval` after the last, and stops the core, whatever runs there, for a draw of
// `length`. Over a running job it is charged as what it interrupted (a kernel without IRQ time
// accounting charges the tick to the running task, and a guest whose steal clock does not see
// the host's preemption counts it as its own: a spinning thread's user time on the development
// guest, 2026-12-03). Over the idle task it is charged to nothing (the guest counts idle) but
// the core is away: an interrupt or a wake-up meanwhile waits for its end, as a vCPU the host
// does not run wakes late; the idle exit (cpu.wakeup-remote, cpu.wakeup-idle) is fitted
// through its p10-p90 and holds none of that tail. calibrate measures both sources as the gaps
// a spinning thread sees in its clock.
struct NoiseSource {
  Distribution interval{};  // between two events; zero: no events
  Distribution length{};    // of one event
  bool enabled() const { return !(interval.is_constant() && interval.a_ns == 0); }
};

// Job levels, lowest first; a job preempts every job of a lower level. `noise`: the host's
// (NoiseSource), above everything the kernel runs.
enum class Level : std::uint8_t { thread, softirq, hardirq, noise, kCount };

class Core {
 public:
  // The most jobs a core's stack holds: the running thread, NET_RX and hardirqs queued behind
  // the running one (each vector is masked while its interrupt is handled).
  static constexpr std::size_t kMaxJobs = 8;

  // `rng`: the core's own stream for the cost model's draws; `slice`: the scheduler's.
  Core(World& world, std::uint32_t index, Rng rng, Duration slice);
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  std::uint32_t index() const { return index_; }
  World& world() { return world_; }
  Instant now() const { return world_.now(); }

  // The NET_RX job, started when the softirq is raised (set once, at set-up).
  void set_softirq_job(JobRef job) { softirq_job_ = job; }
  // ksoftirqd: while its job is under way it runs softirqs with bottom halves disabled, so an
  // interrupt that raises NET_RX meanwhile leaves it pending for ksoftirqd's own loop
  // (irq_exit's invoke_softirq sees in_interrupt()) instead of starting the softirq job on top.
  void set_softirq_thread(std::uint32_t thread) { softirq_thread_ = thread; }

  // Puts a hardirq or softirq `job` on the stack, behind the jobs of its level already there;
  // starts it now if it is the highest.
  void push(JobRef job, Level level);

  // A thread of this core (at set-up). An application thread is switched out as soon as the
  // scheduler says so; a kernel thread (`kernel`) only when it yields (ksoftirqd between passes).
  std::uint32_t add_thread(JobRef job, bool kernel);
  // The thread becomes runnable (try_to_wake_up): its job start()s when it next runs. On an idle
  // core it starts after the idle exit (set_idle_exit), unless `local_timer`: a timer of this
  // core woke it, whose lateness already holds the exit (cpu.hrtimer-late).
  void wake(std::uint32_t thread, bool local_timer = false);
  void set_idle_exit(const IdleExit& exit) { idle_exit_ = exit; }
  // What the waker's core spends sending the IPI of a wake-up (cpu.wakeup-ipi): to this core
  // when it is idle (ttwu_queue_wakelist's call-function IPI: its idle loop does not poll) or
  // when the woken thread preempts the one running here (resched_curr's reschedule IPI). The
  // waker is the core whose job is running (World::acting_core); its next segment is that much
  // longer. 0 (the default): the send is free.
  void set_wakeup_ipi(const Distribution& cost) { wakeup_ipi_ = cost; }
  // What the waker's core spends in try_to_wake_up for a thread of this core (cpu.wakeup: the
  // wait queue's callback, the remote run queue's lock and the enqueue, kernel/sched/core.c),
  // whenever the wake-up finds the thread asleep or on its way to sleep; a wake-up of a thread
  // already runnable or already being woken returns at ttwu's state check and costs nothing here.
  // The woken thread's own share stays in its first segment (cpu.wakeup + cpu.context-switch +
  // cpu.wakeup-run: calibrate takes cpu.wakeup out of both sides' measurements, the waker's
  // cpu.wakeup-ipi and the wakee's cpu.wakeup-run). A wake-up from this core's own work is
  // charged to the woken thread only (a same-CPU hand-off, what cpu.wakeup measures). 0 (the
  // default): the waker pays only the IPI.
  void set_waker_wakeup(const Distribution& cost) { waker_wakeup_ = cost; }
  // Timer interrupts pushed on this core and not yet at their callback (sim/cpu/hrtimer.hpp's
  // TimerInterrupt, the NAPI watchdog's): an hrtimer expiring meanwhile is run by the same
  // hrtimer_interrupt (kernel/time/hrtimer.c: __hrtimer_run_queues runs every expired timer, and
  // the interrupt loops again when the next expiry passed while it ran), so it takes no
  // interrupt of its own, only its callback after the one under way.
  void timer_irq_begin() { ++timer_irqs_; }
  void timer_irq_end() { --timer_irqs_; }
  bool in_timer_irq() const { return timer_irqs_ > 0; }
  // The host's noise on this core (NoiseSource), its events and lengths drawn from `rng` (its
  // own stream: turning noise on shifts no other draw). The first event of each source comes a
  // draw of its interval after now.
  void set_noise(const std::array<NoiseSource, 2>& sources, Rng rng);
  // Time this core spends before its next segment: added to the segment its running job goes
  // on with, or a segment of its own when that job has finished.
  void stall(Duration d) { stall_ += d; }
  Duration pending_stall() const { return stall_; }  // what the next segment begins with
  bool runnable(std::uint32_t thread) const { return scheduler_.runnable(thread); }
  // The thread's running segment ends now (or, when it is not running, as soon as it runs
  // again): a spinning thread that sees data in its socket stops spinning.
  void end_segment_now(std::uint32_t thread);

  // need_resched(): a thread that is not running should run (a woken thread on a core that was
  // idle, or the end of the running thread's slice with another waiting).
  bool need_resched() const { return resched_; }

  // NET_RX pending (__raise_softirq_irqoff): the softirq job runs once nothing of softirq level
  // or above is running.
  void raise_softirq() { softirq_pending_ = true; }
  // The pending bit is taken: the running NET_RX job handles what raised it.
  void clear_softirq() { softirq_pending_ = false; }
  bool softirq_pending() const { return softirq_pending_; }

  // Jobs of `level` on the stack (running or preempted).
  std::size_t jobs_at(Level level) const { return count_[static_cast<std::size_t>(level)]; }

  // The CPU time of `times` operations costing `cost` each: drawn from this core's stream, one
  // draw per operation (a constant cost draws nothing).
  Duration cost(const Distribution& cost, std::int64_t times = 1) {
    if (cost.is_constant()) return times * Duration{cost.a_ns};
    Duration total{};
    for (std::int64_t i = 0; i < times; ++i)
      total += cost.draw(rng_);
    return total;
  }

  // Charges the running segment up to now and writes the idle time left open: the end of a run.
  void finish();
  // Charges the running segment up to now without ending it: the end of a warm-up.
  void charge_to_now() {
    if (depth_ > 0 && !stack_[depth_ - 1].fresh) sync_top();
  }

 private:
  struct Job {
    JobRef ref;
    Level level = Level::thread;
    Segment segment;       // the running segment (length = its whole length)
    Duration remaining{};  // of the running segment
    bool fresh = true;     // not started: start() has not been called
  };
  struct Thread {
    Job job;  // its state while it is not on the stack
    bool kernel = false;
    bool from_own_idle = false;  // woken by this core's interrupt work over its idle task
    // Its job is done and it runs only what its last system call left (a softirq it raised, a
    // stall it caused) before it sleeps; `woken`: a wake-up came meanwhile (it stays runnable).
    bool finishing = false;
    bool woken = false;
  };

  void on_event(const Event& event);
  // `own_idle`: the core ran its idle task and its own interrupt work woke the thread
  // (cpu.wakeup-run-local is charged to the thread's first segment).
  void wake_now(std::uint32_t thread, bool own_idle);
  void settle();
  void pause_top();
  void sync_top();
  void run_top();
  void charge_top(Duration elapsed);
  void pop_top();
  void install(std::uint32_t thread);
  void uninstall();
  void reschedule();
  void finish_thread(bool yielded);
  void arm_slice();
  void send_ipi();
  void charge_waker();  // the waker's try_to_wake_up (set_waker_wakeup)
  Duration take_stall();
  std::optional<Segment> call_job(const JobRef& ref, bool first);
  void on_noise(std::size_t source);
  bool idle_noise_on_top() const;
  // A finished job's stall left to pay: a segment of its own at `level`, charged as `charge`.
  void push_stall(Level level, ContextKind charge);
  struct StallJob {
    Segment pending;
    bool queued = false;
    std::optional<Segment> start(Core&) { return pending; }
    std::optional<Segment> next(Core&) {
      queued = false;
      return std::nullopt;
    }
  };

  // The host's time away from the core (NoiseSource): one event's length; a second event while
  // one is under way adds its length to it.
  struct NoiseJob {
    Segment pending;
    Duration more{};
    bool queued = false;
    bool over_idle = false;  // it came when the core ran nothing
    std::optional<Segment> start(Core&) { return pending; }
    std::optional<Segment> next(Core&) {
      if (more == Duration::zero()) {
        queued = false;
        return std::nullopt;
      }
      Segment s{more, pending.charge, pending.label};
      more = Duration::zero();
      return s;
    }
  };

  World& world_;
  std::uint32_t index_;
  EndpointId endpoint_{};
  SlotId done_{};            // the running segment's end
  SlotId slice_{};           // the running thread's slice end, while another thread waits
  SlotId idle_exit_slot_{};  // the first idle exit under way ends
  IdleExit idle_exit_{};
  Duration exit_run_{};  // cpu.wakeup-run of the exit under way
  Distribution wakeup_ipi_{};
  Distribution waker_wakeup_{};
  std::uint32_t timer_irqs_ = 0;  // timer_irq_begin() less timer_irq_end()
  Duration stall_{};
  std::array<StallJob, kMaxJobs> stall_jobs_{};
  std::array<NoiseSource, 2> noise_{};
  std::array<SlotId, 2> noise_slots_{};
  Rng noise_rng_{0, 0};
  NoiseJob noise_job_{};
  std::vector<std::uint32_t> exiting_;  // threads woken on the idle core, not yet running
  std::array<Job, kMaxJobs> stack_{};
  std::size_t depth_ = 0;
  std::array<std::size_t, static_cast<std::size_t>(Level::kCount)> count_{};
  Instant segment_start_{};
  JobRef softirq_job_{};
  std::optional<std::uint32_t> softirq_thread_;
  bool softirq_pending_ = false;
  std::optional<Instant> idle_since_ = Instant{};  // nothing to run since then (for the trace)
  Rng rng_;
  FairScheduler scheduler_;
  std::vector<Thread> threads_;
  std::optional<std::uint32_t> current_;  // the thread at the bottom of the stack
  bool resched_ = false;
};

}  // namespace irqmod::sim
