// A NAPI instance: the policy library's napi::Context (napi_struct's state) with what
// net/core/dev.c does around it, for one device queue reached through the narrow device
// interface (device.hpp). It is the one way to a NAPI context for everything above the device:
// NET_RX polls it (NapiOps), the busy loop (busy_loop.hpp) polls it, epoll suspends and resumes
// its interrupts, the device's interrupt handler schedules it.
//
//   scheduling    napi_schedule on a core: the context joins that core's poll list and NET_RX
//                 is raised, or with threaded NAPI (napi.threaded) its thread is woken
//                 (____napi_schedule's NAPI_STATE_THREADED branch: thread.hpp)
//   poll-in-irq   napi.poll-in-irq: the interrupt handler runs the poll itself at hardirq level
//                 and the device re-enables at its end (OpenBSD's ixgbe_intr; pre-NAPI drivers)
//   completion    after every poll: the device delivers, napi->timer is armed when NAPI asks
//                 (deferral, prefer-busy-poll and IRQ-suspension watchdog: watchdog.hpp), a
//                 context that used its weight goes back on the list, the device's tail runs
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/metrics.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/napi/device.hpp"
#include "sim/napi/thread.hpp"
#include "sim/napi/watchdog.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// What a NAPI instance is, beside the context's own settings.
struct NapiSettings {
  napi::Config context{};        // napi.weight, the deferral and suspension settings
  bool poll_in_irq = false;      // napi.poll-in-irq
  NapiThreadSettings thread{};   // napi.threaded, napi.thread-core
  HrtimerCosts timers{};         // the watchdog's hrtimer: lateness, programming, interrupt
  Distribution irq_entry{};      // cpu.irq-entry: its interrupt when timers has no cpu.timer-irq
  Distribution thread_wakeup{};  // cpu.wakeup: a sleeping NAPI thread woken
  Distribution thread_switch{};  // cpu.context-switch: ... and switched to
};

class NapiInstance {
 public:
  // NAPI id `id` (0 means none, as below MIN_NAPI_ID) of `device`; `net_rx`: the cores' NET_RX
  // by core index; `home_core`: the core of the device's interrupt, where a NAPI thread runs
  // unless napi.thread-core says otherwise.
  NapiInstance(World& world, std::uint32_t id, DeviceRef device, std::vector<NetRx*> net_rx,
               std::uint32_t home_core, const NapiSettings& settings);
  NapiInstance(const NapiInstance&) = delete;
  NapiInstance& operator=(const NapiInstance&) = delete;

  std::uint32_t id() const { return id_; }
  napi::Context& context() { return context_; }
  const napi::Context& context() const { return context_; }
  const napi::Counters& counters() const { return context_.counters(); }
  World& world() { return world_; }

  // ---- the device's side ----
  // The device's interrupt handler on `core` (napi_schedule_irqoff): schedules the context
  // there, or with napi.poll-in-irq polls it in the handler.
  void on_interrupt(Core& core);

  // ---- scheduling and the watchdog ----
  // The context is scheduled (interrupt, watchdog, resume_irqs, repoll) on `core`'s list; with
  // threaded NAPI its thread is woken instead.
  void schedule_on(Core& core);
  // hrtimer_start(&napi->timer, ..., HRTIMER_MODE_REL_PINNED): runs on the core that armed it.
  void arm_timer(Instant at, Core& core) { watchdog_.arm(at, core); }

  // ---- epoll with prefer_busy_poll (Linux 6.13's IRQ suspension) ----
  // ep_suspend_napi_irqs: epoll_wait returned events.
  void suspend_irqs(Core& core);
  // ep_resume_napi_irqs: epoll_wait found none.
  void resume_irqs(Core& core);

  // ---- polling from the busy loop ----
  void land() { device_.ops->land(device_.self, world_.now()); }
  Instant next_work() const { return device_.ops->next_work(device_.self); }
  // A busy loop's turn (busy) or busy_poll_stop's final poll: counted as the core's busy polls.
  PollStart poll(int budget, Core& core, PollKind kind);
  int poll_return(int budget, const Core& core) {
    return device_.ops->poll_return(device_.self, budget, core);
  }
  // After any poll on `core`: delivery, the timer NAPI asked for, a repoll, the device's tail.
  void complete(const napi::PollResult& result, Core& core);

  // ---- NAPI as net_rx_action sees it (NapiOps) ----
  bool take(const Core& core) const;
  Duration poll_begin(Core& core);
  std::optional<Duration> poll_more(Core& core) {
    return device_.ops->poll_more(device_.self, core);
  }
  int poll_end(Core& core);
  NapiRef napi_ref() { return NapiRef{&kNapiOps, this}; }

  // ---- threaded NAPI ----
  bool threaded() const { return thread_.has_value(); }
  std::uint32_t thread_core() const { return thread_ ? thread_->core() : 0; }
  const NapiThreadStats& thread_stats() const;
  // SCHED_THREADED: the context is the thread's to poll (scheduled, no poll running).
  bool thread_owns() const {
    return context_.owner() == napi::Owner::softirq && context_.polling() == napi::Poller::none;
  }
  // The last softirq-style poll used its whole weight.
  bool last_repoll() const { return last_repoll_; }
  // The core whose poll list holds the context (the watchdog's timer interrupt schedules it on
  // its own core).
  void set_poll_core(std::uint32_t core) { poll_core_ = core; }
  // The NAPI timer scheduled the context: its next softirq poll counts as a timer poll.
  void scheduled_by_timer() { timer_scheduled_ = true; }
  // Busy-loop turns that polled it empty without a call (BusyLoop's jump to the next work).
  void count_jumped_busy_polls(std::uint64_t n) { polls_.busy += n; }
  const NapiPolls& polls() const { return polls_; }

 private:
  static const NapiOps kNapiOps;

  // The poll run by the interrupt handler (napi.poll-in-irq).
  struct IrqPoll {
    NapiInstance* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
  };

  World& world_;
  std::uint32_t id_;
  DeviceRef device_;
  std::vector<NetRx*> net_rx_;  // by core index
  napi::Context context_;
  bool poll_in_irq_;
  std::uint32_t poll_core_ = 0;  // the core whose poll list holds the context
  bool last_repoll_ = false;
  bool timer_scheduled_ = false;  // until the next poll: the NAPI timer scheduled it
  NapiPolls polls_;
  IrqPoll irq_poll_{};
  NapiWatchdog watchdog_;
  std::optional<NapiThread> thread_;
};

}  // namespace irqmod::sim
