// A queue vector: MSI-X vector, driver and moderation. See queue_vector.hpp.
#include "sim/nic/queue_vector.hpp"

#include <algorithm>

namespace irqmod::sim {
namespace {

enum VectorEvent : std::uint16_t {
  kVectorDue = 1,     // the vector's interrupt is due
  kCoalesceDeadline,  // the Rx coalescer's usecs timer
  kRateSample,        // coalesce adaptive-rx: the sample-interval timer
  kTxDeadline,        // the Tx coalescer's usecs timer
};

}  // namespace

QueueVector::QueueVector(World& world, const QueueVectorConfig& config, std::uint32_t index,
                         RxQueue* rx, TxQueue* tx, MsixTable& msix, Core& irq_core,
                         std::vector<NetRx*> net_rx, RxStack stack, const Peers& peers,
                         LazyArrivals arrivals, Rng refill_rng)
    : world_(world),
      index_(index),
      rx_(rx),
      tx_(tx),
      msix_(msix),
      peers_(peers),
      vector_(config.vector),
      driver_(config.driver, Instant{}),
      rx_moderator_(config.rx_moderation),
      tx_moderator_(config.tx_moderation),
      dim_feed_(config.dim_driver),
      clears_cause_(config.clears_cause),
      irq_core_(irq_core.index()),
      clean_(world, index, rx, tx, arrivals, stack, config.clean, refill_rng),
      // The context's NAPI id: the vector's number + 1 (0 means "none", as below MIN_NAPI_ID).
      napi_(world, index + 1, device_of(*this), std::move(net_rx), irq_core.index(), config.napi) {
  endpoint_ = world_.engine.bind<&QueueVector::on_event>(*this);
  vector_slot_ = world_.engine.make_slot();
  deadline_slot_ = world_.engine.make_slot();
  tx_deadline_slot_ = world_.engine.make_slot();
  msix_vector_ =
      msix_.add(irq_core, IrqHandler{[](void* self, Core& core) {
                                       static_cast<QueueVector*>(self)->napi_.on_interrupt(core);
                                     },
                                     this});
  if (rx_ && rx_moderator_.sample_interval() > Duration::zero()) {
    world_.engine.schedule(at_ns(0), endpoint_, kRateSample);
  }
}

void QueueVector::trace_start() {
  if (!world_.trace || !rx_) return;
  // The moderation setting in effect from the start; later changes add samples.
  const QueueSample now = rx_sample();
  world_.trace->counter(kTraceNic, rx_moderator_.coalescing_usecs() ? "rx-usecs" : "itr", "usecs",
                        world_.now(), now.moderation_ns / 1000);
}

QueueSample QueueVector::rx_sample() const {
  QueueSample out;
  out.used = static_cast<std::uint32_t>(rx_->size());
  out.free = rx_->free_descriptors();
  out.written_back = rx_->written_back();
  out.dropped = rx_->dropped();
  const auto usecs = rx_moderator_.coalescing_usecs();
  out.moderation_ns = usecs ? std::int64_t{*usecs} * 1000 : vector_.itr_interval().count();
  out.dim_profile = rx_moderator_.dim_profile();
  return out;
}

// ---- the device side -------------------------------------------------------------------------

void QueueVector::land(const Packet& packet, Instant writeback) {
  const RxQueue::Landing landing = rx_->land(packet, writeback);
  if (!landing.taken) {
    world_.report.drops.add(landing.reason);
    report_lost(peers_, packet.flow);
    return;
  }
  if (world_.trace && world_.trace->frames())
    world_.trace->instant(kTraceNic, index_, "frame written back", "nic", writeback);
  apply(rx_moderator_.on_writeback(vector_, writeback, rx_->free_descriptors(),
                                   rx_->newest().frame_bytes),
        deadline_slot_);
}

void QueueVector::land_tx_completion(Instant writeback) {
  apply(tx_moderator_.on_writeback(vector_, writeback, 0, 0), tx_deadline_slot_);
}

void QueueVector::catch_up_rx(Instant t) {
  apply(rx_moderator_.catch_up(vector_, t), deadline_slot_);
}

void QueueVector::catch_up_tx(Instant t) {
  apply(tx_moderator_.catch_up(vector_, t), tx_deadline_slot_);
}

void QueueVector::apply(const Arm& arm, SlotId deadline) {
  arm_vector(arm.vector_due);
  if (arm.deadline) {
    arm_at(deadline, std::max(*arm.deadline, world_.now()),
           deadline == tx_deadline_slot_ ? kTxDeadline : kCoalesceDeadline);
  }
}

void QueueVector::arm_vector(std::optional<Instant> due) {
  if (due) arm_at(vector_slot_, std::max(*due, world_.now()), kVectorDue);
}

// Arms `slot` at `at` unless it is already armed for that instant: re-arming would take a new
// sequence number and move the event behind others of the same instant, so the order of ties
// would depend on how often a deadline was confirmed.
void QueueVector::arm_at(SlotId slot, Instant at, std::uint16_t kind) {
  if (world_.engine.armed(slot) && world_.engine.deadline(slot) == at) return;
  world_.engine.arm(slot, at, endpoint_, kind);
}

void QueueVector::on_event(const Event& event) {
  switch (event.kind()) {
    case kVectorDue:
      on_vector_due();
      break;
    case kCoalesceDeadline:
      apply(rx_moderator_.recheck(vector_, world_.now()), deadline_slot_);
      break;
    case kTxDeadline:
      apply(tx_moderator_.recheck(vector_, world_.now()), tx_deadline_slot_);
      break;
    case kRateSample:
      apply(rx_moderator_.on_sample(vector_, world_.now(), rx_->arrived()), deadline_slot_);
      world_.engine.schedule(world_.now() + rx_moderator_.sample_interval(), endpoint_,
                             kRateSample);
      break;
  }
}

void QueueVector::on_vector_due() {
  const auto cause = vector_.fire(world_.now());
  if (!cause) return;
  ++interrupts_;
  const auto rx_usecs = rx_moderator_.on_interrupt(world_.now());
  if (rx_usecs && world_.trace) {
    world_.trace->counter(kTraceNic, "rx-usecs", "usecs", world_.now(), *rx_usecs);
  }
  if (tx_) {
    const auto tx_usecs = tx_moderator_.on_interrupt(world_.now());
    if (tx_usecs && world_.trace) {
      world_.trace->counter(kTraceNic, "tx-usecs", "usecs", world_.now(), *tx_usecs);
    }
  }
  msix_.raise(msix_vector_, *cause == napi::Cause::software);
}

// enetc_clean_rx_ring writes the ring's IDR bit for every frame it cleans, and
// enetc_clean_tx_ring the Tx ring's for every completion: what was cleaned raises nothing
// more. The vector's cause (one for its Rx ring and all its Tx rings) goes when no ring of it
// holds a written-back descriptor the clean has not taken.
void QueueVector::withdraw_cleaned_causes(bool rx_done) {
  if (!clears_cause_) return;
  bool tx_clean = true;
  if (tx_) {
    tx_clean = tx_->written_back() == 0;
    for (const TxQueue* more : clean_.more_tx())
      tx_clean = tx_clean && more->written_back() == 0;
    if (tx_clean && tx_moderator_.on_all_cleaned()) world_.engine.cancel(tx_deadline_slot_);
  }
  if (!rx_done) return;
  const bool rx_clean = !rx_ || rx_->size() == 0;
  if (rx_ && rx_clean && rx_moderator_.on_all_cleaned()) world_.engine.cancel(deadline_slot_);
  if (rx_clean && tx_clean) arm_vector(vector_.withdraw_queue_cause(world_.now()));
}

// ---- the device interface --------------------------------------------------------------------

PollStart QueueVector::poll_begin(int budget, Core& core, PollKind kind) {
  if (kind == PollKind::softirq && clean_.per_descriptor()) {
    const Duration cost = clean_.begin_loop(budget, core);
    withdraw_cleaned_causes(false);
    return PollStart{cost, clean_.last().tx == 0 && clean_.polled() == 0};
  }
  const Scan scan = clean_.scan(budget, core);
  withdraw_cleaned_causes(true);
  return PollStart{clean_.poll_cost(scan, core, kind != PollKind::busy),
                   scan.rx == 0 && scan.tx == 0};
}

std::optional<Duration> QueueVector::poll_more(Core& core) {
  bool rx_finished = false;
  const std::optional<Duration> more = clean_.loop_more(core, rx_finished);
  if (rx_finished) withdraw_cleaned_causes(true);
  return more;
}

// What the driver returns to NAPI for that poll on `core`: i40e's off-affinity branch turns a
// full budget on a core other than the vector's into budget - 1 (napi::Driver::poll_return).
int QueueVector::poll_return(int budget, const Core& core) {
  return driver_.poll_return(work(clean_.last(), budget), budget, core.index() == irq_core_);
}

void QueueVector::deliver(Core& core) {
  driver_.on_rx_cleaned(clean_.polled_bytes(), static_cast<std::uint32_t>(clean_.polled()));
  if (const RingClean::Unreported tx = clean_.take_unreported_tx(); tx.frames > 0) {
    driver_.on_tx_cleaned(tx.bytes, tx.frames);
  }
  clean_.deliver(core, napi_id());
}

// After any poll: net_dim's samples, the interrupt re-enabled or not.
void QueueVector::completed(const napi::PollResult& result, Core&) {
  if (result.completion == napi::Completion::rearm) {
    // The driver's napi poll feeds net_dim after completing (mlx5e_handle_rx_dim, enetc_net_dim;
    // Tx: mlx5e_handle_tx_dim): DimFeed says with which events and for which directions.
    const DimFeed::Samples feed =
        dim_feed_.on_completed_poll(interrupts_, clean_.rx_packets(), clean_.tx_packets());
    std::optional<std::uint32_t> usecs;
    if (feed.rx) {
      apply(rx_moderator_.on_completed_poll(
                vector_, world_.now(),
                DimCounters{feed.events, clean_.rx_packets(), clean_.rx_bytes()}, usecs),
            deadline_slot_);
    }
    if (usecs && world_.trace) {
      world_.trace->counter(kTraceNic, "rx-usecs", "usecs", world_.now(), *usecs);
    }
    if (tx_ && feed.tx) {
      std::optional<std::uint32_t> tx_usecs;
      apply(tx_moderator_.on_completed_poll(
                vector_, world_.now(),
                DimCounters{feed.events, clean_.tx_packets(), clean_.tx_bytes()}, tx_usecs),
            tx_deadline_slot_);
      if (tx_usecs && world_.trace) {
        world_.trace->counter(kTraceNic, "tx-usecs", "usecs", world_.now(), *tx_usecs);
      }
    }
  }
  const napi::DriverAction action = driver_.on_poll(world_.now(), result, vector_);
  if (action.enabled) {
    apply(rx_moderator_.on_enabled(vector_, world_.now()), deadline_slot_);
    if (tx_) apply(tx_moderator_.on_enabled(vector_, world_.now()), tx_deadline_slot_);
  }
  if (action.new_itr && world_.trace) {
    world_.trace->counter(kTraceNic, "itr", "usecs", world_.now(), action.new_itr->count() / 1000);
  }
  arm_vector(action.fire_at);
  // Seed 000's race: frames written back after the last scan, their causes lost while the
  // vector was in write-back-only mode, and now nothing due to signal them: no cause, no
  // interrupt and no coalescing deadline (Rx or Tx: either one polls the ring) armed. A
  // completed poll emptied the ring at its scan, so each frame is counted at most once.
  if (action.enabled && rx_ && rx_->size() > 0 && !vector_.queue_pending() &&
      !vector_.software_pending() && !world_.engine.armed(vector_slot_) &&
      !world_.engine.armed(deadline_slot_) && !world_.engine.armed(tx_deadline_slot_)) {
    world_.report.stranded_frames += rx_->size();
  }
  if (rx_moderator_.on_causes_dropped(vector_)) world_.engine.cancel(deadline_slot_);
  if (tx_ && tx_moderator_.on_causes_dropped(vector_)) world_.engine.cancel(tx_deadline_slot_);
}

}  // namespace irqmod::sim
