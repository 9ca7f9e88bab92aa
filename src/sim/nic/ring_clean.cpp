// The driver's clean. See ring_clean.hpp.
#include "sim/nic/ring_clean.hpp"

#include <algorithm>

namespace irqmod::sim {
namespace {

enum RingCleanEvent : std::uint16_t {
  kRefillRetry = 1,  // MCLGETI refill: an empty ring tries again at the next tick
};

std::string numbered(const char* name, std::uint32_t index) {
  return index == 0 ? name : std::string(name) + " " + std::to_string(index);
}

}  // namespace

RingClean::RingClean(World& world, std::uint32_t index, RxQueue* rx, TxQueue* tx,
                     LazyArrivals arrivals, RxStack stack, const RingCleanConfig& config,
                     Rng refill_rng)
    : world_(world),
      rx_(rx),
      tx_(tx),
      arrivals_(arrivals),
      stack_(stack),
      config_(config),
      refill_rng_(refill_rng),
      polled_(std::max<std::uint32_t>(config.polled_frames, 1)),
      ring_counter_(numbered("rx ring", index)),
      free_counter_(numbered("rx free", index)),
      written_back_counter_(numbered("rx written back", index)),
      dropped_counter_(numbered("rx dropped", index)) {
  endpoint_ = world_.engine.bind<&RingClean::on_event>(*this);
  refill_slot_ = world_.engine.make_slot();
}

void RingClean::on_event(const Event&) {
  retry_refill();
}

Scan RingClean::scan(int budget, Core& core) {
  land(world_.now());
  Scan scan;
  clean_tx_rings(scan);
  ++world_.report.cores[core.index()].polls;
  if (rx_) {
    const std::size_t first = polled_.size();
    scan.rx = rx_->take(budget, world_.now(), polled_);
    rx_cleaned_ += static_cast<std::uint64_t>(scan.rx);
    finish_rx(scan, first, core);
  }
  last_ = scan;
  return scan;
}

void RingClean::clean_tx_rings(Scan& scan) {
  if (!tx_) return;
  clean_tx(*tx_, scan);
  for (TxQueue* more : more_tx_)
    clean_tx(*more, scan);  // enetc_poll: every Tx ring of the vector, each with its limit
}

void RingClean::finish_rx(Scan& scan, std::size_t first, const Core& core) {
  const StackWork work =
      stack_.plan(stack_.self, polled_, first, scan.rx, core.index(), tcp_planned_);
  scan.tcp_skbs = work.tcp_skbs;
  scan.acks = work.acks;
  scan.forwarded = work.forwarded;
  if (scan.rx > 0) trace_ring();
  const RefillSettings& refill = config_.refill;
  if (refill.mclgeti) {
    refill.mclgeti->release(static_cast<std::uint32_t>(scan.rx));  // rxeof's m_cluncount
    scan.refilled = static_cast<int>(refill_by_mclgeti());
  } else if (refill.by_cpu && rx_->unrefilled() >= refill.batch) {
    // i40e_alloc_rx_buffers for every cleaned descriptor (done here once per poll, not at the
    // top of each of its iterations); an allocation that fails ends it (alloc_page_failed).
    std::uint32_t allocated = rx_->unrefilled();
    for (std::uint32_t i = 0; refill.fail_ppm > 0 && i < allocated; ++i) {
      if (allocation_fails()) {
        allocated = i;
        scan.refill_failed = true;
        break;
      }
    }
    scan.refilled = static_cast<int>(allocated);
  }
}

bool RingClean::allocation_fails() {
  const std::uint32_t fail_ppm = config_.refill.fail_ppm;
  if (fail_ppm == 0 || refill_rng_.below(1'000'000) >= fail_ppm) return false;
  ++alloc_failures_;
  return true;
}

// ixgbe_rxfill (OpenBSD): a cluster for each descriptor without one while MCLGETI gives them;
// a failed allocation ends it. The next poll tries again; a ring left without any buffer gets no
// frame and so no poll, and tries again at the next tick (ixgbe_rxrefill's
// timeout_add(&rxr->rx_refill, 1)).
std::uint32_t RingClean::refill_by_mclgeti() {
  Mclgeti& mclgeti = *config_.refill.mclgeti;
  std::uint32_t allocated = 0;
  while (allocated < rx_->unrefilled() && mclgeti.allocate()) {
    if (allocation_fails()) {
      mclgeti.release(1);
      break;
    }
    ++allocated;
  }
  if (allocated == 0 && rx_->bare()) {
    const Instant at = mclgeti.next_tick();
    if (!world_.engine.armed(refill_slot_) || world_.engine.deadline(refill_slot_) != at)
      world_.engine.arm(refill_slot_, at, endpoint_, kRefillRetry);
  }
  return allocated;
}

// The refill timeout (softclock context; its few allocations are not charged).
void RingClean::retry_refill() {
  const std::uint32_t allocated = refill_by_mclgeti();
  if (allocated > 0) rx_->refill(allocated, world_.now());
}

void RingClean::clean_tx(TxQueue& queue, Scan& scan) {
  const TxQueue::Cleaned cleaned = queue.clean();
  scan.tx += static_cast<int>(cleaned.frames);
  scan.tx_finished = scan.tx_finished && cleaned.finished;
  tx_cleaned_packets_ += cleaned.frames;
  tx_cleaned_bytes_ += cleaned.bytes;
  unreported_.frames += cleaned.frames;
  unreported_.bytes += cleaned.bytes;
}

Duration RingClean::poll_cost(const Scan& scan, Core& core, bool fixed) {
  const PollCosts& costs = config_.costs;
  Duration cost = fixed ? core.cost(costs.napi_poll) : Duration::zero();
  cost += core.cost(costs.rx_packet, scan.rx);
  if (scan.tx > 0) cost += core.cost(costs.tx_clean, scan.tx);
  return cost + stack_cost(scan, core, cost);
}

Duration RingClean::stack_cost(const Scan& scan, Core& core, Duration before) {
  const PollCosts& costs = config_.costs;
  Duration cost = Duration::zero();
  if (scan.refilled > 0) {
    cost += core.cost(costs.rx_refill, scan.refilled);
    // The tail register is written when the driver's part of the poll is done: the buffers are
    // usable from then, while the stack still works on the frames (routing them, below). On
    // OpenBSD this is exact (ixgbe_rxfill ends the handler, ipintr runs after); i40e refills
    // inside its clean loop, earlier still.
    rx_->refill(static_cast<std::uint32_t>(scan.refilled), world_.now() + before + cost);
  }
  if (scan.forwarded > 0) cost += core.cost(costs.forward, scan.forwarded);
  if (scan.tcp_skbs > 0) cost += core.cost(costs.tcp_skb, scan.tcp_skbs);
  if (scan.acks > 0) cost += core.cost(costs.tx_packet, scan.acks);
  return cost;
}

void RingClean::trace_ring() {
  if (!world_.trace) return;
  const auto now = world_.now();
  world_.trace->counter(kTraceNic, ring_counter_, "descriptors", now,
                        static_cast<std::int64_t>(rx_->size()));
  // What the ring-low LLI compares with its threshold (seed 004's feedback loop).
  world_.trace->counter(kTraceNic, free_counter_, "descriptors", now, rx_->free_descriptors());
  // Running totals (Perfetto draws their slope as the rate): the frames instead of an event
  // each, unless --trace-detail frames asked for those too.
  world_.trace->counter(kTraceNic, written_back_counter_, "frames", now,
                        static_cast<std::int64_t>(rx_->written_back()));
  world_.trace->counter(kTraceNic, dropped_counter_, "frames", now,
                        static_cast<std::int64_t>(rx_->dropped()));
}

// The per-descriptor poll's first part: the poll call's fixed part and the Tx rings' cleaning
// (enetc_poll, i40e_napi_poll and ixgbe_poll clean Tx first).
Duration RingClean::begin_loop(int budget, Core& core) {
  land(world_.now());
  last_ = Scan{};
  clean_tx_rings(last_);
  ++world_.report.cores[core.index()].polls;
  loop_budget_ = budget;
  loop_first_ = polled_.size();
  phase_ = LoopPhase::rx;
  Duration cost = core.cost(config_.costs.napi_poll);
  if (last_.tx > 0) cost += core.cost(config_.costs.tx_clean, last_.tx);
  return cost;
}

std::optional<Duration> RingClean::loop_more(Core& core, bool& rx_finished) {
  rx_finished = false;
  switch (phase_) {
    case LoopPhase::none:
      return std::nullopt;
    case LoopPhase::rx: {
      // One round of the clean loop: the frames written back by now, each at rx-packet.
      const int room = loop_budget_ - last_.rx;
      if (rx_ && room > 0) {
        land(world_.now());
        const int took = rx_->take(room, world_.now(), polled_);
        if (took > 0) {
          last_.rx += took;
          rx_cleaned_ += static_cast<std::uint64_t>(took);
          return core.cost(config_.costs.rx_packet, took);
        }
      }
      // The loop met a descriptor not done (or the budget): the stack's part follows.
      if (rx_) finish_rx(last_, loop_first_, core);
      rx_finished = true;
      const Duration rest = stack_cost(last_, core, Duration::zero());
      phase_ = rest > Duration::zero() ? LoopPhase::stack : LoopPhase::none;
      if (phase_ == LoopPhase::none) return std::nullopt;
      return rest;
    }
    case LoopPhase::stack:
      phase_ = LoopPhase::none;
      return std::nullopt;
  }
  return std::nullopt;
}

std::uint32_t RingClean::polled_bytes() const {
  std::uint32_t bytes = 0;
  for (std::size_t i = 0; i < polled_.size(); ++i)
    bytes += polled_[i].frame_bytes;
  return bytes;
}

RingClean::Unreported RingClean::take_unreported_tx() {
  const Unreported out = unreported_;
  unreported_ = Unreported{};
  return out;
}

void RingClean::deliver(Core& core, std::uint32_t napi_id) {
  while (!polled_.empty()) {
    const Packet& p = polled_.front();
    polled_packets_ += 1;
    polled_bytes_ += p.frame_bytes;
    stack_.receive(stack_.self, p, napi_id, core.index());
    polled_.pop();
  }
  stack_.end_batch(stack_.self, tcp_planned_);
}

}  // namespace irqmod::sim
