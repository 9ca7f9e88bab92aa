// The zero-copy queue and its driver. See zc_queue.hpp.
#include "sim/xdp/zc_queue.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace irqmod::sim {
namespace {

constexpr std::string_view kIrqLabel = "hardirq";
constexpr std::int64_t kPsPerNs = 1000;

// i40e_napi_poll's end as the 2019 driver had it: no adaptive ITR here (the queue's interrupt has
// fixed throttles) and no seed 000 fix (6.9), only the off-affinity branch, when the scenario
// keeps it.
napi::DriverConfig driver_config(const ZcQueue::Settings& settings) {
  napi::DriverConfig config;
  config.busy_poll_exit_swint = false;
  config.off_affinity_force_wb = settings.off_affinity_force_wb;
  return config;
}

}  // namespace

const NapiOps ZcQueue::kOps{&ZcQueue::take_thunk, &ZcQueue::poll_begin_thunk,
                            &ZcQueue::poll_more_thunk, &ZcQueue::poll_end_thunk};

ZcQueue::ZcQueue(World& world, Core& irq_core, std::vector<NetRx*> net_rx, Xsk& xsk,
                 const napi::Config& napi, const Settings& settings, const Costs& costs)
    : world_(world),
      irq_core_(irq_core),
      net_rx_(std::move(net_rx)),
      xsk_(xsk),
      napi_(napi),
      driver_(driver_config(settings), world.now()),
      settings_(settings),
      costs_(costs) {
  irq_job_.owner = this;
  if (settings_.tx_irq) rs_ps_.assign(settings_.tx_descriptors, 0);
  endpoint_ = world_.engine.bind<&ZcQueue::on_event>(*this);
  irq_slot_ = world_.engine.make_slot();
  timer_slot_ = world_.engine.make_slot();
}

void ZcQueue::start() {
  // i40e_xsk_pool_enable -> i40e_alloc_rx_buffers_zc: the ring (one descriptor kept empty) from
  // the fill ring.
  posted_ = xsk_.fill.consume(settings_.rx_descriptors - 1);
  if (settings_.irqs) enable_irq();
}

std::uint64_t ZcQueue::arrivals_by(Instant t) const {
  if (settings_.arrival_gap_ps == 0) return 0;
  const std::int64_t ps = ns_since_epoch(t) * kPsPerNs;
  if (ps < settings_.first_arrival_ps) return 0;
  return static_cast<std::uint64_t>((ps - settings_.first_arrival_ps) / settings_.arrival_gap_ps) +
         1;
}

void ZcQueue::land() {
  const std::uint64_t arrived = arrivals_by(world_.now());
  const std::uint64_t n = arrived - landed_;
  landed_ = arrived;
  const std::uint64_t written = std::min(n, posted_);
  posted_ -= written;
  written_ += written;
  counters_.arrived += n;
  counters_.no_buffer += n - written;
}

std::uint64_t ZcQueue::sent_by(Instant t) const {
  const std::int64_t ps = ns_since_epoch(t) * kPsPerNs;
  if (wire_free_ps_ <= ps || settings_.tx_gap_ps == 0) return hw_tx_posted_;
  const auto unsent = static_cast<std::uint64_t>((wire_free_ps_ - ps + settings_.tx_gap_ps - 1) /
                                                 settings_.tx_gap_ps);
  return hw_tx_posted_ - std::min(unsent, hw_tx_posted_);
}

Duration ZcQueue::scan(int budget, Core& core, bool fixed) {
  budget_ = budget;
  ++world_.report.cores[core.index()].polls;
  land();
  taken_rx_ = std::min<std::uint64_t>(written_, static_cast<std::uint64_t>(budget));
  written_ -= taken_rx_;
  // i40e_clean_xdp_tx_irq: the completions written back (the head write-back), at most its
  // budget (vsi->work_limit, nic.xdp-tx-clean-budget), more being "not done"; then
  // i40e_xmit_zc: up to the Tx budget, as the Tx ring and the completion ring have room for (a
  // completion is reserved per descriptor, xskq_prod_reserve).
  const std::uint64_t ready = sent_by(core.now()) - hw_tx_cleaned_;
  taken_clean_ = settings_.tx_clean_budget > 0
                     ? std::min<std::uint64_t>(ready, settings_.tx_clean_budget)
                     : ready;
  tx_unfinished_ = taken_clean_ < ready;
  const std::uint64_t outstanding = hw_tx_outstanding() - taken_clean_;
  const std::uint64_t ring_room = settings_.tx_descriptors - 1 - outstanding;
  const std::uint64_t completion_room =
      xsk_.completion.room() - std::min(xsk_.completion.room(), outstanding + taken_clean_);
  const std::uint64_t xmit =
      std::min<std::uint64_t>({settings_.tx_budget, ring_room, completion_room});
  // The lines the application's core wrote: the Tx descriptors read now, and the fill ring's
  // that the previous poll's refill read (charged here: a poll's time is set when it starts).
  const std::uint64_t lines = xsk_.tx.remote_lines(xmit, core.index()) + fill_lines_;
  fill_lines_ = 0;
  taken_xmit_ = xsk_.tx.consume(xmit);
  // i40e_xmit_zc, `while (budget-- > 0)` on an unsigned budget, then `return !!budget &&
  // work_done`: it looks for a free descriptor before it takes a frame, so a ring filled with
  // budget left is "not done"; a budget used up reports done (the count wraps past 0); a loop
  // that ran out of frames (or of completion room) after budget - 1 of them left the count at 0:
  // "not done" too.
  if (taken_xmit_ < settings_.tx_budget) {
    if (taken_xmit_ == ring_room || taken_xmit_ + 1 == settings_.tx_budget) tx_unfinished_ = true;
  }
  hw_tx_cleaned_ += taken_clean_;
  woke_ = false;
  const Duration call = fixed ? core.cost(costs_.napi_poll) : Duration::zero();
  return call + core.cost(costs_.rx, static_cast<std::int64_t>(taken_rx_)) +
         core.cost(costs_.tx_clean, static_cast<std::int64_t>(taken_clean_)) +
         core.cost(costs_.tx, static_cast<std::int64_t>(taken_xmit_)) +
         core.cost(costs_.cache_line, static_cast<std::int64_t>(lines));
}

int ZcQueue::finish(const Core& core) {
  const int budget = budget_;
  // XDP_REDIRECT into the socket; a full Rx ring drops the frame and its buffer is reused.
  const std::uint64_t redirected = xsk_.rx.produce(taken_rx_, core.index());
  counters_.redirected += redirected;
  counters_.rx_ring_full += taken_rx_ - redirected;
  posted_ += taken_rx_ - redirected;
  // The refill: one try at the fill ring for every empty descriptor.
  land();
  const std::uint64_t empty = settings_.rx_descriptors - 1 - posted_ - written_;
  fill_lines_ += xsk_.fill.remote_lines(empty, core.index());
  const std::uint64_t refilled = xsk_.fill.consume(empty);
  posted_ += refilled;
  xsk_.fill_needs_wakeup = refilled < empty;
  if (refilled < empty) ++counters_.refill_misses;
  // Completions to the completion ring, descriptors onto the wire.
  xsk_.completion.produce(taken_clean_, core.index());
  const std::int64_t now_ps = ns_since_epoch(world_.now()) * kPsPerNs;
  wire_free_ps_ = std::max(wire_free_ps_, now_ps) +
                  static_cast<std::int64_t>(taken_xmit_) * settings_.tx_gap_ps;
  hw_tx_posted_ += taken_xmit_;
  counters_.sent += taken_xmit_;
  // The RS bit on the call's last descriptor ("Request an interrupt for the last frame"): its
  // completion sets the Tx cause.
  const bool rs = settings_.tx_irq && taken_xmit_ > 0;
  if (rs) {
    settle_rs(now_ps);
    assert(rs_count_ < rs_ps_.size());  // one per descriptor still on the wire, at most
    rs_ps_[(rs_head_ + rs_count_) % rs_ps_.size()] = wire_free_ps_;
    ++rs_count_;
  }
  const bool produced = redirected > 0 || taken_clean_ > 0;
  int work = static_cast<int>(taken_rx_);
  // i40e (later kernels) returns the whole budget when its Tx work was not done; the seed's
  // did not report Tx at all.
  if (settings_.report_tx_work && taken_xmit_ == settings_.tx_budget) work = budget;
  // i40e_napi_poll (5.2): a Tx ring not done clears clean_complete, whatever Rx did.
  if (tx_unfinished_) ++counters_.tx_unfinished;
  if (settings_.tx_unfinished && tx_unfinished_) work = budget;
  taken_rx_ = taken_clean_ = taken_xmit_ = 0;
  tx_unfinished_ = false;
  if (rs && irq_enabled_) arm_irq();
  if (produced && waiter_.notify) waiter_.notify(waiter_.self);
  work = std::min(work, budget);
  // A poll that did not finish on a core other than the interrupt's: the off-affinity branch.
  const int returned = driver_.poll_return(work, budget, core.index() == irq_core_.index());
  forced_wb_ = returned != work;
  return returned;
}

void ZcQueue::handle(const napi::PollResult& result, const Core& core) {
  if (result.repoll) net_rx_[core.index()]->schedule(ref());
  if (forced_wb_) {
    // i40e_force_wb in place of i40e_update_enable_itr (napi_complete_done's answer ignored):
    // INTENA with a software trigger through ITR index 0, so the interrupt fires on the vector's
    // core once the Rx throttle allows; a busy poller still holding the context sees it as
    // MISSED, as any interrupt.
    forced_wb_ = false;
    enable_irq();
    if (settings_.irqs) {
      Instant at = world_.now();
      if (last_irq_) at = std::max(at, *last_irq_ + settings_.itr);
      world_.engine.schedule(at, endpoint_, kForcedWriteback);
    }
  } else if (result.completion == napi::Completion::rearm) {
    enable_irq();
  }
  if (result.arm_timer) world_.engine.arm(timer_slot_, *result.arm_timer, endpoint_, kNapiTimer);
}

// ---- interrupts ---------------------------------------------------------------------------------

void ZcQueue::enable_irq() {
  if (!settings_.irqs) return;
  irq_enabled_ = true;
  arm_irq();
}

// The enabled vector's next interrupt: the Rx cause at the next write-back (now if one waits)
// through ITR index 0, the Tx cause at the next RS completion (now if one is latched) through
// ITR index 1, each no sooner than its interval after the last interrupt; the earlier of the two.
void ZcQueue::arm_irq() {
  land();
  std::optional<Instant> at;
  if (written_ > 0) {
    at = world_.now();
  } else if (posted_ > 0 && settings_.arrival_gap_ps != 0) {
    const std::int64_t next_ps =
        settings_.first_arrival_ps + static_cast<std::int64_t>(landed_) * settings_.arrival_gap_ps;
    at = std::max(world_.now(), at_ns((next_ps + kPsPerNs - 1) / kPsPerNs));
  }
  if (at && last_irq_) at = std::max(*at, *last_irq_ + settings_.itr);
  if (const auto tx = tx_cause_at()) {
    const Instant tx_at = last_irq_ ? std::max(*tx, *last_irq_ + settings_.tx_itr) : *tx;
    tx_first_ = !at || tx_at < *at;
    if (tx_first_) at = tx_at;
  } else {
    tx_first_ = false;
  }
  if (!at) {
    world_.engine.cancel(irq_slot_);
    return;
  }
  world_.engine.arm(irq_slot_, *at, endpoint_, kInterrupt);
}

// RS completions up to `now_ps` leave the wire's list; each latches the Tx cause.
void ZcQueue::settle_rs(std::int64_t now_ps) {
  while (rs_count_ > 0 && rs_ps_[rs_head_] <= now_ps) {
    tx_cause_ = true;
    rs_head_ = (rs_head_ + 1) % rs_ps_.size();
    --rs_count_;
  }
}

std::optional<Instant> ZcQueue::tx_cause_at() {
  if (!settings_.tx_irq) return std::nullopt;
  settle_rs(ns_since_epoch(world_.now()) * kPsPerNs);
  if (tx_cause_) return world_.now();
  if (rs_count_ == 0) return std::nullopt;
  return at_ns((rs_ps_[rs_head_] + kPsPerNs - 1) / kPsPerNs);
}

bool ZcQueue::raise_irq() {
  irq_enabled_ = false;
  world_.engine.cancel(irq_slot_);
  if (irq_queued_) return false;
  irq_queued_ = true;
  last_irq_ = world_.now();
  // Raising the interrupt clears every latched cause (the PBA); later completions latch anew.
  if (settings_.tx_irq) {
    settle_rs(ns_since_epoch(world_.now()) * kPsPerNs);
    tx_cause_ = false;
  }
  ++counters_.interrupts;
  world_.report.interrupts.count(0);
  ++world_.report.cores[irq_core_.index()].device_irqs;
  irq_core_.push(job_of(irq_job_), Level::hardirq);
  return true;
}

void ZcQueue::kick() {
  ++counters_.kicks;
  if (napi_.owner() != napi::Owner::none) {
    napi_.schedule();  // napi_if_scheduled_mark_missed
    return;
  }
  // i40e_force_wb: a software interrupt, taken as an event (the caller is a running job's
  // step, which may not push a job above itself).
  if (settings_.irqs) world_.engine.schedule(world_.now(), endpoint_, kSoftInterrupt);
}

void ZcQueue::on_event(const Event& event) {
  if (event.kind() == kNapiTimer) {
    if (const auto s = napi_.on_timer(world_.now()); s && *s == napi::Schedule::raised) {
      timer_scheduled_ = true;
      net_rx_[irq_core_.index()]->schedule(ref());
    }
    return;
  }
  if (event.kind() == kSoftInterrupt) {
    if (napi_.owner() == napi::Owner::none) raise_irq();
    return;
  }
  if (event.kind() == kForcedWriteback) {
    if (irq_enabled_) raise_irq();
    return;
  }
  if (!irq_enabled_) return;
  const bool tx = tx_first_;
  if (raise_irq() && tx) ++counters_.tx_interrupts;
}

std::optional<Segment> ZcQueue::IrqJob::start(Core& core) {
  return Segment{core.cost(owner->costs_.irq_entry) + core.cost(owner->costs_.irq_handler),
                 ContextKind::hardirq, kIrqLabel};
}

std::optional<Segment> ZcQueue::IrqJob::next(Core&) {
  owner->irq_queued_ = false;
  if (owner->napi_.schedule() == napi::Schedule::raised)
    owner->net_rx_[owner->irq_core_.index()]->schedule(owner->ref());
  return std::nullopt;
}

// ---- the softirq's poll -----------------------------------------------------------------------

bool ZcQueue::take_thunk(void* self, const Core&) {
  const auto* q = static_cast<ZcQueue*>(self);
  return q->napi_.owner() == napi::Owner::softirq && q->napi_.polling() == napi::Poller::none;
}

Duration ZcQueue::poll_begin_thunk(void* self, Core& core) {
  auto* q = static_cast<ZcQueue*>(self);
  if (q->timer_scheduled_) ++q->world_.report.cores[core.index()].timer_polls;
  q->timer_scheduled_ = false;
  return q->scan(q->napi_.softirq_poll_begin(), core, true);
}

// The softirq poll's cleaning is done: the flush (xsk_flush -> sk_data_ready) wakes an
// application asleep in poll(), and the waker pays try_to_wake_up and its IPI on this core, as
// the storage completion path charges its "wake submitter". A busy-polling application is awake.
std::optional<Duration> ZcQueue::poll_more_thunk(void* self, Core& core) {
  auto* q = static_cast<ZcQueue*>(self);
  const bool produces = q->taken_rx_ > 0 || q->taken_clean_ > 0;
  if (q->woke_ || !produces || !q->waiter_.asleep || !q->waiter_.asleep(q->waiter_.self))
    return std::nullopt;
  q->woke_ = true;
  return core.cost(q->costs_.wakeup);
}

int ZcQueue::poll_end_thunk(void* self, Core& core) {
  auto* q = static_cast<ZcQueue*>(self);
  const int work = q->finish(core);
  q->handle(q->napi_.softirq_poll_end(core.now(), work), core);
  return work;
}

// ---- busy polling ---------------------------------------------------------------------------

// A turn of napi_busy_loop calls the driver's poll too, but its fixed part is in the turn's
// `cpu.busy-poll-iteration` (docs/calibration.md: the kernel's turn is estimated as an empty
// driver poll plus the loop's bookkeeping), and the loop has no net_rx_action around it.
Duration ZcQueue::busy_poll_begin(int budget, Core& core) {
  ++world_.report.cores[core.index()].busy_polls;
  timer_scheduled_ = false;
  return scan(napi_.busy_poll_begin(budget), core, false);
}

void ZcQueue::busy_poll_end(Core& core) {
  const int work = finish(core);
  handle(napi_.busy_poll_end(core.now(), work), core);
}

Duration ZcQueue::busy_poll_stop(bool prefer, int budget, Core& core) {
  if (const auto t = napi_.busy_poll_stop(core.now(), prefer))
    world_.engine.arm(timer_slot_, *t, endpoint_, kNapiTimer);
  napi_.final_poll_begin();
  ++world_.report.cores[core.index()].busy_polls;
  timer_scheduled_ = false;
  return scan(budget, core, true);
}

void ZcQueue::final_poll_end(Core& core) {
  const int work = finish(core);
  handle(napi_.final_poll_end(core.now(), work), core);
}

}  // namespace irqmod::sim
