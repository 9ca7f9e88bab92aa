// The receiving application thread. See server.hpp.
#include "sim/app/server.hpp"

namespace irqmod::sim {

Application::Application(World& world, Core& core, Socket& socket, std::vector<QueueVector*> napis,
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
      costs_(costs) {
  thread_ = core_.add_thread(job_of(*this), false);
  socket_.set_waiter(Waiter{[](void* self) { static_cast<Application*>(self)->on_data(); }, this});
}

void Application::on_data() {
  if (phase_ != Phase::blocked) return;
  phase_ = Phase::waking;
  core_.wake(thread_);
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
      return receive(core);
    case Phase::consuming: {
      finish_consuming();
      const std::uint32_t napi_id = socket_.napi_id();
      if (wait_ == Wait::epoll && busy_.settings().prefer && napi_id != 0) {
        // ep_try_send_events returned events: napi_suspend_irqs.
        QueueVector& napi = *napis_[napi_id - 1];
        if (auto t = napi.napi().suspend_irqs(world_.now())) napi.arm_napi_timer(*t, core);
      }
      return receive(core);
    }
    case Phase::busy_poll:
      if (auto segment = busy_.next(core, socket_)) return segment;
      return after_busy_loop(core);
    case Phase::blocked:
      break;
  }
  return std::nullopt;
}

// recv (or epoll_wait): take what is queued, else busy-poll if asked, else block.
std::optional<Segment> Application::receive(Core& core) {
  if (!socket_.empty()) {
    consuming_ = static_cast<std::uint32_t>(socket_.size());
    phase_ = Phase::consuming;
    Duration total{};
    for (std::uint32_t i = 0; i < consuming_; ++i) {
      total += core.cost(costs_.syscall) + core.cost(costs_.app_message);
      if (peers_[socket_.at(i).flow].answered) {
        total += core.cost(costs_.syscall) + core.cost(costs_.tx_packet);
      }
    }
    return thread_segment(total);
  }
  const std::uint32_t napi_id = socket_.napi_id();
  if (busy_.settings().usecs > 0 && napi_id != 0) {
    phase_ = Phase::busy_poll;
    return busy_.begin(*napis_[napi_id - 1], core);
  }
  phase_ = Phase::blocked;
  return std::nullopt;
}

// The busy loop is over: take what it found, or (epoll with prefer_busy_poll and no events)
// resume interrupts, and sleep.
std::optional<Segment> Application::after_busy_loop(Core& core) {
  if (!socket_.empty()) return receive(core);
  const std::uint32_t napi_id = socket_.napi_id();
  if (wait_ == Wait::epoll && busy_.settings().prefer && napi_id != 0) {
    QueueVector& napi = *napis_[napi_id - 1];
    if (auto s = napi.napi().resume_irqs(); s && *s == napi::Schedule::raised) {
      napi.schedule_on(core);
    }
  }
  phase_ = Phase::blocked;
  return std::nullopt;
}

void Application::finish_consuming() {
  for (std::uint32_t i = 0; i < consuming_; ++i) {
    const Packet p = socket_.front();
    socket_.pop();
    ++world_.report.delivered_packets;
    world_.report.delivered_bytes += p.frame_bytes;
    if (peers_[p.flow].answered) {
      stack_.send_reply(p, core_.index());
    } else {
      world_.report.latency.record(ns_since_epoch(world_.now()) - p.arrival_ns);
    }
  }
  consuming_ = 0;
}

}  // namespace irqmod::sim
