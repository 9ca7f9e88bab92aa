// The receiving application thread. See server.hpp.
#include "sim/app/server.hpp"

namespace irqmod::sim {
namespace {

// A spinning thread's segment: long against any arrival gap the runs have, cut short by data.
constexpr Duration kSpinStretch = milliseconds(10);

}  // namespace

adaptive_poll::Config serve_adaptive_config(const Distribution& hrtimer_late, const IdleExit& idle,
                                            bool hypervisor, Duration wakeup) {
  adaptive_poll::Config config;
  config.idle_poll_window = adaptive_poll::kBareMetalIdlePollWindow;
  config.max_predicted_gap = hypervisor ? adaptive_poll::kVirtualizedIdlePollWindow
                                        : adaptive_poll::kBareMetalIdlePollWindow;
  const Duration late = hrtimer_late.quantile(0.9);
  config.wakeup_cost = late > Duration::zero() ? late + idle.added(kServeSleepSample) -
                                                     idle.added(kCalibrateSleepSample)
                                               : wakeup;
  return config;
}

Application::Application(World& world, Core& core, Socket& socket, std::vector<NapiInstance*> napis,
                         Stack& stack, const Peers& peers, Wait wait, BusyPollSettings busy,
                         ApplicationCosts costs)
    : world_(world),
      core_(core),
      socket_(socket),
      napis_(std::move(napis)),
      stack_(stack),
      peers_(peers),
      wait_(wait),
      busy_(busy),
      costs_(costs),
      unsent_(65'536) {
  thread_ = core_.add_thread(job_of(*this), false);
  if (wait_ == Wait::adaptive_poll) {
    // The library's defaults (a bare-metal 200 us spin window), with the cost of a wake-up as this
    // model charges it, as irqmod serve measures it on its host.
    adaptive_poll::Config config;
    config.wakeup_cost = costs_.wakeup.mean() + costs_.context_switch.mean();
    poller_.emplace(config);
    bind_timer();
  }
  socket_.set_waiter(Waiter{[](void* self) { static_cast<Application*>(self)->on_data(); }, this});
  socket_.set_send_waiter(
      Waiter{[](void* self) { static_cast<Application*>(self)->on_writable(); }, this});
}

void Application::on_data() {
  if (phase_ == Phase::spinning) {
    core_.end_segment_now(thread_);  // the next recv finds it
    return;
  }
  if (phase_ == Phase::sleeping) {
    world_.engine.cancel(sleep_timer_);  // the woken thread's hrtimer_cancel
    timers_.program(core_, sleep_due_ - world_.now());
  }
  if (phase_ != Phase::blocked && phase_ != Phase::sleeping) return;
  phase_ = Phase::waking;
  ++wakeups_;
  core_.wake(thread_);
}

void Application::on_writable() {
  if (phase_ != Phase::send_blocked) return;
  phase_ = Phase::waking;
  ++wakeups_;
  core_.wake(thread_);
}

void Application::bind_timer() {
  endpoint_ = world_.engine.bind<&Application::on_event>(*this);
  sleep_timer_ = world_.engine.make_slot();
  sleep_timer_armable_ = true;
}

// The adaptive controller's sleep, or epoll_wait's timeout, ended with no data: the thread wakes
// to poll again (its own core's timer: cpu.hrtimer-late holds that core's idle exit).
void Application::on_event(const Event&) {
  if (phase_ != Phase::sleeping) return;
  sleep_irq_job_.fire(core_, sleep_irq_);
}

void Application::wake_on_timer() {
  if (phase_ != Phase::sleeping) return;  // data woke it during the interrupt
  phase_ = Phase::waking;
  ++wakeups_;
  core_.wake(thread_, true);
}

void Application::sleep_until(Instant due) {
  phase_ = Phase::sleeping;
  sleep_due_ = due;
  timers_.program(core_, due - world_.now());
  const TimerExpiry expiry = draw_expiry(timers_, core_, due);
  sleep_irq_ = expiry.irq;
  world_.engine.arm(sleep_timer_, expiry.irq_at, endpoint_, 1);
}

std::optional<Segment> Application::block() {
  if (wait_ == Wait::epoll && epoll_timeout_ > Duration::zero()) {
    sleep_until(world_.now() + epoll_timeout_);
    return std::nullopt;
  }
  phase_ = Phase::blocked;
  return std::nullopt;
}

std::optional<Segment> Application::start(Core& core) {
  if (phase_ == Phase::waking) {
    return thread_segment(core.cost(costs_.wakeup) + core.cost(costs_.context_switch));
  }
  return receive(core);
}

std::optional<Segment> Application::next(Core& core) {
  switch (phase_) {
    case Phase::waking:
      if (!flush_replies()) {
        phase_ = Phase::send_blocked;
        return std::nullopt;
      }
      return receive(core);
    case Phase::consuming: {
      if (!stream_) {
        for (std::uint32_t i = segment_messages_; i > 0; --i)
          take_message();
        if (consumed_ < consuming_) return thread_segment(message_cost(core));
      }
      finish_consuming();
      if (!unsent_.empty()) {
        phase_ = Phase::send_blocked;  // sendto sleeps in sock_alloc_send_skb
        return std::nullopt;
      }
      return after_drain(core);
    }
    case Phase::recv_busy:
      if (auto segment = recv_busy_->next(core)) return segment;
      // The recv returns what the iteration polled in (__skb_recv_udp tries the queue again),
      // else EAGAIN and the thread goes back to epoll_wait.
      if (!socket_.empty()) return receive(core, false);
      return receive(core);
    case Phase::busy_poll:
      if (auto segment = busy_.next(core)) return segment;
      return after_busy_loop(core);
    case Phase::spinning:
      return receive(core);
    case Phase::resuming:
      // ep_poll looks for events once more before it sleeps: what the resumed NAPI's poll
      // delivered is returned by this call.
      if (!socket_.empty()) return receive(core);
      return block();
    case Phase::blocked:
    case Phase::sleeping:
    case Phase::send_blocked:
      break;
  }
  return std::nullopt;
}

// recv (or epoll_wait): take what is queued, else busy-poll if asked, else block.
std::optional<Segment> Application::after_drain(Core& core) {
  const std::uint32_t napi_id = socket_.napi_id();
  if (recv_busy_ && !stream_ && socket_.empty() && napi_id != 0) {
    phase_ = Phase::recv_busy;
    const DataReady ready{
        [](const void* self) { return !static_cast<const Socket*>(self)->empty(); }, &socket_};
    return recv_busy_->begin(*napis_[napi_id - 1], core, ready);
  }
  return receive(core);
}

std::optional<Segment> Application::receive(Core& core, bool via_epoll) {
  if (!socket_.empty() && entry_) {
    poller_->exit_interrupt_mode(*entry_, world_.now());
    entry_.reset();
  }
  if (!socket_.empty()) {
    const std::uint32_t napi_id = socket_.napi_id();
    if (via_epoll && wait_ == Wait::epoll) ep_napi_dropped_ = false;  // ep_set_busy_poll_napi_id
    if (via_epoll && wait_ == Wait::epoll && busy_.settings().prefer && napi_id != 0) {
      // epoll_wait returns events (ep_send_events > 0): ep_suspend_napi_irqs, before the
      // application works on them, so the deferral timer is pushed out to irq_suspend_timeout
      // for the whole batch (a gro_flush_timeout expiring mid-batch would poll in softirq).
      napis_[napi_id - 1]->suspend_irqs(core);
    }
    idle_ = false;
    consuming_ = static_cast<std::uint32_t>(socket_.size());
    phase_ = Phase::consuming;
    Duration total{};
    if (stream_) {
      // tcp_recvmsg: one call copies every queued segment's payload.
      std::uint64_t bytes = 0;
      for (std::uint32_t i = 0; i < consuming_; ++i)
        bytes += socket_.at(i).frame_bytes - kTcpFrameOverhead;
      total = core.cost(costs_.syscall) + core.cost(costs_.app_message) +
              core.cost(copy_kb_, static_cast<std::int64_t>((bytes + 1023) / 1024));
      return thread_segment(total);
    }
    // One segment a message: its recv, and its reply's sendto, at whose end the reply goes out
    // (the device's xmit, and on veth or loopback the NAPI softirq it raises, runs inside that
    // sendto, before the next recv), as irqmod serve and memcached answer each request.
    // The recv that returns EAGAIN ends the last one; with SO_BUSY_POLL its busy-poll iteration
    // is that call.
    drain_ends_ = (wait_ == Wait::epoll || wait_ == Wait::spin) && !recv_busy_;
    consumed_ = 0;
    if (wait_ == Wait::epoll && via_epoll) total += core.cost(costs_.epoll_wait);
    return thread_segment(total + message_cost(core));
  }
  if (poller_) return adaptive_idle(core);
  if (wait_ == Wait::spin) {
    // Non-blocking recvs until a message is queued (on_data ends the segment there).
    phase_ = Phase::spinning;
    return Segment{kSpinStretch, ContextKind::thread, "spin"};
  }
  const std::uint32_t napi_id = socket_.napi_id();
  const BusyPollSettings& busy = busy_.settings();
  const bool ep_napi = wait_ != Wait::epoll || !ep_napi_dropped_;
  if (napi::epoll_busy_loop_on(busy.usecs, busy.prefer, busy.prefer_starts_loop) && napi_id != 0 &&
      ep_napi) {
    phase_ = Phase::busy_poll;
    const DataReady ready{
        [](const void* self) { return !static_cast<const Socket*>(self)->empty(); }, &socket_};
    return busy_.begin(*napis_[napi_id - 1], core, ready);
  }
  return block();
}

// The socket is empty: the controller says spin, sleep until a predicted arrival, or block.
std::optional<Segment> Application::adaptive_idle(Core& core) {
  const Instant now = world_.now();
  if (!idle_) {
    idle_ = true;
    idle_since_ = now;
  }
  const adaptive_poll::Action action = poller_->on_idle(now);
  switch (action.kind) {
    case adaptive_poll::ActionKind::spin: {
      // Spin until the controller's answer would change (the spin window, or the guard after a
      // predicted arrival), at least one recv; data arriving ends the spin early (on_data).
      const std::optional<Instant> predicted = poller_->predicted_arrival();
      const Instant until = predicted && now <= *predicted + poller_->guard()
                                ? *predicted + poller_->guard()
                                : idle_since_ + poller_->spin_window();
      phase_ = Phase::spinning;
      const Duration recv = core.cost(costs_.syscall);
      return Segment{std::max(until - now, recv), ContextKind::thread, "spin"};
    }
    case adaptive_poll::ActionKind::sleep_until:
      sleep_until(action.until);
      return std::nullopt;
    case adaptive_poll::ActionKind::block:
      break;
  }
  // try_enter_interrupt_mode, then the re-check after arming: nothing can have come in between
  // here (the same instant), so the thread blocks until the socket wakes it.
  entry_.emplace(poller_->try_enter_interrupt_mode(now));
  if (!poller_->recheck(*entry_, !socket_.empty())) {
    poller_->exit_interrupt_mode(*entry_, now);
    entry_.reset();
    return receive(core);
  }
  phase_ = Phase::blocked;
  return std::nullopt;
}

// The busy loop is over: take what it found, or (epoll with prefer_busy_poll and no events)
// resume interrupts, and sleep.
std::optional<Segment> Application::after_busy_loop(Core& core) {
  if (!socket_.empty()) return receive(core);
  const std::uint32_t napi_id = socket_.napi_id();
  // ep_busy_loop: the loop timed out with no event; after the resume below, ep->napi_id = 0.
  if (wait_ == Wait::epoll) ep_napi_dropped_ = true;
  if (wait_ == Wait::epoll && busy_.settings().prefer && napi_id != 0) {
    napis_[napi_id - 1]->resume_irqs(core);
    // napi_resume_irqs (net/core/dev.c) schedules the NAPI between local_bh_disable() and
    // local_bh_enable(): its softirq runs there, inside the epoll_wait call, on this thread's
    // time, before ep_poll (fs/eventpoll.c) decides to sleep.
    if (core.softirq_pending()) {
      phase_ = Phase::resuming;
      return thread_segment(Duration::zero());
    }
  }
  return block();
}

bool Application::flush_replies() {
  while (!unsent_.empty()) {
    if (!stack_.send_reply(unsent_.front(), core_.index(), &socket_)) return false;
    unsent_.pop();
  }
  return true;
}

// The batch's next messages up to the first one answered (its reply's sendto included), or to
// the batch's end when none is: the recvs of one-way messages need no segment each (nothing
// leaves at their end). The drain's last recv (EAGAIN) follows the batch's last message.
Duration Application::message_cost(Core& core) {
  Duration total{};
  segment_messages_ = 0;
  while (consumed_ + segment_messages_ < consuming_) {
    const Packet& p = socket_.at(segment_messages_++);
    total += core.cost(costs_.syscall) + core.cost(costs_.app_message);
    if (peers_[p.flow].answered) {
      total += core.cost(costs_.syscall) + core.cost(costs_.tx_packet);
      total += core.cost(costs_.xmit);
      break;
    }
  }
  if (drain_ends_ && consumed_ + segment_messages_ == consuming_)
    total += core.cost(costs_.recv_empty);
  return total;
}

// The message at the socket's head is taken: its reply goes out, or its latency is recorded.
void Application::take_message() {
  const Packet p = socket_.front();
  socket_.pop();
  ++consumed_;
  last_arrival_ns_ = p.arrival_ns;
  ++world_.report.delivered_packets;
  world_.report.delivered_bytes += p.frame_bytes;
  if (peers_[p.flow].answered) {
    // A full send buffer stops this reply and the ones after it (their CPU was counted with
    // their segments; they go out when Tx completions free the buffer).
    if (!unsent_.empty() || !stack_.send_reply(p, core_.index(), &socket_)) unsent_.push(p);
  } else {
    world_.report.latency.record(ns_since_epoch(world_.now()) - p.arrival_ns);
  }
}

void Application::finish_consuming() {
  if (stream_) {
    consumed_ = 0;
    while (consumed_ < consuming_)
      take_message();
  }
  // The controller learns the gaps from the frames' arrival (kernel receive timestamps).
  if (poller_ && consuming_ > 0)
    poller_->on_work(world_.now(), consuming_, at_ns(last_arrival_ns_));
  consuming_ = 0;
}

}  // namespace irqmod::sim
