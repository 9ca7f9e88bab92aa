// net_rx_action and ksoftirqd over one core's poll list. See net_rx.hpp.
#include "sim/cpu/net_rx.hpp"

#include <cassert>

namespace irqmod::sim {

NetRx::NetRx(Core& core, Budget budget, std::size_t contexts)
    : core_(core),
      budget_(budget),
      list_(contexts == 0 ? 1 : contexts),
      local_(contexts == 0 ? 1 : contexts),
      repoll_(contexts == 0 ? 1 : contexts) {
  softirq_.owner = this;
  ksoftirqd_.owner = this;
  ksoftirqd_.in_thread = true;
  core_.set_softirq_job(job_of(softirq_));
  ksoftirqd_thread_ = core_.add_thread(job_of(ksoftirqd_), true);
  core_.set_softirq_thread(ksoftirqd_thread_);
}

void NetRx::schedule(NapiRef napi) {
  if (polling_.self == napi.self) {
    // napi_poll: a context that used its whole weight goes on the repoll list.
    [[maybe_unused]] const bool listed = repoll_.push(napi);
    assert(listed && "a NAPI context is on at most one poll list");
    return;
  }
  [[maybe_unused]] const bool listed = list_.push(napi);
  assert(listed && "a NAPI context is on at most one poll list");
  core_.raise_softirq();
}

void NetRx::move_all(Ring<NapiRef>& from, Ring<NapiRef>& to) {
  while (!from.empty()) {
    to.push(from.front());
    from.pop();
  }
}

std::optional<Segment> NetRx::Pass::start(Core&) {
  active = true;
  first_start = owner->core_.now();
  passes = 0;
  owner->begin_pass(*this);
  if (auto segment = owner->poll_next(*this)) return segment;
  active = false;
  return std::nullopt;
}

std::optional<Segment> NetRx::Pass::next(Core&) {
  if (auto segment = owner->after_poll(*this)) return segment;
  active = false;
  return std::nullopt;
}

// net_rx_action begins: a fresh budget and time limit; the poll list is taken whole.
void NetRx::begin_pass(Pass& pass) {
  ++pass.passes;
  pass.budget_left = budget_.frames;
  pass.pass_start = core_.now();
  core_.clear_softirq();
  move_all(list_, local_);
}

// Starts the next poll of the pass: the first context on its list that is this core's to poll.
// When the list is drained and nothing waits for a repoll, contexts scheduled meanwhile are
// taken into the same pass (net_rx_action's `goto start`). None when the pass has nothing left.
std::optional<Segment> NetRx::poll_next(Pass& pass) {
  while (true) {
    if (local_.empty()) {
      if (!repoll_.empty() || list_.empty()) return std::nullopt;
      move_all(list_, local_);
      core_.clear_softirq();
    }
    const NapiRef napi = local_.front();
    local_.pop();
    if (!napi.ops->take(napi.self, core_)) continue;
    polling_ = napi;
    return poll_segment(pass, napi.ops->poll_begin(napi.self, core_));
  }
}

Segment NetRx::poll_segment(const Pass& pass, Duration cost) {
  return Segment{cost, pass.in_thread ? ContextKind::ksoftirqd : ContextKind::softirq,
                 pass.in_thread ? "ksoftirqd" : "softirq NET_RX"};
}

std::optional<Segment> NetRx::after_poll(Pass& pass) {
  const NapiRef napi = polling_;
  if (napi.ops->poll_more) {
    if (const auto more = napi.ops->poll_more(napi.self, core_)) return poll_segment(pass, *more);
  }
  pass.budget_left -= napi.ops->poll_end(napi.self, core_);
  polling_ = NapiRef{};
  const bool squeezed = pass.budget_left <= 0 || core_.now() - pass.pass_start >= budget_.time;
  if (!squeezed) {
    if (auto segment = poll_next(pass)) return segment;
  }
  return end_pass(pass);
}

// net_rx_action ends: what is left goes back on the poll list in the kernel's order (contexts not
// polled, then those scheduled meanwhile, then the repolls) and re-raises NET_RX; the caller runs
// another pass now, or hands the work to ksoftirqd.
std::optional<Segment> NetRx::end_pass(Pass& pass) {
  move_all(list_, local_);
  move_all(repoll_, local_);
  move_all(local_, list_);
  if (list_.empty()) return std::nullopt;
  core_.raise_softirq();
  if (!pass.in_thread) {
    // handle_softirqs: restart while time and restarts allow and nothing needs the CPU.
    if (!budget_.ksoftirqd ||
        (pass.passes < kMaxSoftirqRestart && core_.now() - pass.first_start < kMaxSoftirqTime &&
         !core_.need_resched())) {
      begin_pass(pass);
      return poll_next(pass);
    }
    // The pending bit goes to ksoftirqd (the model has no timer tick whose irq_exit would run
    // NET_RX again in between; a new interrupt of this core raises it anew).
    core_.clear_softirq();
    core_.wake(ksoftirqd_thread_);  // wakeup_softirqd
    return std::nullopt;
  }
  // ksoftirqd runs passes until the list is empty, giving the CPU away between passes when the
  // scheduler wants it (cond_resched in run_ksoftirqd).
  if (core_.need_resched()) {
    core_.clear_softirq();
    return std::nullopt;
  }
  begin_pass(pass);
  return poll_next(pass);
}

}  // namespace irqmod::sim
