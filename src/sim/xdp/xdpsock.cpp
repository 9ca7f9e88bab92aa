// The xdpsock application. See xdpsock.hpp.
#include "sim/xdp/xdpsock.hpp"

#include <algorithm>

namespace irqmod::sim {
namespace {

constexpr std::string_view kAppLabel = "xdpsock";
constexpr std::string_view kSyscallLabel = "system call";
constexpr std::string_view kSpinLabel = "spin";
constexpr std::string_view kBusyLabel = "busy poll";
// A spinning thread re-reads the rings continuously; the model ends its spin when the driver
// produces, and otherwise looks again after this long (one event per quantum, not per read).
constexpr Duration kSpinQuantum = microseconds(10);

}  // namespace

Xdpsock::Xdpsock(Core& core, Xsk& xsk, ZcQueue& queue, const Settings& settings, const Costs& costs)
    : core_(core), xsk_(xsk), queue_(queue), settings_(settings), costs_(costs) {
  thread_ = core_.add_thread(job_of(*this), false);
  queue_.set_waiter(XskWaiter{&Xdpsock::notify_thunk, &Xdpsock::asleep_thunk, this});
}

void Xdpsock::notify() {
  if (spinning_) {
    spinning_ = false;
    core_.end_segment_now(thread_);
  } else if (sleeping_) {
    sleeping_ = false;
    woken_ = true;
    core_.wake(thread_);
  }
}

std::optional<Segment> Xdpsock::start(Core& core) {
  if (woken_) {
    // poll() returns after the sleep: the switch back to this thread, then the work.
    woken_ = false;
    step_ = Step::woken;
    return Segment{core.cost(costs_.context_switch), ContextKind::thread, kSyscallLabel};
  }
  return top(core);
}

// The loop's top: poll() first with -p; then Tx kick, completions and the batch.
std::optional<Segment> Xdpsock::top(Core& core) {
  if (settings_.method != XdpMethod::rtc) return syscall(Step::poll_call, core);
  return kick_or_work(core);
}

// A system call's entry and exit, and its own work: poll()'s (do_sys_poll on one socket) or a
// socket call's dispatch (sendto() or recvfrom() up to the driver's wake-up, which the queue's
// kick charges as its interrupt).
Segment Xdpsock::syscall(Step step, Core& core) {
  ++counters_.syscalls;
  step_ = step;
  const Distribution& own = step == Step::poll_call ? costs_.poll_call : costs_.socket_call;
  return Segment{core.cost(costs_.syscall) + core.cost(own), ContextKind::thread, kSyscallLabel};
}

// The seed's RFC mode: the RFC's own xdpsock ("[RFC bpf-next 7/7] samples/bpf: add busy-poll
// support to xdpsock sample", 2 May 2019), where poll() with busy polling drives Tx: no sendto()
// kick (complete_tx_only: `if (!opt_busy_poll) kick_tx(xsk)`; complete_tx_l2fwd: `if
// (!opt_poll)`) and poll(fds, num_socks, 0), which never sleeps.
bool Xdpsock::rfc_busy_poll() const {
  return settings_.method == XdpMethod::busypoll && settings_.loop_end != XdpLoopEnd::once;
}

// complete_tx_*: a sendto() kick while frames are outstanding, then the completions.
std::optional<Segment> Xdpsock::kick_or_work(Core& core) {
  if (settings_.app != XdpApp::rxdrop && outstanding_ > 0 && !rfc_busy_poll())
    return syscall(Step::kick, core);
  return work(core);
}

bool Xdpsock::has_event() const {
  if (settings_.app == XdpApp::txpush) return xsk_.tx.room() > 0 || xsk_.completion.count > 0;
  return xsk_.rx.count > 0;
}

std::optional<Segment> Xdpsock::work(Core& core) {
  // Completions back: txpush frees them, l2fwd puts them on the fill ring.
  lines_ += xsk_.completion.remote_lines(settings_.batch, core.index());
  const std::uint64_t done = xsk_.completion.consume(settings_.batch);
  outstanding_ -= done;
  counters_.completed += done;
  if (settings_.app == XdpApp::l2fwd) held_ += done;
  if (held_ > 0) held_ -= xsk_.fill.produce(held_, core.index());
  std::uint64_t n = 0;
  switch (settings_.app) {
    case XdpApp::txpush:
      // tx_only: a whole batch or nothing (xsk_ring_prod__reserve of BATCH_SIZE), from frames
      // that are not in flight.
      if (xsk_.tx.room() >= settings_.batch && outstanding_ + settings_.batch <= settings_.frames)
        n = settings_.batch;
      break;
    case XdpApp::l2fwd:
      n = std::min<std::uint64_t>({settings_.batch, xsk_.rx.count, xsk_.tx.room()});
      break;
    default:
      n = std::min<std::uint64_t>(settings_.batch, xsk_.rx.count);
      break;
  }
  if (n > 0) {
    batch_ = n;
    step_ = Step::work;
    // The batch's Rx descriptors, and the completions' lines (taken by this loop or by loops
    // that had no batch), read from the driver's core.
    if (settings_.app != XdpApp::txpush) lines_ += xsk_.rx.remote_lines(n, core.index());
    const std::int64_t lines = static_cast<std::int64_t>(lines_);
    lines_ = 0;
    return Segment{core.cost(costs_.per_frame, static_cast<std::int64_t>(n)) +
                       core.cost(costs_.cache_line, lines),
                   ContextKind::thread, kAppLabel};
  }
  if (done > 0) return top(core);
  return wait(core);
}

// Nothing moved this loop.
std::optional<Segment> Xdpsock::wait(Core& core) {
  if (settings_.method == XdpMethod::rtc) {
    // xdpsock since 5.4: recvfrom() when nothing came and the fill ring asks for it.
    if (settings_.need_wakeup && settings_.app != XdpApp::txpush && xsk_.fill_needs_wakeup)
      return syscall(Step::recv_call, core);
    return spin();
  }
  if (!has_event()) return top(core);  // poll() sleeps or busy-polls
  return spin();                       // an event, but no room to act on it (Tx full)
}

Segment Xdpsock::spin() {
  spinning_ = true;
  step_ = Step::spin;
  return Segment{kSpinQuantum, ContextKind::thread, kSpinLabel};
}

std::optional<Segment> Xdpsock::next(Core& core) {
  switch (step_) {
    case Step::woken:
      return kick_or_work(core);
    case Step::poll_call:
      if (settings_.method == XdpMethod::busypoll) return begin_busy_loop(core, After::poll);
      return poll_result(core);
    case Step::busy:
      return busy_next(core);
    case Step::busy_final:
      queue_.final_poll_end(core);
      owned_ = false;
      return after_loop(core);
    case Step::kick:
      // sendto() busy-polls since 5.11 (xsk_sendmsg, with the one-iteration loop); the seed's
      // RFC busy-polled from poll() only, and its xdpsock made no sendto() in busypoll.
      if (settings_.method == XdpMethod::busypoll && settings_.loop_end == XdpLoopEnd::once)
        return begin_busy_loop(core, After::send);
      queue_.kick();
      return work(core);
    case Step::recv_call:
      queue_.kick();
      return work(core);
    case Step::spin:
      spinning_ = false;
      return top(core);
    case Step::work:
      break;
  }
  // The batch's frames move.
  switch (settings_.app) {
    case XdpApp::txpush:
      xsk_.tx.produce(batch_, core.index());
      outstanding_ += batch_;
      counters_.queued += batch_;
      break;
    case XdpApp::l2fwd:
      xsk_.rx.consume(batch_);
      xsk_.tx.produce(batch_, core.index());
      outstanding_ += batch_;
      counters_.received += batch_;
      counters_.queued += batch_;
      break;
    default:
      xsk_.rx.consume(batch_);
      held_ += batch_;
      held_ -= xsk_.fill.produce(held_, core.index());
      counters_.received += batch_;
      break;
  }
  batch_ = 0;
  return top(core);
}

// xsk_poll: the seed's fix schedules the context when the driver set the fill ring's flag; the
// mask says whether poll() returns.
std::optional<Segment> Xdpsock::poll_result(Core& core) {
  // xsk_no_wakeup (5.11): a socket that prefers busy polling skips the wake-up.
  const bool no_wakeup = settings_.method == XdpMethod::busypoll && settings_.prefer;
  if (xsk_.fill_needs_wakeup && !no_wakeup) queue_.kick();
  if (has_event()) return kick_or_work(core);
  if (rfc_busy_poll()) return top(core);  // poll(..., 0) returned 0: xdpsock polls again
  if (!queue_.has_irq()) {
    // Without an interrupt nothing would wake a sleeping poll() before xdpsock's timeout: the
    // model's busy-polling poll() returns, and the loop polls again once something moves.
    return spin();
  }
  sleeping_ = true;
  ++counters_.sleeps;
  return std::nullopt;
}

Segment Xdpsock::begin_busy_loop(Core& core, After after) {
  after_ = after;
  busy_start_ = core.now();
  owned_ = false;
  return busy_iteration(core);
}

Segment Xdpsock::busy_iteration(Core& core) {
  Duration cost = core.cost(costs_.iteration);
  if (!owned_) owned_ = queue_.busy_acquire(settings_.prefer);
  if (owned_) cost += queue_.busy_poll_begin(settings_.busy_budget, core);
  polling_ = owned_;
  step_ = Step::busy;
  return Segment{cost, ContextKind::busy_poll, kBusyLabel};
}

std::optional<Segment> Xdpsock::busy_next(Core& core) {
  if (polling_) queue_.busy_poll_end(core);
  polling_ = false;
  bool end = settings_.loop_end == XdpLoopEnd::once || core.need_resched();
  if (!end) {
    // The seed's words ("if the Rx queue is empty or the Tx queue is full") read as the driver's
    // rings, or as Sridhar's review of patch 5/7 asked ("check for xskq_full_desc on TX and
    // xskq_empty_desc on RX", the socket's rings that xsk_poll's mask reads): end when poll()
    // has an event for the application, as sk_busy_loop_end does for a socket.
    const bool events = settings_.loop_end == XdpLoopEnd::poll_events;
    const napi::LoopEnd rule{events, !events, !events};
    const napi::LoopState state{events && has_event(), !events && queue_.rx_empty(),
                                !events && queue_.tx_full()};
    end = napi::busy_loop_end(rule, state, busy_start_, core.now(), settings_.busy_usecs);
  }
  if (!end) return busy_iteration(core);
  if (!owned_) return after_loop(core);
  step_ = Step::busy_final;
  return Segment{queue_.busy_poll_stop(settings_.prefer, settings_.busy_budget, core),
                 ContextKind::busy_poll, kBusyLabel};
}

std::optional<Segment> Xdpsock::after_loop(Core& core) {
  if (after_ == After::poll) return poll_result(core);
  return work(core);  // sendto() busy-polled instead of waking the driver
}

}  // namespace irqmod::sim
