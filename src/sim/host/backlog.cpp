// The receive backlog. See backlog.hpp.
#include "sim/host/backlog.hpp"

#include <algorithm>

#include "sim/host/stack.hpp"

namespace irqmod::sim {

const NapiOps Backlog::kNapiOps{
    [](void* self, const Core& core) { return static_cast<Backlog*>(self)->take(core); },
    [](void* self, Core& core) { return static_cast<Backlog*>(self)->poll_begin(core); },
    nullptr,  // one part
    [](void* self, Core& core) { return static_cast<Backlog*>(self)->poll_end(core); }};

Backlog::Backlog(World& world, NetRx& net_rx, Stack& stack, std::uint32_t capacity, int weight,
                 Distribution forward)
    : world_(world),
      net_rx_(net_rx),
      stack_(stack),
      queue_(capacity),
      weight_(weight),
      forward_(forward) {}

bool Backlog::enqueue(const Packet& packet, std::uint32_t napi_id) {
  if (!queue_.push(Queued{packet, napi_id})) return false;
  if (!scheduled_) {
    scheduled_ = true;
    net_rx_.schedule(napi_ref());
  }
  return true;
}

// process_backlog / ipintr: up to the weight, from the head; the stack's work is charged now and
// the frames go up when the poll's time has passed.
Duration Backlog::poll_begin(Core& core) {
  polling_ =
      static_cast<int>(std::min<std::size_t>(queue_.size(), static_cast<std::size_t>(weight_)));
  int forwarded = 0;
  for (int i = 0; i < polling_; ++i)
    forwarded += stack_.forwards(queue_[static_cast<std::size_t>(i)].packet.flow) ? 1 : 0;
  ++world_.report.cores[core.index()].polls;
  return forwarded > 0 ? core.cost(forward_, forwarded) : Duration::zero();
}

int Backlog::poll_end(Core& core) {
  for (int i = 0; i < polling_; ++i) {
    const Queued q = queue_.front();
    queue_.pop();
    stack_.deliver(q.packet, q.napi_id, core.index());
  }
  stack_.end_batch();
  const int done = polling_;
  polling_ = 0;
  if (!queue_.empty()) {
    net_rx_.schedule(napi_ref());  // more than a poll's worth: polled again (the repoll list)
    return done;
  }
  scheduled_ = false;
  return done;
}

}  // namespace irqmod::sim
