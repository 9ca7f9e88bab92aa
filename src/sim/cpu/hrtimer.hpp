// What an hrtimer costs the core it is armed on, beyond how late it fires (cpu.hrtimer-late):
//
//   programming   hrtimer_start of a timer that becomes the core's earliest, or hrtimer_cancel
//                 of the earliest, reprograms the core's clock-event device (hrtimer_reprogram,
//                 hrtimer_force_reprogram: kernel/time/hrtimer.c). On bare metal a TSC-deadline
//                 MSR write, tens of ns; on a virtual machine an exit to the hypervisor,
//                 microseconds (cpu.hrtimer-arm, charged to the job that arms or cancels). A timer
//                 due after the core's next scheduler tick (1/cpu.hz away at most while the core is
//                 busy, the tick being an hrtimer too) is not the earliest and is taken to cost
//                 nothing.
//   interrupt     the expiry is a timer interrupt: entry, hrtimer_interrupt running the callback,
//                 the device programmed for the next expiry, exit (cpu.timer-irq). It is the last
//                 part of the lateness, which calibrate measures up to the sleeper running: the
//                 interrupt begins that much before the callback's time and the callback's time
//                 does not move (at most the whole lateness is the interrupt).
//   the sleeper   calibrate's lateness (clock_nanosleep's return less its timeout) runs to the
//                 sleeping thread back in user space: it holds that thread's own wake path after
//                 the callback, try_to_wake_up, the switch from the idle task and the return
//                 (cpu.wakeup, cpu.context-switch, cpu.wakeup-run-local), which the model charges
//                 to the woken thread as for any thread its own core's work woke. So the callback
//                 comes that path's mean before the drawn lateness (not before the timer's due
//                 time): a thread it wakes runs its code about when calibrate's sleeper did, and a
//                 callback that wakes nobody (gro_flush_timeout's, irq_suspend_timeout's) is not
//                 late by a thread's switch-in it does not have. Until 2026-12-04 the path came on
//                 top of the lateness: the lab client's sends left 1.3-2.1x as late as the kernel's
//                 (docs/sim-vs-lab.md, the sixteenth run).
#pragma once

#include <algorithm>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/time.hpp"
#include "sim/cpu/core.hpp"

namespace irqmod::sim {

struct HrtimerCosts {
  Distribution late{};  // cpu.hrtimer-late
  Distribution arm{};   // cpu.hrtimer-arm
  Distribution irq{};   // cpu.timer-irq
  Duration tick{};      // 1 / cpu.hz: a timer due later is behind the tick; zero: none is
  // The mean of a sleeper's own wake path after the callback (cpu.wakeup + cpu.context-switch +
  // cpu.wakeup-run-local), which `late` holds: the callback comes that much before it.
  Duration sleeper{};

  static bool zero(const Distribution& d) { return d.is_constant() && d.a_ns == 0; }
  bool interrupts() const { return !zero(irq); }
  // hrtimer_start, or hrtimer_cancel, of a timer due `delay` from now on `core`: the device's
  // reprogramming, charged to the job running there.
  void program(Core& core, Duration delay) const {
    if (zero(arm) || delay >= tick) return;
    core.stall(core.cost(arm));
  }
};

// One expiry of a timer as a core sees it: when its interrupt begins and how long it runs, the
// callback's time being `due` + the drawn lateness.
struct TimerExpiry {
  Instant irq_at{};
  Duration irq{};
};

inline TimerExpiry draw_expiry(const HrtimerCosts& costs, Core& core, Instant due) {
  const Duration late = std::max(Duration::zero(), core.cost(costs.late) - costs.sleeper);
  const Duration irq = costs.interrupts() ? std::min(core.cost(costs.irq), late) : Duration{};
  return TimerExpiry{due + late - irq, irq};
}

// A timer interrupt that ends in a callback (hrtimer_wakeup for a sleeper): pushed at hardirq
// level on the core for `irq`, the callback run as it ends. Without an interrupt cost the
// callback runs at once.
class TimerInterrupt {
 public:
  using Callback = void (*)(void* self);
  TimerInterrupt(Callback callback, void* self) : callback_(callback), self_(self) {}

  // An expiry while another timer interrupt of the core is under way rides on it: no
  // interrupt of its own, its callback right after that one's (Core::in_timer_irq).
  void fire(Core& core, Duration irq) {
    if (irq <= Duration::zero()) {
      callback_(self_);
      return;
    }
    irq_ = core.in_timer_irq() ? Duration::zero() : irq;
    core.timer_irq_begin();
    core.push(job_of(*this), Level::hardirq);
  }
  std::optional<Segment> start(Core&) { return Segment{irq_, ContextKind::hardirq, "timer irq"}; }
  std::optional<Segment> next(Core& core) {
    core.timer_irq_end();
    callback_(self_);
    return std::nullopt;
  }

 private:
  Callback callback_;
  void* self_;
  Duration irq_{};
};

}  // namespace irqmod::sim
