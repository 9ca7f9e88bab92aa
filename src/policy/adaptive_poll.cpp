// Adaptive spin-then-sleep: gap learning, the idle decision, haltpoll-style spin-window adaptation
// and the interrupt-mode protocol.
#include "irqmod/policy/adaptive_poll.hpp"

#include <algorithm>
#include <cassert>
#include <string>
#include <utility>

namespace irqmod::adaptive_poll {
namespace {

// RFC 6298 §2: SRTT gains 1/8 of the error, RTTVAR 1/4 of the absolute error.
constexpr std::int64_t kGapWeightDivisor = 8;
constexpr std::int64_t kDeviationWeightDivisor = 4;
// RFC 6298's K: how many deviations the guard allows for.
constexpr std::int64_t kGuardDeviations = 4;
// Upper bound on spin_grow / spin_shrink: beyond it one step jumps across the whole window.
constexpr std::uint32_t kMaxFactor = 1024;

Error error(std::string key, std::string message) {
  return Error{std::move(key), std::move(message)};
}

}  // namespace

std::optional<Error> validate(const Config& c) {
  if (c.idle_poll_window < Duration::zero() || c.idle_poll_window > kMaxIdlePollWindow)
    return error("idle_poll_window", "must be between 0 and 10 s (0 = never spin)");
  if (c.max_predicted_gap &&
      (*c.max_predicted_gap < Duration::zero() || *c.max_predicted_gap > kMaxIdlePollWindow))
    return error("max_predicted_gap",
                 "must be between 0 and 10 s (0 = never predict; empty = idle_poll_window)");
  if (c.spin_grow_start <= Duration::zero()) return error("spin_grow_start", "must be positive");
  if (c.spin_grow_start > c.idle_poll_window && c.idle_poll_window > Duration::zero())
    return error("spin_grow_start", "must not exceed idle_poll_window");
  if (c.spin_grow < 1 || c.spin_grow > kMaxFactor)
    return error("spin_grow", "must be between 1 and 1024 (a multiplier)");
  if (c.spin_shrink < 1 || c.spin_shrink > kMaxFactor)
    return error("spin_shrink", "must be between 1 and 1024 (a divisor)");
  if (c.wakeup_cost < Duration::zero() || c.wakeup_cost > kMaxLearnedGap)
    return error("wakeup_cost", "must be between 0 and 10 s");
  if (c.regular_max_deviation_percent > 100)
    return error("regular_max_deviation_percent", "must be between 0 and 100");
  if (c.min_gap_samples < 1) return error("min_gap_samples", "must be at least 1");
  return std::nullopt;
}

AdaptivePoller::AdaptivePoller(const Config& config) : config_(config) {
  assert(!validate(config) && "use AdaptivePoller::create to validate a Config");
  spin_window_ = std::min(config_.spin_grow_start, config_.idle_poll_window);
}

Expected<AdaptivePoller> AdaptivePoller::create(const Config& config) {
  if (auto e = validate(config)) return *std::move(e);
  return AdaptivePoller(config);
}

void AdaptivePoller::learn_gap(Duration gap) {
  const std::int64_t g = std::clamp(gap, Duration::zero(), kMaxLearnedGap).count();
  if (gap_samples_ == 0) {
    mean_gap_ns_ = g;
    gap_dev_ns_ = g / 2;  // RFC 6298: RTTVAR <- R/2 on the first measurement
  } else {
    // Both values stay within [0, kMaxLearnedGap]: each step moves part way toward a value there.
    const std::int64_t diff = g - mean_gap_ns_;
    const std::int64_t abs_diff = diff < 0 ? -diff : diff;
    gap_dev_ns_ += (abs_diff - gap_dev_ns_) / kDeviationWeightDivisor;
    mean_gap_ns_ += diff / kGapWeightDivisor;
  }
  ++gap_samples_;
}

// haltpoll adjust_poll_limit (note §4.2), with the idle period in place of block_ns.
void AdaptivePoller::adapt_spin_window(Duration idle) {
  const Duration max = config_.idle_poll_window;
  if (idle > spin_window_ && idle <= max) {
    const Duration grown = spin_window_ * static_cast<std::int64_t>(config_.spin_grow);
    spin_window_ = std::min(std::max(grown, config_.spin_grow_start), max);
  } else if (idle > max) {
    spin_window_ /= static_cast<std::int64_t>(config_.spin_shrink);
    if (spin_window_ < config_.spin_grow_start) spin_window_ = Duration::zero();
  }
}

void AdaptivePoller::on_work(Instant now, std::uint32_t items, Instant arrived) {
  if (items == 0) return;
  assert(!in_interrupt_mode_ && "exit_interrupt_mode before reporting work");
  arrived = std::min(arrived, now);
  if (has_last_work_) {
    // A stamp older than the previous one (another socket's) is a zero gap; learn_gap clamps.
    learn_gap(arrived - last_arrival_);
    arrived = std::max(arrived, last_arrival_);
  }
  if (idle_ && blocked_this_idle_)
    adapt_spin_window(arrived > idle_start_ ? arrived - idle_start_ : Duration::zero());
  has_last_work_ = true;
  last_arrival_ = arrived;
  idle_ = false;
  blocked_this_idle_ = false;
  spinning_ = false;
  ++counters_.work_calls;
  counters_.items += items;
}

bool AdaptivePoller::predicting() const {
  return gap_samples_ >= config_.min_gap_samples && has_last_work_ &&
         mean_gap_ns_ <= max_predicted_gap(config_).count() &&
         gap_dev_ns_ * 100 <=
             mean_gap_ns_ * static_cast<std::int64_t>(config_.regular_max_deviation_percent);
}

std::optional<Instant> AdaptivePoller::predicted_arrival() const {
  if (!predicting()) return std::nullopt;
  return last_arrival_ + Duration{mean_gap_ns_};
}

Duration AdaptivePoller::guard() const {
  return config_.wakeup_cost + Duration{kGuardDeviations * gap_dev_ns_};
}

Action AdaptivePoller::decide(Instant now) {
  if (predicting()) {
    const Instant predicted = last_arrival_ + Duration{mean_gap_ns_};
    const Duration g = guard();
    // Until the prediction is a guard late, wait for it: sleep if the wait is worth a wake-up.
    if (now <= predicted + g) {
      const Instant wake = predicted - g;
      if (wake > now && wake - now >= config_.wakeup_cost) return Action::sleep(wake);
      return Action::spin();
    }
  }
  // Unpredictable, too long, or the prediction failed: Seastar's rule with the adapted window.
  if (now - idle_start_ < spin_window_) return Action::spin();
  return Action::block();
}

Action AdaptivePoller::on_idle(Instant now) {
  assert(!in_interrupt_mode_ && "exit_interrupt_mode before asking again");
  if (!idle_) {
    idle_ = true;
    idle_start_ = now;
  }
  const Action action = decide(now);
  switch (action.kind) {
    case ActionKind::spin:
      ++counters_.spins;
      if (!spinning_) {
        spinning_ = true;
        spin_start_ = now;
      }
      break;
    case ActionKind::sleep_until:
    case ActionKind::block:
      if (action.kind == ActionKind::sleep_until)
        ++counters_.sleeps;
      else
        ++counters_.block_advices;
      if (spinning_) counters_.wasted_spin += now - spin_start_;
      spinning_ = false;
      break;
  }
  if (has_last_action_ && action.kind != last_action_) ++counters_.mode_switches;
  has_last_action_ = true;
  last_action_ = action.kind;
  return action;
}

InterruptEntry AdaptivePoller::try_enter_interrupt_mode(Instant now) {
  assert(!in_interrupt_mode_ && "one interrupt-mode entry at a time");
  in_interrupt_mode_ = true;
  if (!idle_) {
    idle_ = true;
    idle_start_ = now;
  }
  return InterruptEntry(now);
}

bool AdaptivePoller::recheck(InterruptEntry& entry, bool work_found) {
  assert(entry.open_ && !entry.rechecked_ && "recheck once per entry");
  entry.rechecked_ = true;
  entry.may_block_ = !work_found;
  if (work_found) {
    ++counters_.recheck_found_work;
  } else {
    ++counters_.blocks;
    blocked_this_idle_ = true;
  }
  return entry.may_block_;
}

void AdaptivePoller::exit_interrupt_mode(InterruptEntry& entry, Instant now) {
  assert(entry.open_ && "exit once per entry");
  assert(entry.rechecked_ && "recheck after arming, before blocking or exiting");
  entry.open_ = false;
  in_interrupt_mode_ = false;
  if (entry.may_block_ && now >= entry.entered_at_)
    counters_.blocked_time += now - entry.entered_at_;
}

}  // namespace irqmod::adaptive_poll
