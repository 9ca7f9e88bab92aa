// Threaded NAPI. See thread.hpp.
#include "sim/napi/thread.hpp"

#include <string_view>

#include "sim/napi/instance.hpp"

namespace irqmod::sim {
namespace {
constexpr std::string_view kThreadLabel = "napi thread";
}  // namespace

NapiThread::NapiThread(NapiInstance& owner, Core& core, Distribution wakeup,
                       Distribution context_switch)
    : owner_(owner), core_(core), wakeup_(wakeup), context_switch_(context_switch) {
  thread_ = core_.add_thread(job_of(*this), true);
}

// A thread that is running or runnable sees SCHED_THREADED when it next checks
// (napi_thread_wait, or the loop after its poll), so only a sleeping one needs the wake-up.
void NapiThread::wake() {
  if (core_.runnable(thread_)) return;
  ++stats_.wakeups;
  core_.wake(thread_);
}

// The thread runs: the switch to it, and after a sleep the wake-up (try_to_wake_up, charged here
// rather than to the waker); then napi_thread_wait's test, in next().
std::optional<Segment> NapiThread::start(Core& core) {
  Duration cost = core.cost(context_switch_);
  if (!yielded_) cost += core.cost(wakeup_);
  yielded_ = false;
  return Segment{cost, ContextKind::thread, kThreadLabel};
}

std::optional<Segment> NapiThread::next(Core& core) {
  if (polling_) {
    if (const auto more = owner_.poll_more(core))
      return Segment{*more, ContextKind::thread, kThreadLabel};
    polling_ = false;
    owner_.poll_end(core);
    // napi_threaded_poll_loop: after a full-budget poll, cond_resched(); after a completed one
    // napi_thread_wait finds SCHED_THREADED set again (a schedule meanwhile) and returns
    // without schedule().
    if (owner_.last_repoll() && core.need_resched() && owner_.thread_owns()) {
      ++stats_.yields;
      yielded_ = true;
      return std::nullopt;
    }
  }
  if (!owner_.thread_owns()) return std::nullopt;  // napi_thread_wait: schedule() until woken
  polling_ = true;
  ++stats_.polls;
  return Segment{owner_.poll_begin(core), ContextKind::thread, kThreadLabel};
}

}  // namespace irqmod::sim
