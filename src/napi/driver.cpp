// The end of i40e_napi_poll. See include/irqmod/napi/driver.hpp.
#include "irqmod/napi/driver.hpp"

namespace irqmod::napi {
namespace {

std::optional<adaptive_itr::AdaptiveItr> make_adaptive(const DriverConfig& config, Instant now) {
  if (!config.adaptive) return std::nullopt;
  adaptive_itr::Config c = *config.adaptive;
  c.busy_poll_exit_swint = config.busy_poll_exit_swint;
  return adaptive_itr::AdaptiveItr(c, now);
}

}  // namespace

Driver::Driver(const DriverConfig& config, Instant now)
    : config_(config), adaptive_(make_adaptive(config, now)) {}

int Driver::poll_return(int work, int budget, bool on_affinity_cpu) {
  force_wb_ = config_.off_affinity_force_wb && work >= budget && !on_affinity_cpu;
  return force_wb_ ? budget - 1 : work;
}

DriverAction Driver::on_poll(Instant now, const PollResult& result, Vector& vector) {
  DriverAction action;
  if (force_wb_) {
    // The branch completed the context itself and leaves no adaptive-ITR or in_busy_poll state:
    // the interrupt, on the affinity CPU, takes the work over.
    force_wb_ = false;
    action.enabled = true;
    action.swint = true;
    action.forced_wb = true;
    action.fire_at = vector.force_writeback(now);
    return action;
  }
  switch (result.completion) {
    case Completion::not_called:
      // The budget was used up: the vector stays as it is and NAPI polls again.
      return action;
    case Completion::keep_masked:
      if (adaptive_) {
        adaptive_->on_poll_complete(now, false);
      } else if (config_.busy_poll_exit_swint) {
        in_busy_poll_ = true;
      }
      vector.enter_writeback_only();
      return action;
    case Completion::rearm:
      break;
  }
  action.enabled = true;
  if (adaptive_) {
    const adaptive_itr::Decision d = adaptive_->on_poll_complete(now, true);
    action.swint = d.force_swint;
    if (d.write == adaptive_itr::ItrIndex::rx) {
      action.new_itr = d.interval;
      vector.set_itr_interval(now, d.interval);
    }
  } else {
    action.swint = in_busy_poll_;
    in_busy_poll_ = false;
  }
  action.fire_at = vector.enable(now, action.swint);
  return action;
}

}  // namespace irqmod::napi
