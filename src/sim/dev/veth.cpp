// A veth receive queue. See veth.hpp.
#include "sim/dev/veth.hpp"

#include <algorithm>

namespace irqmod::sim {

VethQueue::VethQueue(World& world, std::uint32_t napi_id, const VethConfig& config,
                     std::vector<NetRx*> net_rx, std::uint32_t thread_core, RxStack stack)
    : world_(world),
      config_(config),
      stack_(stack),
      ring_(std::max<std::uint32_t>(config.ring, 1)),
      polled_(std::max<std::uint32_t>(config.ring, 1)),
      napi_(world, napi_id, device_of(*this), std::move(net_rx), thread_core, config.napi) {}

bool VethQueue::xmit(const Packet& packet, Core& core) {
  if (!ring_.push(packet)) {
    // ptr_ring_produce: -ENOSPC; with noqueue veth_xmit frees the skb: the sender's tx_dropped.
    ++counters_.dropped;
    world_.report.drops.add(DropReason::tx_ring_full);
    return false;
  }
  ++counters_.produced;
  flush(core);
  return true;
}

// smp_mb(); if (!rx_notify_masked && napi_schedule_prep()) { masked = true; __napi_schedule(); }
// A failed napi_schedule_prep (the context is scheduled or owned) sets MISSED and leaves the
// line clear.
void VethQueue::flush(Core& core) {
  if (masked_) return;
  if (napi_.context().schedule() != napi::Schedule::raised) return;
  masked_ = true;
  ++counters_.schedules;
  napi_.schedule_on(core);
}

// veth_xdp_rcv: up to the budget from the ring, each through veth_xdp_rcv_skb and
// napi_gro_receive; the stack's receive path follows for each (charged here, delivered at the
// poll's end).
PollStart VethQueue::poll_begin(int budget, Core& core, PollKind kind) {
  ++world_.report.cores[core.index()].polls;
  taken_ = 0;
  const std::size_t first = polled_.size();
  while (taken_ < budget && !ring_.empty()) {
    polled_.push(ring_.front());
    ring_.pop();
    ++taken_;
  }
  counters_.polled += static_cast<std::uint64_t>(taken_);
  stack_.plan(stack_.self, polled_, first, taken_, core.index(), planned_);
  Duration cost = kind == PollKind::busy ? Duration::zero() : core.cost(config_.costs.poll);
  cost += core.cost(config_.costs.packet, taken_);
  cost += core.cost(config_.costs.rx_packet, taken_);
  return PollStart{cost, taken_ == 0};
}

void VethQueue::deliver(Core& core) {
  while (!polled_.empty()) {
    stack_.receive(stack_.self, polled_.front(), napi_.id(), core.index());
    polled_.pop();
  }
  stack_.end_batch(stack_.self, planned_);
}

// if (done < budget && napi_complete_done(napi, done)) { smp_store_mb(rx_notify_masked, false);
// if (!__ptr_ring_empty(&rq->xdp_ring)) reschedule } — the re-check on the poller's core.
void VethQueue::completed(const napi::PollResult& result, Core& core) {
  if (result.completion != napi::Completion::rearm) return;
  masked_ = false;
  if (!ring_.empty()) flush(core);
}

}  // namespace irqmod::sim
