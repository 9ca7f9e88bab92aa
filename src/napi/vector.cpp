// The device side of a queue's MSI-X vector. See include/irqmod/napi/vector.hpp.
#include "irqmod/napi/vector.hpp"

#include <algorithm>
#include <cassert>
#include <string>

namespace irqmod::napi {

std::optional<Error> validate(const VectorConfig& config) {
  if (config.itr_interval < Duration::zero()) {
    return Error{"itr_interval", "the interrupt throttle interval must be >= 0 ns; got " +
                                     std::to_string(config.itr_interval.count())};
  }
  if (config.sw_itr_interval < Duration::zero()) {
    return Error{"sw_itr_interval",
                 "the software interrupt throttle interval must be >= 0 ns (0: unthrottled); got " +
                     std::to_string(config.sw_itr_interval.count())};
  }
  return std::nullopt;
}

Vector::Vector(const VectorConfig& config)
    : config_(config),
      queue_throttle_(config.itr_interval),
      software_throttle_(config.sw_itr_interval) {
  assert(!validate(config) && "Vector needs a valid VectorConfig; use create()");
}

Expected<Vector> Vector::create(const VectorConfig& config) {
  if (auto error = validate(config)) return *error;
  return Vector(config);
}

std::optional<Instant> Vector::update_due(Instant now) {
  due_.reset();
  if (state_ != VectorState::armed) return due_;
  if (queue_pending_) {
    due_ = queue_immediate_ ? now : std::max(now, queue_throttle_.next_allowed());
  }
  if (software_pending_) {
    const Instant at = std::max(now, software_throttle_.next_allowed());
    due_ = due_ ? std::min(*due_, at) : at;
  }
  if (forced_pending_) {
    const Instant at = std::max(now, queue_throttle_.next_allowed());
    due_ = due_ ? std::min(*due_, at) : at;
  }
  return due_;
}

std::optional<Instant> Vector::on_cause(Instant now) {
  ++counters_.causes;
  switch (state_) {
    case VectorState::armed:
      if (queue_pending_) return due_;  // already waiting for the throttle
      queue_pending_ = true;
      return update_due(now);
    case VectorState::masked:
      queue_pending_ = true;
      ++counters_.causes_latched;
      return std::nullopt;
    case VectorState::writeback_only:
      if (config_.latch_in_writeback_only) {
        queue_pending_ = true;
        ++counters_.causes_latched;
      } else {
        ++counters_.causes_lost;
      }
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Instant> Vector::on_immediate_cause(Instant now) {
  if (state_ != VectorState::armed) return on_cause(now);
  ++counters_.causes;
  queue_pending_ = true;
  queue_immediate_ = true;  // the queue's throttle is not consulted; fire() restarts it
  due_ = now;
  return due_;
}

std::optional<Instant> Vector::withdraw_queue_cause(Instant now) {
  if (queue_pending_) ++counters_.causes_withdrawn;
  queue_pending_ = false;
  queue_immediate_ = false;
  return update_due(now);
}

std::optional<Instant> Vector::enable(Instant now, bool swint) {
  ++counters_.enables;
  state_ = VectorState::armed;
  if (swint) {
    software_pending_ = true;
    ++counters_.swint_requests;
  }
  return update_due(now);
}

std::optional<Instant> Vector::force_writeback(Instant now) {
  ++counters_.enables;
  ++counters_.swint_requests;
  state_ = VectorState::armed;
  forced_pending_ = true;
  return update_due(now);
}

void Vector::enter_writeback_only() {
  state_ = VectorState::writeback_only;
  // A queue cause still waiting for its throttle is written back without an interrupt, like any
  // later one (ice WB_ON_ITR); a software trigger stays pending for the next enable.
  if (!config_.latch_in_writeback_only) {
    queue_pending_ = false;
    queue_immediate_ = false;
  }
  due_.reset();
}

std::optional<Cause> Vector::fire(Instant now) {
  if (!due_ || now < *due_ || state_ != VectorState::armed) return std::nullopt;
  // One interrupt serves every pending cause. It counts as software only when no queue cause
  // was ready: the trigger then is what raised it.
  const bool queue_ready = queue_pending_ && (queue_immediate_ || queue_throttle_.may_fire(now));
  const Cause cause = queue_ready ? Cause::queue : Cause::software;
  if (software_pending_) software_throttle_.fired(now);
  queue_throttle_.fired(now);
  queue_pending_ = false;
  queue_immediate_ = false;
  software_pending_ = false;
  forced_pending_ = false;
  due_.reset();
  state_ = VectorState::masked;  // the handler leaves the vector disabled until NAPI completes
  ++counters_.interrupts;
  if (cause == Cause::software) ++counters_.software;
  return cause;
}

std::optional<Instant> Vector::set_itr_interval(Instant now, Duration interval) {
  assert(interval >= Duration::zero());
  queue_throttle_.set_interval(interval);
  return update_due(now);
}

}  // namespace irqmod::napi
