// The lab's clients. See lab_client.hpp.
#include "sim/app/lab_client.hpp"

#include <algorithm>

namespace irqmod::sim {
namespace {

Segment thread_segment(Duration length, std::string_view label) {
  return Segment{length, ContextKind::thread, label};
}

// A reply's half round trip: the request's send time travels in the frame (Packet::arrival_ns,
// which the server's reply keeps).
void record_reply(World& world, const Packet& reply, Instant read_at) {
  world.report.latency.record((ns_since_epoch(read_at) - reply.arrival_ns) / 2);
  if (reply.replied_ns > 0 && world.report.lab_client) {
    world.report.lab_client->request_half.record(reply.replied_ns - reply.arrival_ns);
    world.report.lab_client->reply_half.record(ns_since_epoch(read_at) - reply.replied_ns);
  }
}

}  // namespace

// ---- sockperf ping-pong ----------------------------------------------------------------------

SockperfClient::SockperfClient(World& world, Core& core, Stack& stack, LabClientSockets sockets,
                               std::uint64_t mps, LabClientCosts costs)
    : world_(world),
      core_(core),
      stack_(stack),
      sockets_(std::move(sockets)),
      gap_(mps > 0 ? nanoseconds(static_cast<std::int64_t>(1'000'000'000 / mps))
                   : Duration::zero()),
      costs_(costs) {
  thread_ = core_.add_thread(job_of(*this), false);
  sockets_.sockets[0]->set_waiter(
      Waiter{[](void* self) { static_cast<SockperfClient*>(self)->on_data(); }, this});
}

void SockperfClient::start() {
  next_send_ = world_.now();
  core_.wake(thread_, true);
}

std::optional<Segment> SockperfClient::start(Core& core) {
  if (phase_ == Phase::waking) {
    return thread_segment(core.cost(costs_.wakeup) + core.cost(costs_.context_switch), "sockperf");
  }
  return begin_send(core);
}

std::optional<Segment> SockperfClient::begin_send(Core& core) {
  phase_ = Phase::sending;
  sent_at_ = core.now();
  return thread_segment(core.cost(costs_.syscall) + core.cost(costs_.send) + core.cost(costs_.xmit),
                        "sockperf sendto");
}

std::optional<Segment> SockperfClient::read_or_block(Core& core) {
  if (sockets_.sockets[0]->empty()) {
    phase_ = Phase::blocked;  // asleep in recvfrom
    return std::nullopt;
  }
  phase_ = Phase::reading;
  return thread_segment(core.cost(costs_.receive), "sockperf recvfrom");
}

std::optional<Segment> SockperfClient::next(Core& core) {
  switch (phase_) {
    case Phase::sending: {
      // The frame leaves at the end of sendto's own work; the device's transmit schedules the
      // receive path on this core, which runs before the thread goes on (the send's softirq).
      const Packet request{ns_since_epoch(sent_at_), sockets_.frame_bytes, sockets_.first_flow};
      stack_.send_frame(request.flow, request, core.index());
      ++counters_.sent;
      phase_ = Phase::receiving;
      return thread_segment(core.cost(costs_.syscall), "sockperf recvfrom");
    }
    case Phase::receiving:
    case Phase::waking:
      return read_or_block(core);
    case Phase::reading: {
      Socket& socket = *sockets_.sockets[0];
      const Packet reply = socket.front();
      socket.pop();
      ++counters_.replies;
      ++world_.report.delivered_packets;
      world_.report.delivered_bytes += reply.frame_bytes;
      record_reply(world_, reply, core.now());
      if (gap_ == Duration::zero()) return begin_send(core);
      next_send_ += gap_;
      if (next_send_ <= core.now()) return begin_send(core);  // behind schedule: at once
      phase_ = Phase::pacing;                                 // sockperf spins to the slot
      return thread_segment(next_send_ - core.now(), "sockperf pacing");
    }
    case Phase::pacing:
      return begin_send(core);
    case Phase::idle:
    case Phase::blocked:
      break;
  }
  return std::nullopt;
}

void SockperfClient::on_data() {
  if (phase_ != Phase::blocked) return;  // it reads the socket when its recvfrom comes
  phase_ = Phase::waking;
  ++counters_.wakeups;
  core_.wake(thread_);
}

// ---- irqmod load -----------------------------------------------------------------------------

LoadClient::LoadClient(World& world, Core& core, Stack& stack, LabClientSockets sockets,
                       std::uint64_t rate, Rng rng, LabClientCosts costs)
    : world_(world),
      core_(core),
      stack_(stack),
      sockets_(std::move(sockets)),
      mean_gap_ns_(1e9 / static_cast<double>(std::max<std::uint64_t>(rate, 1))),
      rng_(rng),
      costs_(costs),
      reading_(sockets_.sockets.size(), 0) {
  thread_ = core_.add_thread(job_of(*this), false);
  for (Socket* socket : sockets_.sockets) {
    socket->set_waiter(Waiter{[](void* self) { static_cast<LoadClient*>(self)->on_data(); }, this});
  }
  endpoint_ = world_.engine.bind<&LoadClient::on_event>(*this);
  timer_ = world_.engine.make_slot();
}

void LoadClient::start() {
  next_send_ =
      world_.now() + nanoseconds(static_cast<std::int64_t>(rng_.exponential(mean_gap_ns_) + 0.5));
  core_.wake(thread_, true);
}

bool LoadClient::any_ready() const {
  return std::any_of(sockets_.sockets.begin(), sockets_.sockets.end(),
                     [](const Socket* s) { return !s->empty(); });
}

std::optional<Segment> LoadClient::start(Core& core) {
  if (phase_ == Phase::waking) {
    return thread_segment(core.cost(costs_.wakeup) + core.cost(costs_.context_switch), "load");
  }
  return loop(core);
}

// load.cpp's loop: every send that is due, then epoll_pwait2 until the next one (or a reply).
std::optional<Segment> LoadClient::loop(Core& core) {
  if (next_send_ <= core.now()) {
    phase_ = Phase::sending;
    sending_since_ = core.now();
    if (world_.report.lab_client)
      world_.report.lab_client->lag.record((core.now() - next_send_).count());
    return thread_segment(
        core.cost(costs_.syscall) + core.cost(costs_.send) + core.cost(costs_.xmit), "load send");
  }
  if (any_ready()) {
    phase_ = Phase::polling;  // epoll_pwait2 returns at once
    return thread_segment(core.cost(costs_.epoll_wait), "load epoll");
  }
  phase_ = Phase::blocked;
  costs_.timers.program(core, next_send_ - core.now());
  const TimerExpiry expiry = draw_expiry(costs_.timers, core, next_send_);
  timer_irq_ = expiry.irq;
  world_.engine.arm(timer_, expiry.irq_at, endpoint_, 1);
  return std::nullopt;
}

std::optional<Segment> LoadClient::read_ready(Core& core) {
  Duration cost{};
  bool any = false;
  for (std::size_t i = 0; i < sockets_.sockets.size(); ++i) {
    const auto n = static_cast<std::uint32_t>(sockets_.sockets[i]->size());
    reading_[i] = n;
    if (n == 0) continue;
    any = true;
    for (std::uint32_t m = 0; m < n; ++m)
      cost += core.cost(costs_.syscall) + core.cost(costs_.receive);
    cost += core.cost(costs_.recv_empty);  // recv until EAGAIN
  }
  if (!any) return loop(core);
  phase_ = Phase::reading;
  return thread_segment(cost, "load recv");
}

std::optional<Segment> LoadClient::next(Core& core) {
  switch (phase_) {
    case Phase::sending: {
      const std::uint32_t connection = next_socket_;
      next_socket_ = (next_socket_ + 1) % static_cast<std::uint32_t>(sockets_.sockets.size());
      const Packet request{ns_since_epoch(sending_since_), sockets_.frame_bytes,
                           sockets_.first_flow + connection};
      stack_.send_frame(request.flow, request, core.index());
      ++counters_.sent;
      next_send_ += nanoseconds(static_cast<std::int64_t>(rng_.exponential(mean_gap_ns_) + 0.5));
      return loop(core);
    }
    case Phase::waking:
      phase_ = Phase::polling;  // the epoll_pwait2 that slept returns
      return thread_segment(core.cost(costs_.epoll_wait), "load epoll");
    case Phase::polling:
      arrived_ = core.now();
      return read_ready(core);
    case Phase::reading:
      for (std::size_t i = 0; i < sockets_.sockets.size(); ++i) {
        Socket& socket = *sockets_.sockets[i];
        for (std::uint32_t m = 0; m < reading_[i]; ++m) {
          const Packet reply = socket.front();
          socket.pop();
          ++counters_.replies;
          ++world_.report.delivered_packets;
          world_.report.delivered_bytes += reply.frame_bytes;
          record_reply(world_, reply, arrived_);
        }
        reading_[i] = 0;
      }
      return loop(core);
    case Phase::idle:
    case Phase::blocked:
      break;
  }
  return std::nullopt;
}

void LoadClient::on_data() {
  if (phase_ != Phase::blocked) return;
  world_.engine.cancel(timer_);  // the woken thread's hrtimer_cancel
  costs_.timers.program(core_, next_send_ - world_.now());
  phase_ = Phase::waking;
  ++counters_.wakeups;
  core_.wake(thread_);
}

// epoll_pwait2's timeout: the hrtimer of this core wakes the thread (its lateness drawn when
// armed).
void LoadClient::on_event(const Event&) {
  if (phase_ != Phase::blocked) return;
  timer_irq_job_.fire(core_, timer_irq_);
}

void LoadClient::wake_on_timer() {
  if (phase_ != Phase::blocked) return;  // a reply woke it during the interrupt
  phase_ = Phase::waking;
  ++counters_.wakeups;
  ++counters_.timeouts;
  core_.wake(thread_, true);
}

}  // namespace irqmod::sim
