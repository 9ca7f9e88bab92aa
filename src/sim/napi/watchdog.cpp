// The NAPI watchdog. See watchdog.hpp.
#include "sim/napi/watchdog.hpp"

#include "sim/napi/instance.hpp"

namespace irqmod::sim {

NapiWatchdog::NapiWatchdog(World& world, NapiInstance& owner, const HrtimerCosts& timers,
                           Distribution irq_entry)
    : world_(world), owner_(owner), timers_(timers), irq_entry_(irq_entry) {
  job_.owner = this;
  endpoint_ = world_.engine.bind<&NapiWatchdog::on_event>(*this);
  slot_ = world_.engine.make_slot();
}

// The context's timer is due at `at`; the interrupt comes when the hrtimer really fires (the
// context ignores an expiry before its deadline, so a late one is still the same timer's).
void NapiWatchdog::arm(Instant at, Core& core) {
  core_ = &core;
  timers_.program(core, at - world_.now());
  const TimerExpiry expiry = draw_expiry(timers_, core, at);
  irq_ = expiry.irq;
  world_.engine.arm(slot_, expiry.irq_at, endpoint_, 1);
}

// napi_watchdog: the context's on_timer says whether it schedules (stale expiries are ignored).
void NapiWatchdog::on_event(const Event&) {
  if (auto s = owner_.context().on_timer(world_.now()); s && *s == napi::Schedule::raised) {
    owner_.set_poll_core(core_->index());
    owner_.scheduled_by_timer();
    // An expiry inside another timer interrupt of this core is run by it (Core::in_timer_irq):
    // no interrupt of its own, none counted.
    job_.coalesced = core_->in_timer_irq();
    if (!job_.coalesced) ++world_.report.cores[core_->index()].timer_irqs;
    core_->timer_irq_begin();
    core_->push(job_of(job_), Level::hardirq);
  }
}

std::optional<Segment> NapiWatchdog::TimerIrq::start(Core& core) {
  const Duration irq = coalesced                     ? Duration::zero()
                       : owner->timers_.interrupts() ? owner->irq_
                                                     : core.cost(owner->irq_entry_);
  return Segment{irq, ContextKind::hardirq, "timer irq"};
}

std::optional<Segment> NapiWatchdog::TimerIrq::next(Core& core) {
  // napi_watchdog scheduled the context already; its softirq is raised on the way out (or, with
  // threaded NAPI, its thread woken).
  core.timer_irq_end();
  owner->owner_.schedule_on(core);
  return std::nullopt;
}

}  // namespace irqmod::sim
