// The busy loop. See busy_loop.hpp.
#include "sim/napi/busy_loop.hpp"

#include <algorithm>

namespace irqmod::sim {
namespace {

constexpr std::string_view kBusyPollLabel = "busy poll";

}  // namespace

Segment BusyLoop::begin(NapiInstance& napi, Core& core, DataReady ready) {
  napi_ = &napi;
  ready_ = ready;
  // __napi_busy_loop takes its start time at its entry (net/core/dev.c), after what the thread
  // did before it: a stall this segment begins with (the timer its last poll armed, an IPI it
  // sent) is spent before the loop's window opens, not inside it.
  start_ = core.now() + core.pending_stall();
  owned_ = false;
  polled_ = false;
  final_ = false;
  return iteration(core);
}

// One iteration: try to own the context, poll it.
Segment BusyLoop::iteration(Core& core) {
  const Instant now = core.now();
  napi_->land();
  napi::Context& context = napi_->context();
  if (!owned_) owned_ = context.busy_poll_acquire(settings_.prefer);
  if (!owned_)
    return Segment{core.cost(settings_.iteration), ContextKind::busy_poll, kBusyPollLabel};
  context.busy_poll_begin(settings_.budget);
  Duration cost = core.cost(settings_.iteration);
  const PollStart poll = napi_->poll(settings_.budget, core, PollKind::busy);
  cost += poll.cost;
  if (poll.empty && polled_) {
    // After one empty poll (which left the vector in write-back-only mode), further empty polls
    // change nothing while the context is ours: jump to the iteration at which the next frame
    // is written back or the loop times out.
    const auto start_units = static_cast<std::uint64_t>(ns_since_epoch(start_)) >> 10;
    const Instant timeout =
        at_ns(static_cast<std::int64_t>((start_units + settings_.usecs + 1) << 10));
    const Instant until = std::min(napi_->next_work(), timeout);
    std::int64_t iterations = 1;
    if (settings_.iteration.is_constant()) {
      const Duration each{settings_.iteration.a_ns};
      if (until > now + each) {
        iterations = (until - now + each - nanoseconds(1)) / each;
        cost = iterations * each;
      }
    } else {
      // Iterations of their own lengths until one starts at or after `until`.
      for (; now + cost < until; ++iterations)
        cost += core.cost(settings_.iteration);
    }
    // Each jumped iteration polled the context (empty): they count as polls of this core.
    CoreCounters& counters = core.world().report.cores[core.index()];
    counters.polls += static_cast<std::uint64_t>(iterations - 1);
    counters.busy_polls += static_cast<std::uint64_t>(iterations - 1);
    napi_->count_jumped_busy_polls(static_cast<std::uint64_t>(iterations - 1));
  }
  polled_ = true;
  return Segment{cost, ContextKind::busy_poll, kBusyPollLabel};
}

std::optional<Segment> BusyLoop::next(Core& core) {
  const Instant now = core.now();
  napi::Context& context = napi_->context();
  if (final_) {
    napi_->complete(context.final_poll_end(now, napi_->poll_return(settings_.budget, core)), core);
    owned_ = false;
    final_ = false;
    return std::nullopt;
  }
  if (owned_) {
    const int work = napi_->poll_return(settings_.budget, core);
    napi_->complete(context.busy_poll_end(now, work), core);
  }
  const bool end = ready_() || napi::busy_loop_timed_out(start_, now, settings_.usecs);
  if (!end) return iteration(core);
  if (!owned_) return std::nullopt;
  if (auto t = context.busy_poll_stop(now, settings_.prefer)) napi_->arm_timer(*t, core);
  final_ = true;
  context.final_poll_begin();
  return Segment{napi_->poll(settings_.budget, core, PollKind::final).cost, ContextKind::busy_poll,
                 kBusyPollLabel};
}

}  // namespace irqmod::sim
