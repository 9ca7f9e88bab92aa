// A queue vector: NAPI context, MSI-X vector, driver and moderation. See queue_vector.hpp.
#include "sim/nic/queue_vector.hpp"

#include <algorithm>

#include "sim/policy_config.hpp"

namespace irqmod::sim {
namespace {

enum Kind : std::uint16_t {
  kVectorDue = 1,     // the vector's interrupt is due
  kCoalesceDeadline,  // the Rx coalescer's usecs timer
  kNapiTimer,         // napi->timer: deferral, prefer-busy-poll and IRQ-suspension watchdog
  kRateSample,        // coalesce adaptive-rx: the sample-interval timer
  kTxDeadline,        // the Tx coalescer's usecs timer
  kRefillRetry,       // MCLGETI refill: an empty ring tries again at the next tick
};

}  // namespace

const NapiOps QueueVector::kNapiOps{
    [](void* self, const Core& core) { return static_cast<QueueVector*>(self)->take(core); },
    [](void* self, Core& core) { return static_cast<QueueVector*>(self)->poll_begin(core); },
    [](void* self, Core& core) { return static_cast<QueueVector*>(self)->poll_more(core); },
    [](void* self, Core& core) { return static_cast<QueueVector*>(self)->poll_end(core); }};

QueueVector::QueueVector(World& world, const Scenario& scenario, std::uint32_t index, RxQueue* rx,
                         TxQueue* tx, MsixTable& msix, Core& irq_core, std::vector<NetRx*> net_rx,
                         Stack& stack, const Peers& peers, LazyArrivals arrivals, PollCosts costs,
                         RefillSettings refill, Rng refill_rng, const napi::Config& napi,
                         NapiThreadSettings thread)
    : world_(world),
      index_(index),
      rx_(rx),
      tx_(tx),
      msix_(msix),
      net_rx_(std::move(net_rx)),
      stack_(stack),
      peers_(peers),
      arrivals_(arrivals),
      costs_(costs),
      refill_(refill),
      refill_rng_(refill_rng),
      napi_(napi),
      vector_(vector_config(scenario)),
      driver_(driver_config(scenario), Instant{}),
      rx_moderator_(scenario, coalesce::Direction::rx),
      tx_moderator_(scenario, coalesce::Direction::tx),
      dim_feed_(scenario.nic.dim_driver),
      polled_(std::max<std::uint32_t>(scenario.nic.rx_ring, 1)),
      ring_counter_(index == 0 ? "rx ring" : "rx ring " + std::to_string(index)),
      free_counter_(index == 0 ? "rx free" : "rx free " + std::to_string(index)),
      written_back_counter_(index == 0 ? "rx written back"
                                       : "rx written back " + std::to_string(index)),
      dropped_counter_(index == 0 ? "rx dropped" : "rx dropped " + std::to_string(index)) {
  timer_irq_.owner = this;
  irq_poll_.owner = this;
  thread_job_.owner = this;
  poll_in_irq_ = scenario.napi.poll_in_irq;
  per_descriptor_ = scenario.nic.rx_clean == RxClean::per_descriptor;
  clears_cause_ = scenario.nic.clean_clears_cause;
  irq_core_ = irq_core.index();
  endpoint_ = world_.engine.bind<&QueueVector::on_event>(*this);
  vector_slot_ = world_.engine.make_slot();
  deadline_slot_ = world_.engine.make_slot();
  tx_deadline_slot_ = world_.engine.make_slot();
  timer_slot_ = world_.engine.make_slot();
  refill_slot_ = world_.engine.make_slot();
  msix_vector_ = msix_.add(irq_core, IrqHandler{[](void* self, Core& core) {
                                                  static_cast<QueueVector*>(self)->on_hardirq(core);
                                                },
                                                this});
  if (rx_ && rx_moderator_.sample_interval() > Duration::zero()) {
    world_.engine.schedule(at_ns(0), endpoint_, kRateSample);
  }
  if (thread.enabled) {
    // napi_kthread_create: kthread_run(napi_threaded_poll, ...), a SCHED_NORMAL kernel thread.
    thread_core_ = &net_rx_[thread.core.value_or(irq_core_)]->core();
    thread_id_ = thread_core_->add_thread(job_of(thread_job_), true);
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
  out.written_back = rx_written_back_;
  out.dropped = rx_dropped_;
  const auto usecs = rx_moderator_.coalescing_usecs();
  out.moderation_ns = usecs ? std::int64_t{*usecs} * 1000 : vector_.itr_interval().count();
  out.dim_profile = rx_moderator_.dim_profile();
  return out;
}

// ---- the device side -------------------------------------------------------------------------

void QueueVector::land(const Packet& packet, Instant writeback) {
  const RxQueue::Landing landing = rx_->land(packet, writeback);
  if (!landing.taken) {
    ++rx_dropped_;
    world_.report.drops.add(landing.reason);
    report_lost(peers_, packet.flow);
    return;
  }
  ++rx_written_back_;
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
    case kRefillRetry:
      retry_refill();
      break;
    case kNapiTimer:
      on_napi_timer();
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

// i40e_msix_clean_rings: napi_schedule_irqoff on the core that took the interrupt.
void QueueVector::on_hardirq(Core& core) {
  if (napi_.schedule() != napi::Schedule::raised) return;
  if (poll_in_irq_) {
    napi_core_ = core.index();
    core.push(job_of(irq_poll_), Level::hardirq);  // right after this handler's entry
    return;
  }
  schedule_on(core);
}

std::optional<Segment> QueueVector::IrqPoll::start(Core& core) {
  return Segment{owner->poll_begin(core), ContextKind::hardirq, "irq rx"};
}

std::optional<Segment> QueueVector::IrqPoll::next(Core& core) {
  if (const auto more = owner->poll_more(core)) {
    return Segment{*more, ContextKind::hardirq, "irq rx"};
  }
  owner->poll_end(core);  // a poll that used its weight is left to NET_RX (repoll)
  return std::nullopt;
}

void QueueVector::schedule_on(Core& core) {
  if (thread_core_) {
    wake_thread();
    return;
  }
  napi_core_ = core.index();
  net_rx_[core.index()]->schedule(napi_ref());
}

// ---- threaded NAPI ---------------------------------------------------------------------------

// ____napi_schedule with NAPI_STATE_THREADED: SCHED_THREADED is set and the thread woken; a
// thread that is running or runnable sees the bit when it next checks (napi_thread_wait, or
// the loop after its poll), so only a sleeping one needs the wake-up.
void QueueVector::wake_thread() {
  if (thread_core_->runnable(thread_id_)) return;
  ++thread_stats_.wakeups;
  thread_core_->wake(thread_id_);
}

namespace {
constexpr std::string_view kThreadLabel = "napi thread";
}  // namespace

// The thread runs: the switch to it, and after a sleep the wake-up (try_to_wake_up, charged here
// rather than to the waker); then napi_thread_wait's test, in next().
std::optional<Segment> QueueVector::NapiThread::start(Core& core) {
  QueueVector& q = *owner;
  Duration cost = core.cost(q.costs_.context_switch);
  if (!q.thread_yielded_) cost += core.cost(q.costs_.wakeup);
  q.thread_yielded_ = false;
  return Segment{cost, ContextKind::thread, kThreadLabel};
}

std::optional<Segment> QueueVector::NapiThread::next(Core& core) {
  QueueVector& q = *owner;
  if (q.thread_polling_) {
    if (const auto more = q.poll_more(core))
      return Segment{*more, ContextKind::thread, kThreadLabel};
    q.thread_polling_ = false;
    q.poll_end(core);
    // napi_threaded_poll_loop: after a full-budget poll, cond_resched(); after a completed one
    // napi_thread_wait finds SCHED_THREADED set again (a schedule meanwhile) and returns
    // without schedule().
    if (q.last_repoll_ && core.need_resched() && q.thread_owns()) {
      ++q.thread_stats_.yields;
      q.thread_yielded_ = true;
      return std::nullopt;
    }
  }
  if (!q.thread_owns()) return std::nullopt;  // napi_thread_wait: schedule() until woken
  q.thread_polling_ = true;
  ++q.thread_stats_.polls;
  return Segment{q.poll_begin(core), ContextKind::thread, kThreadLabel};
}

// ---- the NAPI watchdog -----------------------------------------------------------------------

void QueueVector::arm_napi_timer(Instant at, Core& core) {
  timer_core_ = &core;
  world_.engine.arm(timer_slot_, at, endpoint_, kNapiTimer);
}

void QueueVector::on_napi_timer() {
  if (auto s = napi_.on_timer(world_.now()); s && *s == napi::Schedule::raised) {
    napi_core_ = timer_core_->index();
    ++world_.report.cores[napi_core_].interrupts;
    timer_core_->push(job_of(timer_irq_), Level::hardirq);
  }
}

std::optional<Segment> QueueVector::TimerIrq::start(Core& core) {
  return Segment{core.cost(owner->costs_.irq_entry), ContextKind::hardirq, "timer irq"};
}

std::optional<Segment> QueueVector::TimerIrq::next(Core& core) {
  // napi_watchdog scheduled the context already; its softirq is raised on the way out (or, with
  // threaded NAPI, its thread woken).
  owner->schedule_on(core);
  return std::nullopt;
}

// ---- polling ---------------------------------------------------------------------------------

Scan QueueVector::scan(int budget, Core& core) {
  arrivals_.land(arrivals_.self, world_.now());
  Scan scan;
  clean_tx_rings(scan);
  ++world_.report.cores[core.index()].polls;
  if (rx_) {
    const std::size_t first = polled_.size();
    scan.rx = rx_->take(budget, world_.now(), polled_);
    rx_cleaned_ += static_cast<std::uint64_t>(scan.rx);
    finish_rx(scan, first, core);
  }
  withdraw_cleaned_causes(true);
  return scan;
}

void QueueVector::clean_tx_rings(Scan& scan) {
  if (!tx_) return;
  clean_tx(*tx_, scan);
  for (TxQueue* more : more_tx_)
    clean_tx(*more, scan);  // enetc_poll: every Tx ring of the vector, each with its limit
}

void QueueVector::finish_rx(Scan& scan, std::size_t first, const Core& core) {
  if (TcpHost* tcp = stack_.tcp(); tcp && scan.rx > 0) {
    const TcpHost::Work work = tcp->plan(polled_, first, world_.now(), core.index(), tcp_planned_);
    scan.tcp_skbs = work.skbs;
    scan.acks = work.acks;
  }
  if (stack_.forwarding() && !stack_.deferred()) {
    // polled_ holds this poll's frames only: the last poll's were delivered when it ended.
    for (std::size_t i = 0; i < polled_.size(); ++i)
      scan.forwarded += stack_.forwards(polled_[i].flow) ? 1 : 0;
  }
  if (scan.rx > 0) trace_ring();
  if (refill_.mclgeti) {
    refill_.mclgeti->release(static_cast<std::uint32_t>(scan.rx));  // rxeof's m_cluncount
    scan.refilled = static_cast<int>(refill_by_mclgeti());
  } else if (refill_.by_cpu && rx_->unrefilled() >= refill_.batch) {
    // i40e_alloc_rx_buffers for every cleaned descriptor (done here once per poll, not at the
    // top of each of its iterations); an allocation that fails ends it (alloc_page_failed).
    std::uint32_t allocated = rx_->unrefilled();
    for (std::uint32_t i = 0; refill_.fail_ppm > 0 && i < allocated; ++i) {
      if (allocation_fails()) {
        allocated = i;
        scan.refill_failed = true;
        break;
      }
    }
    scan.refilled = static_cast<int>(allocated);
  }
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
    for (const TxQueue* more : more_tx_)
      tx_clean = tx_clean && more->written_back() == 0;
    if (tx_clean && tx_moderator_.on_all_cleaned()) world_.engine.cancel(tx_deadline_slot_);
  }
  if (!rx_done) return;
  const bool rx_clean = !rx_ || rx_->size() == 0;
  if (rx_ && rx_clean && rx_moderator_.on_all_cleaned()) world_.engine.cancel(deadline_slot_);
  if (rx_clean && tx_clean) arm_vector(vector_.withdraw_queue_cause(world_.now()));
}

bool QueueVector::allocation_fails() {
  if (refill_.fail_ppm == 0 || refill_rng_.below(1'000'000) >= refill_.fail_ppm) return false;
  ++alloc_failures_;
  return true;
}

// ixgbe_rxfill (OpenBSD): a cluster for each descriptor without one while MCLGETI gives them;
// a failed allocation ends it. The next poll tries again; a ring left without any buffer gets no
// frame and so no poll, and tries again at the next tick (ixgbe_rxrefill's
// timeout_add(&rxr->rx_refill, 1)).
std::uint32_t QueueVector::refill_by_mclgeti() {
  std::uint32_t allocated = 0;
  while (allocated < rx_->unrefilled() && refill_.mclgeti->allocate()) {
    if (allocation_fails()) {
      refill_.mclgeti->release(1);
      break;
    }
    ++allocated;
  }
  if (allocated == 0 && rx_->bare()) {
    arm_at(refill_slot_, refill_.mclgeti->next_tick(), kRefillRetry);
  }
  return allocated;
}

// The refill timeout (softclock context; its few allocations are not charged).
void QueueVector::retry_refill() {
  const std::uint32_t allocated = refill_by_mclgeti();
  if (allocated > 0) rx_->refill(allocated, world_.now());
}

void QueueVector::clean_tx(TxQueue& queue, Scan& scan) {
  const TxQueue::Cleaned cleaned = queue.clean();
  scan.tx += static_cast<int>(cleaned.frames);
  scan.tx_finished = scan.tx_finished && cleaned.finished;
  tx_cleaned_packets_ += cleaned.frames;
  tx_cleaned_bytes_ += cleaned.bytes;
  tx_frames_unreported_ += cleaned.frames;
  tx_bytes_unreported_ += cleaned.bytes;
}

Duration QueueVector::poll_cost(const Scan& scan, Core& core, bool fixed) {
  Duration cost = fixed ? core.cost(costs_.napi_poll) : Duration::zero();
  cost += core.cost(costs_.rx_packet, scan.rx);
  if (scan.tx > 0) cost += core.cost(costs_.tx_clean, scan.tx);
  return cost + stack_cost(scan, core, cost);
}

Duration QueueVector::stack_cost(const Scan& scan, Core& core, Duration before) {
  Duration cost = Duration::zero();
  if (scan.refilled > 0) {
    cost += core.cost(costs_.rx_refill, scan.refilled);
    // The tail register is written when the driver's part of the poll is done: the buffers are
    // usable from then, while the stack still works on the frames (routing them, below). On
    // OpenBSD this is exact (ixgbe_rxfill ends the handler, ipintr runs after); i40e refills
    // inside its clean loop, earlier still.
    rx_->refill(static_cast<std::uint32_t>(scan.refilled), world_.now() + before + cost);
  }
  if (scan.forwarded > 0) cost += core.cost(costs_.forward, scan.forwarded);
  if (scan.tcp_skbs > 0) cost += core.cost(costs_.tcp_skb, scan.tcp_skbs);
  if (scan.acks > 0) cost += core.cost(costs_.tx_packet, scan.acks);
  return cost;
}

void QueueVector::trace_ring() {
  if (world_.trace) {
    const QueueSample ring = rx_sample();
    world_.trace->counter(kTraceNic, ring_counter_, "descriptors", world_.now(), ring.used);
    // What the ring-low LLI compares with its threshold (seed 004's feedback loop).
    world_.trace->counter(kTraceNic, free_counter_, "descriptors", world_.now(), ring.free);
    // Running totals (Perfetto draws their slope as the rate): the frames instead of an event
    // each, unless --trace-detail frames asked for those too.
    world_.trace->counter(kTraceNic, written_back_counter_, "frames", world_.now(),
                          static_cast<std::int64_t>(ring.written_back));
    world_.trace->counter(kTraceNic, dropped_counter_, "frames", world_.now(),
                          static_cast<std::int64_t>(ring.dropped));
  }
}

void QueueVector::deliver_polled(Core& core) {
  while (!polled_.empty()) {
    const Packet& p = polled_.front();
    polled_packets_ += 1;
    polled_bytes_ += p.frame_bytes;
    stack_.receive(p, napi_id(), core.index());
    polled_.pop();
  }
  if (!tcp_planned_.empty()) stack_.tcp()->send_planned(tcp_planned_);
  stack_.end_batch();
}

void QueueVector::complete(const napi::PollResult& result, Core& core) {
  std::uint32_t bytes = 0;
  for (std::size_t i = 0; i < polled_.size(); ++i)
    bytes += polled_[i].frame_bytes;
  driver_.on_rx_cleaned(bytes, static_cast<std::uint32_t>(polled_.size()));
  if (tx_frames_unreported_ > 0) {
    driver_.on_tx_cleaned(tx_bytes_unreported_, tx_frames_unreported_);
    tx_frames_unreported_ = 0;
    tx_bytes_unreported_ = 0;
  }
  deliver_polled(core);
  if (result.arm_timer) arm_napi_timer(*result.arm_timer, core);
  if (result.repoll) schedule_on(core);
  if (result.completion == napi::Completion::rearm) {
    // The driver's napi poll feeds net_dim after completing (mlx5e_handle_rx_dim, enetc_net_dim;
    // Tx: mlx5e_handle_tx_dim): DimFeed says with which events and for which directions.
    const DimFeed::Samples feed =
        dim_feed_.on_completed_poll(interrupts_, polled_packets_, tx_cleaned_packets_);
    std::optional<std::uint32_t> usecs;
    if (feed.rx) {
      apply(rx_moderator_.on_completed_poll(
                vector_, world_.now(), DimCounters{feed.events, polled_packets_, polled_bytes_},
                usecs),
            deadline_slot_);
    }
    if (usecs && world_.trace) {
      world_.trace->counter(kTraceNic, "rx-usecs", "usecs", world_.now(), *usecs);
    }
    if (tx_ && feed.tx) {
      std::optional<std::uint32_t> tx_usecs;
      apply(tx_moderator_.on_completed_poll(
                vector_, world_.now(),
                DimCounters{feed.events, tx_cleaned_packets_, tx_cleaned_bytes_}, tx_usecs),
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

bool QueueVector::take(const Core& core) {
  return napi_.owner() == napi::Owner::softirq && napi_core_ == core.index() &&
         napi_.polling() == napi::Poller::none;
}

Duration QueueVector::poll_begin(Core& core) {
  const int budget = napi_.softirq_poll_begin();
  if (per_descriptor_) return begin_loop(budget, core);
  last_scan_ = scan(budget, core);
  return poll_cost(last_scan_, core, true);
}

// The per-descriptor poll's first part: the poll call's fixed part and the Tx rings' cleaning
// (enetc_poll, i40e_napi_poll and ixgbe_poll clean Tx first).
Duration QueueVector::begin_loop(int budget, Core& core) {
  arrivals_.land(arrivals_.self, world_.now());
  last_scan_ = Scan{};
  clean_tx_rings(last_scan_);
  ++world_.report.cores[core.index()].polls;
  withdraw_cleaned_causes(false);
  loop_budget_ = budget;
  loop_first_ = polled_.size();
  phase_ = LoopPhase::rx;
  Duration cost = core.cost(costs_.napi_poll);
  if (last_scan_.tx > 0) cost += core.cost(costs_.tx_clean, last_scan_.tx);
  return cost;
}

std::optional<Duration> QueueVector::poll_more(Core& core) {
  switch (phase_) {
    case LoopPhase::none:
      return std::nullopt;
    case LoopPhase::rx: {
      // One round of the clean loop: the frames written back by now, each at rx-packet.
      const int room = loop_budget_ - last_scan_.rx;
      if (rx_ && room > 0) {
        arrivals_.land(arrivals_.self, world_.now());
        const int took = rx_->take(room, world_.now(), polled_);
        if (took > 0) {
          last_scan_.rx += took;
          rx_cleaned_ += static_cast<std::uint64_t>(took);
          return core.cost(costs_.rx_packet, took);
        }
      }
      // The loop met a descriptor not done (or the budget): the stack's part follows.
      if (rx_) finish_rx(last_scan_, loop_first_, core);
      withdraw_cleaned_causes(true);
      const Duration rest = stack_cost(last_scan_, core, Duration::zero());
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

int QueueVector::poll_end(Core& core) {
  const int work = poll_return(last_scan_, napi_.config().weight, core);
  const napi::PollResult result = napi_.softirq_poll_end(world_.now(), work);
  last_repoll_ = result.repoll;
  complete(result, core);
  return work;
}

}  // namespace irqmod::sim
