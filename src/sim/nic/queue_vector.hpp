// A queue vector (i40e's q_vector, ixgbe's, enetc's int_vector): one MSI-X vector, its NAPI
// context and the queues it serves: an Rx queue, a Tx queue, or both (nic.vectors = "pair", the
// Intel and enetc layout where the Rx and Tx causes of a queue pair raise one vector). It holds
// the library's napi::Vector (masking, throttle, the software trigger), napi::Context
// (NAPI_STATE_*), napi::Driver (the tail of i40e_napi_poll) and a moderator per direction in front
// of the vector; it owns their events (the vector's interrupt, the coalescing deadlines, the NAPI
// watchdog, adaptive-rx's sample timer).
//
// Its poll (i40e_napi_poll's shape) cleans Tx completions first, up to their own work limit and
// not counted against the budget, then Rx frames up to the budget; with Tx completions left over
// it reports the whole budget, so NAPI polls it again. When the poll sees its Rx frames is
// nic.rx-clean: all at its start, or (per-descriptor) in a loop after its fixed part and its Tx
// cleaning, round after round, each round taking the frames written back while the one before
// was worked on, until a round finds none; the stack's work on the frames follows. With
// nic.clean-clears-cause the clean withdraws the causes of what it cleaned (enetc's per-frame
// IDR write), so a frame cleaned by a poll does not interrupt again at re-enable. It is polled
// two ways: by NET_RX on the
// core whose poll list holds it (NapiOps), and by a thread that busy-polls it
// (host/busy_poll.hpp), through the same scan / complete steps. With napi.poll-in-irq the
// interrupt handler runs the poll itself, at hardirq level, and the vector is re-enabled at its
// end (OpenBSD's ixgbe_intr: rxeof, txeof, rxfill, enable; pre-NAPI Linux drivers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/driver.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/series.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/nic/mclgeti.hpp"
#include "sim/host/stack.hpp"
#include "sim/irq/msix.hpp"
#include "sim/nic/moderator.hpp"
#include "sim/nic/rx_queue.hpp"
#include "sim/nic/tx_queue.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// The frames that reached the NIC but are not landed yet are landed by whoever reads a ring:
// this brings every ring up to `now` (the port's land) and says when the next frame is written
// back. It is the one call from a queue back to the port, and it only catches up on the past.
struct LazyArrivals {
  void (*land)(void* self, Instant now) = nullptr;
  Instant (*next_writeback)(const void* self) = nullptr;
  void* self = nullptr;
};

// CPU costs a queue vector's work is charged (cpu.*).
struct PollCosts {
  Distribution napi_poll{};  // fixed cost of one poll call
  Distribution rx_packet{};  // per frame cleaned
  Distribution tx_clean{};   // per Tx completion cleaned
  Distribution rx_refill{};  // per Rx buffer allocated and posted
  Distribution irq_entry{};  // a timer interrupt's entry and exit (the NAPI watchdog)
  Distribution forward{};    // per frame routed out of the egress port (nic.ports = 2)
  Distribution tcp_skb{};    // per GRO skb handed to TCP
  Distribution tx_packet{};  // per frame the stack sends itself (a TCP ACK)
  // Threaded NAPI (napi.threaded): the NAPI thread's wake-up and the switch to it, in place of
  // the softirq's entry (which the model does not charge).
  Distribution wakeup{};          // cpu.wakeup
  Distribution context_switch{};  // cpu.context-switch
};

// Threaded NAPI: how to place the context's kernel thread ("napi/<dev>-<id>").
struct NapiThreadSettings {
  bool enabled = false;               // napi.threaded
  std::optional<std::uint32_t> core;  // napi.thread-core; none = the vector's core
};

// What a NAPI thread did (napi.threaded), for the report.
struct NapiThreadStats {
  std::uint64_t wakeups = 0;  // wake_up_process calls that woke it from sleep
  std::uint64_t polls = 0;    // polls it ran (__napi_poll in napi_threaded_poll_loop)
  std::uint64_t yields = 0;   // cond_resched calls that gave the core to another thread
};

// What one poll took: Rx frames (delivered when it completes) and Tx completions (cleaned), and
// with refill by the CPU the buffers it posts.
struct Scan {
  int rx = 0;
  int tx = 0;
  bool tx_finished = true;     // no Tx completion left behind by the work limit
  int forwarded = 0;           // of the Rx frames, those routed out of the egress port
  int tcp_skbs = 0;            // GRO skbs of TCP connections
  int acks = 0;                // TCP ACKs they make
  int refilled = 0;            // Rx buffers allocated and posted (nic.refill = "cpu")
  bool refill_failed = false;  // an allocation failed: i40e reports the whole budget
};

// Refill by the CPU (nic.refill = "cpu" or "mclgeti").
struct RefillSettings {
  bool by_cpu = false;
  std::uint32_t batch = 32;    // nic.refill-batch: cleaned descriptors per refill
  std::uint32_t fail_ppm = 0;  // nic.alloc-fail-ppm
  Mclgeti* mclgeti = nullptr;  // nic.refill = "mclgeti": every poll, as far as the watermark allows
};

class QueueVector {
 public:
  // Vector `index` (its NAPI id is index + 1) serving `rx` and/or `tx` (at least one); its
  // messages go to `irq_core`; `net_rx` are the cores' NET_RX objects by core index. Its NAPI
  // context has `napi` (the per-NAPI settings of its queue); with `thread.enabled` a kernel
  // thread polls it instead of NET_RX.
  QueueVector(World& world, const Scenario& scenario, std::uint32_t index, RxQueue* rx, TxQueue* tx,
              MsixTable& msix, Core& irq_core, std::vector<NetRx*> net_rx, Stack& stack,
              const Peers& peers, LazyArrivals arrivals, PollCosts costs, RefillSettings refill,
              Rng refill_rng, const napi::Config& napi, NapiThreadSettings thread);
  QueueVector(const QueueVector&) = delete;
  QueueVector& operator=(const QueueVector&) = delete;

  std::uint32_t index() const { return index_; }
  // The context's NAPI id: the vector's number + 1 (0 means "none", as below MIN_NAPI_ID).
  std::uint32_t napi_id() const { return index_ + 1; }
  RxQueue* rx() { return rx_; }
  TxQueue* tx() { return tx_; }
  // Another Tx queue whose completions this vector handles (nic.tx-queues beyond the pairs: enetc
  // serves Tx rings i, i + 2, i + 4, i + 6 from vector i of two).
  void add_tx(TxQueue& queue) { more_tx_.push_back(&queue); }
  const RxQueue* rx() const { return rx_; }
  const TxQueue* tx() const { return tx_; }
  napi::Context& napi() { return napi_; }
  const napi::Counters& napi_counters() const { return napi_.counters(); }
  const napi::Vector& vector() const { return vector_; }
  std::uint32_t msix_vector() const { return msix_vector_; }
  std::uint32_t irq_core() const { return irq_core_; }

  // ---- the device side ----
  // A frame reaches the Rx ring at `writeback` (landing, from the port): a descriptor or a
  // drop, then Rx moderation.
  void land(const Packet& packet, Instant writeback);
  // A Tx descriptor was written back at `writeback`: a Tx cause under Tx moderation.
  void land_tx_completion(Instant writeback);
  // Raise coalescing deadlines that passed before `t` (the port lands write-backs late). Inline:
  // the port asks before every frame it lands, and almost always there is nothing to do.
  void catch_up(Instant t) {
    if (rx_ && rx_moderator_.may_catch_up(t)) catch_up_rx(t);
    if (tx_ && tx_moderator_.may_catch_up(t)) catch_up_tx(t);
  }
  // The device must react to this vector's next Rx / Tx write-back.
  bool wants_next_frame() const { return rx_ && rx_moderator_.wants_next_frame(vector_); }
  bool wants_next_tx() const { return tx_ && tx_moderator_.wants_next_frame(vector_); }
  // Trace: the moderation setting at the start.
  void trace_start();
  // The Rx ring and the Rx moderation setting now: what the trace's counters and the run's time
  // series (sampler.hpp) both read. Needs an Rx queue.
  QueueSample rx_sample() const;

  // ---- polling (NET_RX and busy poll) ----
  // Cleans Tx completions, then takes up to `budget` Rx frames (landing what arrived first).
  // The Rx frames are delivered when the poll completes.
  Scan scan(int budget, Core& core);
  // The CPU time of a poll that took `scan` (the poll call's fixed part with `fixed`).
  Duration poll_cost(const Scan& scan, Core& core, bool fixed);
  // The CPU time of a poll's part after its clean loop (refill, forwarding, TCP, ACKs); the
  // refilled buffers are usable once `before` and the refill's own time have passed.
  Duration stack_cost(const Scan& scan, Core& core, Duration before);
  int polled() const { return static_cast<int>(polled_.size()); }
  // The work a poll reports to NAPI: its Rx frames, or the whole budget when Tx work is left.
  int work(const Scan& scan, int budget) const {
    return scan.tx_finished && !scan.refill_failed ? scan.rx : budget;
  }
  // What the driver returns to NAPI for that poll on `core`: i40e's off-affinity branch turns a
  // full budget on a core other than the vector's into budget - 1 (napi::Driver::poll_return).
  int poll_return(const Scan& scan, int budget, const Core& core) {
    return driver_.poll_return(work(scan, budget), budget, core.index() == irq_core_);
  }
  // After any poll of `core`: the driver's completion, the NAPI timer, net_dim's samples, the
  // interrupt re-enabled or not, delivery to the sockets.
  void complete(const napi::PollResult& result, Core& core);
  // hrtimer_start(..., HRTIMER_MODE_REL_PINNED): the watchdog runs on the core that armed it.
  void arm_napi_timer(Instant at, Core& core);
  // The context is scheduled (interrupt, watchdog, resume_irqs, repoll) on `core`'s list; with
  // threaded NAPI its thread is woken instead (____napi_schedule's NAPI_STATE_THREADED branch).
  void schedule_on(Core& core);
  // Threaded NAPI: whether the context has a thread, the core it runs on, what it did.
  bool threaded() const { return thread_core_ != nullptr; }
  std::uint32_t thread_core() const { return thread_core_ ? thread_core_->index() : 0; }
  const NapiThreadStats& thread_stats() const { return thread_stats_; }
  Instant next_writeback() const { return arrivals_.next_writeback(arrivals_.self); }
  // Lands what arrived up to now (a busy loop does before each iteration).
  void catch_up_arrivals() { arrivals_.land(arrivals_.self, world_.now()); }
  const PollCosts& costs() const { return costs_; }
  std::uint64_t rx_dropped() const { return rx_dropped_; }
  std::uint64_t rx_cleaned() const { return rx_cleaned_; }
  std::uint64_t alloc_failures() const { return alloc_failures_; }

  // ---- NAPI as net_rx_action sees it (NapiOps) ----
  bool take(const Core& core);
  Duration poll_begin(Core& core);
  // nic.rx-clean = "per-descriptor": the next part of the running poll (the clean loop's next
  // round, then the stack's work), or none when the poll is done.
  std::optional<Duration> poll_more(Core& core);
  int poll_end(Core& core);
  NapiRef napi_ref() { return NapiRef{&kNapiOps, this}; }

 private:
  static const NapiOps kNapiOps;

  // The poll run by the interrupt handler (napi.poll-in-irq).
  struct IrqPoll {
    QueueVector* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
  };

  // The NAPI thread (napi_threaded_poll): woken by a schedule, it polls while the context is
  // its own (SCHED_THREADED), giving the core away between full-budget polls when the scheduler
  // wants it (cond_resched), and sleeps once a poll completed and nothing scheduled it again.
  struct NapiThread {
    QueueVector* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
    bool yields() const { return owner->thread_yielded_; }
  };

  // The NAPI watchdog's timer interrupt on the core that armed it.
  struct TimerIrq {
    QueueVector* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
  };

  void on_event(const Event& event);
  void wake_thread();
  // SCHED_THREADED: the context is the thread's to poll (scheduled, no poll running).
  bool thread_owns() const {
    return napi_.owner() == napi::Owner::softirq && napi_.polling() == napi::Poller::none;
  }
  void on_vector_due();
  void on_napi_timer();
  void on_hardirq(Core& core);
  void apply(const Arm& arm, SlotId deadline);
  void catch_up_rx(Instant t);
  void catch_up_tx(Instant t);
  void arm_vector(std::optional<Instant> due);
  void arm_at(SlotId slot, Instant at, std::uint16_t kind);
  void deliver_polled(Core& core);
  bool allocation_fails();
  void clean_tx(TxQueue& queue, Scan& scan);
  void clean_tx_rings(Scan& scan);
  // After the Rx frames were taken: TCP's plan, forwarding, refill, the ring's trace.
  void finish_rx(Scan& scan, std::size_t first, const Core& core);
  // nic.clean-clears-cause: the moderators' and the vector's causes of what was cleaned. With
  // `rx_done` false only the Tx side (its rings were just cleaned, the Rx loop is to come).
  void withdraw_cleaned_causes(bool rx_done);
  Duration begin_loop(int budget, Core& core);
  std::uint32_t refill_by_mclgeti();
  void retry_refill();
  void trace_ring();

  World& world_;
  std::uint32_t index_;
  RxQueue* rx_;
  TxQueue* tx_;
  std::vector<TxQueue*> more_tx_;
  MsixTable& msix_;
  std::vector<NetRx*> net_rx_;  // by core index
  Stack& stack_;
  const Peers& peers_;
  LazyArrivals arrivals_;
  PollCosts costs_;
  RefillSettings refill_;
  Rng refill_rng_;  // allocation failures
  std::uint64_t alloc_failures_ = 0;

  napi::Context napi_;
  napi::Vector vector_;
  napi::Driver driver_;
  Moderator rx_moderator_;
  Moderator tx_moderator_;
  DimFeed dim_feed_;  // which completed polls feed net_dim (nic.dim-driver)
  std::uint32_t msix_vector_ = 0;
  std::uint32_t irq_core_ = 0;              // the core its MSI-X message goes to
  Ring<Packet> polled_;                     // taken by the running poll, delivered at its end
  std::vector<std::uint32_t> tcp_planned_;  // TCP connections with ACKs due at the poll's end
  Scan last_scan_{};                        // what the running softirq poll took
  std::uint32_t napi_core_ = 0;             // the core whose poll list holds the context
  Core* timer_core_ = nullptr;              // the core that armed napi->timer last
  std::uint64_t polled_packets_ = 0;
  std::uint64_t polled_bytes_ = 0;
  std::uint64_t tx_cleaned_packets_ = 0;
  std::uint64_t tx_cleaned_bytes_ = 0;
  std::uint32_t tx_bytes_unreported_ = 0;  // Tx cleaned since the driver last heard
  std::uint32_t tx_frames_unreported_ = 0;
  std::uint64_t interrupts_ = 0;
  std::uint64_t rx_dropped_ = 0;       // frames dropped at this vector's Rx ring
  std::uint64_t rx_cleaned_ = 0;       // frames its polls took from the ring
  std::uint64_t rx_written_back_ = 0;  // frames landed in the ring
  TimerIrq timer_irq_{};
  IrqPoll irq_poll_{};
  NapiThread thread_job_{};
  Core* thread_core_ = nullptr;  // threaded NAPI: the core its thread runs on
  std::uint32_t thread_id_ = 0;  // ... and its number among that core's threads
  bool thread_polling_ = false;  // its poll is running (between poll_begin and poll_end)
  bool thread_yielded_ = false;  // it gave the core away at cond_resched, still runnable
  bool last_repoll_ = false;     // the last softirq-style poll used its whole weight
  NapiThreadStats thread_stats_{};
  bool poll_in_irq_ = false;
  bool per_descriptor_ = false;  // nic.rx-clean = "per-descriptor"
  bool clears_cause_ = false;    // nic.clean-clears-cause
  // The per-descriptor poll's progress: its Rx rounds, then the stack's part.
  enum class LoopPhase : std::uint8_t { none, rx, stack };
  LoopPhase phase_ = LoopPhase::none;
  int loop_budget_ = 0;
  std::size_t loop_first_ = 0;  // polled_'s first frame of this poll

  EndpointId endpoint_{};
  SlotId vector_slot_{}, deadline_slot_{}, tx_deadline_slot_{}, timer_slot_{}, refill_slot_{};
  std::string ring_counter_;  // trace counter names
  std::string free_counter_;
  std::string written_back_counter_;
  std::string dropped_counter_;
};

}  // namespace irqmod::sim
