// The NAPI context: net/core/dev.c's napi_struct transitions. See include/irqmod/napi/context.hpp
// and docs/research/napi-busy-poll.md section 1 for the kernel code each step follows.
#include "irqmod/napi/context.hpp"

#include <cassert>
#include <string>

namespace irqmod::napi {

std::optional<Error> validate(const Config& config) {
  if (config.weight < 1 || config.weight > kMaxPollWeight) {
    return Error{"weight", "weight must be 1.." + std::to_string(kMaxPollWeight) +
                               " packets per poll (NAPI_POLL_WEIGHT is 64); got " +
                               std::to_string(config.weight)};
  }
  if (config.defer_hard_irqs > kMaxDeferHardIrqs) {
    return Error{"napi_defer_hard_irqs", "napi_defer_hard_irqs must be 0.." +
                                             std::to_string(kMaxDeferHardIrqs) + "; got " +
                                             std::to_string(config.defer_hard_irqs)};
  }
  if (config.gro_flush_timeout < Duration::zero()) {
    return Error{"gro_flush_timeout", "gro_flush_timeout must be >= 0 ns; got " +
                                          std::to_string(config.gro_flush_timeout.count())};
  }
  if (config.irq_suspend_timeout < Duration::zero()) {
    return Error{"irq_suspend_timeout", "irq_suspend_timeout must be >= 0 ns; got " +
                                            std::to_string(config.irq_suspend_timeout.count())};
  }
  return std::nullopt;
}

Context::Context(const Config& config) : config_(config) {
  assert(!validate(config) && "Context needs a valid Config; use create()");
}

Expected<Context> Context::create(const Config& config) {
  if (auto error = validate(config)) return *error;
  return Context(config);
}

bool Context::invariants_hold() const {
  const bool sched = test(kStateSched);
  if (sched != (owner_ != Owner::none)) return false;
  if (test(kStateInBusyPoll) && owner_ != Owner::busy_poller) return false;
  switch (polling_) {
    case Poller::none:
      return true;
    case Poller::softirq:
      return owner_ == Owner::softirq;
    case Poller::busy_poll:
      return owner_ == Owner::busy_poller && test(kStateInBusyPoll);
    case Poller::busy_poll_final:
      return owner_ == Owner::busy_poller && !test(kStateInBusyPoll);
  }
  return false;
}

void Context::hand_to_softirq() {
  // ____napi_schedule: onto the per-CPU poll list, NET_RX_SOFTIRQ raised.
  owner_ = Owner::softirq;
}

void Context::arm_timer(Instant at, PollResult* result) {
  timer_ = at;  // hrtimer_start replaces a pending deadline
  ++counters_.timer_arms;
  if (result != nullptr) result->arm_timer = at;
}

Schedule Context::schedule() {
  ++counters_.schedules;
  // napi_schedule_prep: always set SCHED; if it was set, set MISSED; true only for the setter.
  if (test(kStateSched)) {
    state_ |= kStateMissed;
    ++counters_.missed;
    return Schedule::missed;
  }
  state_ |= kStateSched;
  hand_to_softirq();
  return Schedule::raised;
}

bool Context::complete_done(Instant now, int work, PollResult& result) {
  // "If we are busy polling, do nothing here, we have the guarantee we will be called later."
  if (test(kStateInBusyPoll)) return false;

  bool ret = true;
  Duration timeout{0};
  if (work > 0) {
    // GRO holds nothing in this model, so only the deferral sets the timeout.
    defer_hard_irqs_count_ = config_.defer_hard_irqs;
  }
  if (defer_hard_irqs_count_ > 0) {
    --defer_hard_irqs_count_;
    timeout = config_.gro_flush_timeout;
    if (timeout > Duration::zero()) ret = false;
  }
  // The cmpxchg: clear MISSED, SCHED and PREFER_BUSY_POLL, but keep SCHED when MISSED was set.
  const bool missed = test(kStateMissed);
  state_ &= ~(kStateMissed | kStateSched | kStatePreferBusyPoll);
  if (missed) {
    // __napi_schedule and return false, before the timer is considered.
    state_ |= kStateSched;
    hand_to_softirq();
    result.repoll = true;
    return false;
  }
  owner_ = Owner::none;
  if (timeout > Duration::zero()) arm_timer(now + timeout, &result);
  if (ret) {
    ++counters_.completions;
  } else {
    ++counters_.deferrals;
  }
  return ret;
}

int Context::start_poll(Poller kind, int budget, std::uint64_t& counter) {
  polling_ = kind;
  budget_ = budget;
  ++counter;
  return budget;
}

bool Context::end_poll([[maybe_unused]] Poller kind, Instant now, int work, PollResult& result) {
  assert(polling_ == kind && work >= 0 && work <= budget_ && "work is 0..budget");
  polling_ = Poller::none;
  result.work = work;
  if (work == budget_) return false;  // the driver leaves completion to NAPI: not_called
  // The driver had work to spare and calls napi_complete_done itself.
  result.completion =
      complete_done(now, work, result) ? Completion::rearm : Completion::keep_masked;
  return true;
}

int Context::softirq_poll_begin() {
  assert(owner_ == Owner::softirq && polling_ == Poller::none && "the softirq must own it");
  return start_poll(Poller::softirq, config_.weight, counters_.softirq_polls);
}

PollResult Context::softirq_poll_end(Instant now, int work) {
  PollResult result;
  if (end_poll(Poller::softirq, now, work, result)) return result;
  // "drivers must not modify the NAPI state if they consume the entire weight".
  if (test(kStatePreferBusyPoll)) {
    // __napi_poll gives the context up although work remains, so the busy poller can take it.
    ++counters_.prefer_yields;
    PollResult inner;
    if (complete_done(now, work, inner)) {
      // "If timeout is not set, we need to make sure that the NAPI is re-scheduled."
      schedule();
      result.repoll = true;
    } else {
      result.repoll = inner.repoll;
    }
    result.arm_timer = inner.arm_timer;
    return result;
  }
  result.repoll = true;  // stays on the poll list
  return result;
}

bool Context::busy_poll_acquire(bool prefer) {
  if (test(kStateSched) || test(kStateInBusyPoll)) {
    if (prefer) state_ |= kStatePreferBusyPoll;
    ++counters_.busy_poll_misses;
    return false;
  }
  state_ |= kStateSched | kStateInBusyPoll;
  owner_ = Owner::busy_poller;
  skip_schedule_ = false;
  return true;
}

int Context::busy_poll_begin(int budget) {
  assert(owner_ == Owner::busy_poller && test(kStateInBusyPoll) && polling_ == Poller::none);
  assert(budget >= 1 && budget <= kMaxBusyPollBudget && "busy-poll budget is 1..65535");
  busy_budget_ = budget;
  return start_poll(Poller::busy_poll, budget, counters_.busy_polls);
}

PollResult Context::busy_poll_end(Instant now, int work) {
  // Below the budget the driver's napi_complete_done returns false at once (IN_BUSY_POLL).
  PollResult result;
  end_poll(Poller::busy_poll, now, work, result);
  assert(result.completion != Completion::rearm);
  return result;
}

std::optional<Instant> Context::busy_poll_stop(Instant now, bool prefer) {
  assert(owner_ == Owner::busy_poller && test(kStateInBusyPoll) && polling_ == Poller::none);
  // "a device IRQ probably set MISSED during the busy poll; since poll is called once more, it
  // can be dropped."
  state_ &= ~(kStateMissed | kStateInBusyPoll);
  skip_schedule_ = false;
  std::optional<Instant> armed;
  if (prefer) {  // the caller's NAPI_F_PREFER_BUSY_POLL, not the state bit
    defer_hard_irqs_count_ = config_.defer_hard_irqs;
    if (defer_hard_irqs_count_ > 0 && config_.gro_flush_timeout > Duration::zero()) {
      skip_schedule_ = true;
      // Before 58e2330bd455 the timer runs during the final poll; a poll that outlasts
      // gro_flush_timeout makes the watchdog find SCHED held (on_timer) and lose it.
      if (!config_.gro_timer_after_final_poll) {
        arm_timer(now + config_.gro_flush_timeout, nullptr);
        armed = timer_;
      }
    }
  }
  return armed;
}

int Context::final_poll_begin() {
  assert(owner_ == Owner::busy_poller && !test(kStateInBusyPoll) && polling_ == Poller::none &&
         "busy_poll_stop() comes first");
  return start_poll(Poller::busy_poll_final, busy_budget_, counters_.final_polls);
}

PollResult Context::final_poll_end(Instant now, int work) {
  PollResult result;
  if (end_poll(Poller::busy_poll_final, now, work, result)) {
    run_held_watchdog(now, result);
    return result;
  }
  // __busy_poll_stop: the driver did not complete and we still hold SCHED.
  if (skip_schedule_) {
    // clear_bit(NAPI_STATE_SCHED) alone: idle with the interrupt masked, the watchdog armed. A
    // MISSED set during the final poll stays behind, as in the kernel; the timer covers it.
    state_ &= ~kStateSched;
    owner_ = Owner::none;
    ++counters_.masked_releases;
    // 58e2330bd455: hrtimer_start after clear_bit(NAPI_STATE_SCHED), so the watchdog always
    // finds the context free. (Below the budget napi_complete_done arms it, the count reloaded.)
    if (config_.gro_timer_after_final_poll) arm_timer(now + config_.gro_flush_timeout, &result);
    run_held_watchdog(now, result);
    if (!timer_) ++counters_.released_without_timer;
  } else {
    hand_to_softirq();  // __napi_schedule
    result.repoll = true;
    run_held_watchdog(now, result);
  }
  skip_schedule_ = false;
  return result;
}

void Context::run_held_watchdog(Instant now, PollResult& result) {
  // A soft expiry held back during the final poll runs at local_bh_enable(), now: the host calls
  // on_timer(now) for it. A timer the completion re-armed later is not due.
  if (!config_.watchdog_in_softirq || !timer_ || *timer_ > now) return;
  timer_ = now;
  result.arm_timer = now;
}

std::optional<Schedule> Context::on_timer(Instant now) {
  if (!timer_ || now < *timer_) return std::nullopt;  // stale or re-armed later
  if (config_.watchdog_in_softirq && owner_ == Owner::busy_poller && !test(kStateInBusyPoll)) {
    // PREEMPT_RT, inside busy_poll_stop (IN_BUSY_POLL cleared, the final poll to come or
    // running): bottom halves are off from before its hrtimer_start to after __busy_poll_stop,
    // and HRTIMER_SOFTIRQ waits for that local_bh_enable(). The timer stays due and
    // final_poll_end hands it back to the host to run then.
    ++counters_.watchdog_held;
    return std::nullopt;
  }
  timer_.reset();
  // A relaxed napi_schedule_prep that never sets MISSED: "we do not react to a device IRQ".
  if (test(kStateSched)) {
    ++counters_.watchdog_swallowed;
    return std::nullopt;
  }
  state_ |= kStateSched;
  state_ &= ~kStatePreferBusyPoll;
  hand_to_softirq();
  ++counters_.watchdog_polls;
  return Schedule::raised;
}

std::optional<Instant> Context::suspend_irqs(Instant now) {
  if (config_.irq_suspend_timeout <= Duration::zero()) return std::nullopt;
  arm_timer(now + config_.irq_suspend_timeout, nullptr);
  return timer_;
}

std::optional<Schedule> Context::resume_irqs() {
  if (config_.irq_suspend_timeout <= Duration::zero()) return std::nullopt;
  return schedule();
}

}  // namespace irqmod::napi
