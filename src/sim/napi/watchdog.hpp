// napi->timer, the NAPI watchdog: the hrtimer behind napi_defer_hard_irqs / gro_flush_timeout,
// prefer_busy_poll's safety timeout and irq_suspend_timeout. It is armed pinned
// (HRTIMER_MODE_REL_PINNED), so it fires on the core that armed it: a timer interrupt there,
// whose napi_watchdog schedules the context on that core on the way out.
#pragma once

#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/engine.hpp"
#include "sim/cpu/core.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class NapiInstance;

class NapiWatchdog {
 public:
  // `timer_irq`: the timer interrupt's entry and exit (cpu.irq-entry); `late`: how late an
  // hrtimer fires (cpu.hrtimer-late), drawn on the arming core.
  NapiWatchdog(World& world, NapiInstance& owner, Distribution timer_irq, Distribution late);
  NapiWatchdog(const NapiWatchdog&) = delete;
  NapiWatchdog& operator=(const NapiWatchdog&) = delete;

  // hrtimer_start: at `at` on `core`, replacing the deadline it had.
  void arm(Instant at, Core& core);

 private:
  // The timer interrupt on the core that armed it.
  struct TimerIrq {
    NapiWatchdog* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
  };

  void on_event(const Event& event);

  World& world_;
  NapiInstance& owner_;
  Distribution timer_irq_cost_;
  Distribution late_;
  Core* core_ = nullptr;  // the core that armed it last
  TimerIrq job_{};
  EndpointId endpoint_{};
  SlotId slot_{};
};

}  // namespace irqmod::sim
