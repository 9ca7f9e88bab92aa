// net_rx_action and ksoftirqd over one core's poll list. See net_rx.hpp.
#include "sim/cpu/net_rx.hpp"

#include <cassert>

namespace irqmod::sim {

NetRx::NetRx(Core& core, Budget budget, std::size_t contexts)
    : core_(core), budget_(budget), list_(contexts == 0 ? 1 : contexts) {
  softirq_.owner = this;
  ksoftirqd_.owner = this;
  ksoftirqd_.in_thread = true;
  core_.set_softirq_job(job_of(softirq_));
  ksoftirqd_thread_ = core_.add_thread(job_of(ksoftirqd_), true);
}

void NetRx::schedule(NapiRef napi) {
  [[maybe_unused]] const bool listed = list_.push(napi);
  assert(listed && "a NAPI context is on at most one poll list");
  core_.raise_softirq();
}

std::optional<Segment> NetRx::Pass::start(Core&) {
  active = true;
  budget_left = owner->budget_.frames;
  pass_start = owner->core_.now();
  first_start = pass_start;
  restarts = 0;
  if (auto segment = owner->poll_next(*this)) return segment;
  active = false;
  return std::nullopt;
}

std::optional<Segment> NetRx::Pass::next(Core&) {
  if (auto segment = owner->after_poll(*this)) return segment;
  active = false;
  return std::nullopt;
}

// Starts the next poll: the first context on the list that is this core's to poll.
std::optional<Segment> NetRx::poll_next(Pass& pass) {
  while (!list_.empty()) {
    const NapiRef napi = list_.front();
    list_.pop();
    if (!napi.ops->take(napi.self, core_)) continue;
    polling_ = napi;
    const Duration cost = napi.ops->poll_begin(napi.self, core_);
    return Segment{cost, pass.in_thread ? ContextKind::ksoftirqd : ContextKind::softirq,
                   pass.in_thread ? "ksoftirqd" : "softirq NET_RX"};
  }
  return std::nullopt;
}

std::optional<Segment> NetRx::after_poll(Pass& pass) {
  const NapiRef napi = polling_;
  polling_ = NapiRef{};
  pass.budget_left -= napi.ops->poll_end(napi.self, core_);
  if (list_.empty()) return std::nullopt;  // nothing left on this core's poll list
  const Instant now = core_.now();
  const bool squeezed = pass.budget_left <= 0 || now - pass.pass_start >= budget_.time;
  if (!squeezed) {
    core_.clear_softirq();
    return poll_next(pass);
  }
  // net_rx_action ends with contexts still listed and re-raises NET_RX. handle_softirqs restarts
  // inline while time and restarts allow and no thread waits to run; then ksoftirqd.
  if (!pass.in_thread) {
    ++pass.restarts;
    if (pass.restarts < kMaxSoftirqRestart && now - pass.first_start < kMaxSoftirqTime &&
        !core_.need_resched()) {
      core_.clear_softirq();
      pass.budget_left = budget_.frames;
      pass.pass_start = now;
      return poll_next(pass);
    }
    core_.clear_softirq();
    core_.wake(ksoftirqd_thread_);  // wakeup_softirqd
    return std::nullopt;
  }
  // ksoftirqd runs passes until the list is empty, giving the CPU away between passes when the
  // scheduler wants it (cond_resched in run_ksoftirqd).
  core_.clear_softirq();
  if (core_.need_resched()) return std::nullopt;
  pass.budget_left = budget_.frames;
  pass.pass_start = now;
  return poll_next(pass);
}

}  // namespace irqmod::sim
