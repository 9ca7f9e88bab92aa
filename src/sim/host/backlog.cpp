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
                 BacklogCosts costs)
    : world_(world),
      net_rx_(net_rx),
      targets_{&stack},
      queue_(capacity),
      weight_(weight),
      costs_(costs) {}

bool Backlog::enqueue(const Packet& packet, std::uint32_t napi_id, std::uint8_t target) {
  if (!queue_.push(Queued{packet, napi_id, target})) return false;
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
  for (int i = 0; i < polling_; ++i) {
    const Queued& q = queue_[static_cast<std::size_t>(i)];
    forwarded += targets_[q.target]->forwards(q.packet.flow) ? 1 : 0;
  }
  ++world_.report.cores[core.index()].polls;
  Duration cost = core.cost(costs_.poll) + core.cost(costs_.packet, polling_);
  if (forwarded > 0) cost += core.cost(costs_.forward, forwarded);
  return cost;
}

int Backlog::poll_end(Core& core) {
  for (int i = 0; i < polling_; ++i) {
    const Queued q = queue_.front();
    queue_.pop();
    targets_[q.target]->deliver(q.packet, q.napi_id, core.index());
  }
  for (Stack* stack : targets_)
    stack->end_batch();
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
