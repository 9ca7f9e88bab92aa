// napi->timer, the NAPI watchdog: the hrtimer behind napi_defer_hard_irqs / gro_flush_timeout,
// prefer_busy_poll's safety timeout and irq_suspend_timeout. It is armed pinned
// (HRTIMER_MODE_REL_PINNED), so it fires on the core that armed it: a timer interrupt there,
// whose napi_watchdog schedules the context on that core on the way out.
#pragma once

#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/engine.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/hrtimer.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class NapiInstance;

class NapiWatchdog {
 public:
  // `timers`: how late an hrtimer fires, drawn on the arming core, and what arming it and its
  // interrupt cost (hrtimer.hpp); `irq_entry`: the interrupt's cost when `timers` gives none
  // (cpu.irq-entry, as a device interrupt's, after the lateness).
  NapiWatchdog(World& world, NapiInstance& owner, const HrtimerCosts& timers,
               Distribution irq_entry);
  NapiWatchdog(const NapiWatchdog&) = delete;
  NapiWatchdog& operator=(const NapiWatchdog&) = delete;

  // hrtimer_start: at `at` on `core`, replacing the deadline it had; the device's programming is
  // charged to the job running on `core`.
  void arm(Instant at, Core& core);

 private:
  // The timer interrupt on the core that armed it.
  struct TimerIrq {
    NapiWatchdog* owner = nullptr;
    bool coalesced = false;  // expired inside another timer interrupt of the core
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
  };

  void on_event(const Event& event);

  World& world_;
  NapiInstance& owner_;
  HrtimerCosts timers_;
  Distribution irq_entry_;
  Duration irq_{};        // the pending expiry's interrupt, when timers_ gives one
  Core* core_ = nullptr;  // the core that armed it last
  TimerIrq job_{};
  EndpointId endpoint_{};
  SlotId slot_{};
};

}  // namespace irqmod::sim
