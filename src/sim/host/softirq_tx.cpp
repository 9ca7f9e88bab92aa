// The stack's transmissions from softirq context. See softirq_tx.hpp.
#include "sim/host/softirq_tx.hpp"

#include <cassert>
#include <string>

#include "sim/host/stack.hpp"
#include "sim/net/tcp_path.hpp"

namespace irqmod::sim {

SoftirqTx::SoftirqTx(World& world, Core& core, Stack& stack, SoftirqTxCosts costs)
    : world_(world), core_(core), stack_(stack), costs_(costs) {
  endpoint_ = world_.engine.bind<&SoftirqTx::on_event>(*this);
  push_ = world_.engine.make_slot();
}

void SoftirqTx::add_skb(std::uint32_t tuple, std::uint32_t segments, std::uint32_t frame_bytes) {
  add(Item{Packet{ns_since_epoch(world_.now()), frame_bytes, tuple}, segments});
}

void SoftirqTx::add_reply(const Packet& request) {
  add(Item{request, 1});
}

void SoftirqTx::add_ack(const Packet& segment) {
  add(Item{Packet{segment.arrival_ns, kTcpFrameOverhead, segment.flow}, 1});
}

// The job is pushed by an event at the same instant: the caller may be a job of this core in the
// middle of its own step, under which nothing may be pushed from there.
void SoftirqTx::add(const Item& item) {
  added_ += item.segments;
  if (!items_.push(item)) {
    world_.exceeded(Error{"napi.netdev_budget",
                          "more than " + std::to_string(items_.capacity()) +
                              " skbs waited for one softirq transmit pass, the model's limit; "
                              "allowed: a smaller budget (each frame a pass takes can make one)"});
    return;
  }
  if (queued_) return;
  queued_ = true;
  world_.engine.arm(push_, world_.now(), endpoint_, 0);
}

void SoftirqTx::on_event(const Event&) {
  core_.push(job_of(*this), Level::softirq);
}

std::optional<Segment> SoftirqTx::start(Core& core) {
  charged_ = items_.size();
  if (charged_ == 0) {
    queued_ = false;
    return std::nullopt;
  }
  Duration cost{};
  for (std::size_t i = 0; i < charged_; ++i) {
    cost += core.cost(costs_.tx_packet);
    if (items_[i].segments > 1) cost += core.cost(costs_.gso_segment, items_[i].segments);
  }
  return Segment{cost, ContextKind::softirq, "tcp xmit"};
}

std::optional<Segment> SoftirqTx::next(Core& core) {
  for (std::size_t i = 0; i < charged_; ++i) {
    const Item& item = items_.front();
    ++skbs_;
    for (std::uint32_t s = 0; s < item.segments; ++s) {
      ++segments_;
      stack_.send_frame(item.frame.flow, item.frame, core.index());
    }
    items_.pop();
  }
  return start(core);  // what was queued meanwhile, in another segment
}

}  // namespace irqmod::sim
