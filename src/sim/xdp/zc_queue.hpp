// One NIC queue pair in AF_XDP zero-copy mode and its driver (i40e's i40e_xsk.c as seed 002 ran
// it, May 2019): the Rx descriptor ring fed from the fill ring, the XDP program redirecting every
// frame into the socket's Rx ring, the Tx ring fed from the socket's Tx ring, completions back to
// the completion ring, and the queue vector's NAPI context (napi::Context, the policy library's
// engine) polled by the NET_RX softirq (NetRx) or by a busy-polling thread.
//
// Time is counted, not stepped per frame: frames arrive at a constant rate (line rate or
// traffic.rate), so how many have arrived by a time is a division; they are landed when
// someone looks (a poll, an interrupt), which is exact because only a poll posts buffers. The
// Tx side is a FIFO wire at the link's rate: a frame's completion is known by arithmetic too.
//
// The seed's i40e quirks are settings: the Tx work per poll is xdp.tx-budget (256) whatever the
// NAPI budget, and is not reported to NAPI unless xdp.report-tx-work; the refill tries the fill
// ring once per poll and, finding too few buffers, sets the fill ring's need_wakeup flag and
// gives up until a system call schedules the context (the seed's fix: "we try once and call a
// function that sets a flag").
//
// The end of i40e_napi_poll is the library's napi::Driver::poll_return: a poll that did not
// finish (Rx at its budget, or Tx not done when reported) on a core outside the vector's
// affinity (here: any core but the interrupt's) takes i40e's off-affinity branch: the driver
// calls napi_complete_done itself, forces a write-back interrupt (i40e_force_wb: INTENA with
// SWINT_TRIG through ITR index 0) and returns budget - 1, so that NAPI stops polling there and
// the interrupt brings the context back to the vector's core. The 2019 driver had the branch:
// Björn Töpel's tree of that time (bjoto/linux 13461a1ac213, the i40e of ndo_xsk_async_xmit and
// i40e_clean_rx_irq_zc, before need_wakeup) has it in i40e_napi_poll. The queue keeps its own
// interrupt, so napi::Driver::on_poll's vector is not used: an Rx cause (a write-back, ITR index
// 0, nic.rx-usecs) and, with nic.xdp-tx-irq, a Tx cause (an RS-marked descriptor completed, ITR
// index 1, nic.tx-usecs), each a fixed throttle from the last interrupt. i40e 5.2's Tx side is
// in settings too: the completions a poll cleans (nic.xdp-tx-clean-budget, vsi->work_limit) and
// whether Tx not done keeps the poll unfinished (nic.xdp-tx-unfinished).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/driver.hpp"
#include "irqmod/sim/distribution.hpp"
#include "irqmod/time.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/xdp/xsk.hpp"

namespace irqmod::sim {

// The application thread's side: told when the driver produced on a ring it consumes, and asked
// whether it sleeps in poll() (then the driver's xsk_flush -> sk_data_ready wakes it, and the
// waker pays the wake-up: try_to_wake_up and its IPI, on the driver's core).
struct XskWaiter {
  void (*notify)(void* self) = nullptr;
  bool (*asleep)(const void* self) = nullptr;
  void* self = nullptr;
};

class ZcQueue {
 public:
  struct Settings {
    std::uint32_t rx_descriptors = 512;  // nic.rx-ring
    std::uint32_t tx_descriptors = 512;  // nic.tx-ring
    std::uint32_t tx_budget = 256;       // xdp.tx-budget
    bool report_tx_work = false;         // xdp.report-tx-work
    bool irqs = true;                    // xdp.irqs
    bool off_affinity_force_wb = true;   // nic.off-affinity-force-wb
    bool tx_irq = false;                 // nic.xdp-tx-irq: the Tx ring's completion cause
    std::uint32_t tx_clean_budget = 0;   // nic.xdp-tx-clean-budget (0: every completion)
    bool tx_unfinished = false;          // nic.xdp-tx-unfinished
    Duration itr{};                      // nic.rx-usecs: the least time between interrupts
    Duration tx_itr{};                   // nic.tx-usecs: ... for the Tx cause (ITR index 1)
    std::int64_t first_arrival_ps = 0;   // the first received frame's last bit
    std::int64_t arrival_gap_ps = 0;     // between received frames; 0: nothing is received
    std::int64_t tx_gap_ps = 0;          // one sent frame's time on the wire
  };
  struct Costs {
    Distribution irq_entry;    // cpu.irq-entry
    Distribution irq_handler;  // cpu.irq-handler
    Distribution napi_poll;    // cpu.napi-poll: the poll's fixed part
    Distribution rx;           // cpu.xdp-rx: per frame received and redirected
    Distribution tx;           // cpu.xdp-tx: per frame sent
    Distribution tx_clean;     // cpu.tx-clean: per Tx completion cleaned
    Distribution wakeup;       // cpu.wakeup: waking the application asleep in poll()
    Distribution cache_line;   // cpu.xsk-cache-line: a ring line the application's core wrote
  };
  struct Counters {
    std::uint64_t arrived = 0;        // frames that reached the port
    std::uint64_t no_buffer = 0;      // ... dropped: no Rx descriptor had a buffer
    std::uint64_t rx_ring_full = 0;   // ... dropped: the socket's Rx ring was full (recycled)
    std::uint64_t redirected = 0;     // ... put on the socket's Rx ring
    std::uint64_t sent = 0;           // frames posted on the Tx ring
    std::uint64_t refill_misses = 0;  // polls that found the fill ring short (flag set)
    std::uint64_t interrupts = 0;     // hardware and software interrupts taken
    std::uint64_t tx_interrupts = 0;  // ... of which raised by the Tx completion cause
    std::uint64_t tx_unfinished = 0;  // polls that left Tx not done (counted whatever the key)
    std::uint64_t kicks = 0;          // wake-ups from system calls (ndo_xsk_wakeup)
  };

  // `net_rx`: every core's NET_RX, by core: a context goes back on the list of the core that
  // polled it (__napi_schedule is CPU-local); interrupts are taken on `irq_core`.
  ZcQueue(World& world, Core& irq_core, std::vector<NetRx*> net_rx, Xsk& xsk,
          const napi::Config& napi, const Settings& settings, const Costs& costs);
  ZcQueue(const ZcQueue&) = delete;
  ZcQueue& operator=(const ZcQueue&) = delete;

  // The socket is bound: the driver takes its first buffers from the fill ring and, with an
  // interrupt, enables it.
  void start();
  void set_waiter(XskWaiter waiter) { waiter_ = waiter; }
  bool has_irq() const { return settings_.irqs; }

  // ndo_xsk_wakeup from a system call (sendto(), poll() finding the flag): i40e_xsk_wakeup marks
  // a scheduled context MISSED, else forces a software interrupt; without an interrupt, nothing.
  void kick();

  // ---- busy polling from a thread on `core` (napi_busy_loop) ---------------------------------
  bool busy_acquire(bool prefer) { return napi_.busy_poll_acquire(prefer); }
  Duration busy_poll_begin(int budget, Core& core);
  void busy_poll_end(Core& core);
  Duration busy_poll_stop(bool prefer, int budget, Core& core);
  void final_poll_end(Core& core);
  // busy_loop_end's view after a poll: nothing written back to clean; no room on the Tx ring.
  bool rx_empty() {
    land();
    return written_ == 0;
  }
  bool tx_full() const { return hw_tx_outstanding() + 1 >= settings_.tx_descriptors; }

  // ---- books ----------------------------------------------------------------------------------
  void land();  // frames arrived up to now
  const Counters& counters() const { return counters_; }
  // Frames the driver holds: buffers posted on the Rx ring, frames written back and not cleaned,
  // a running poll's, on the Tx ring or its wire, sent and not cleaned.
  std::uint64_t rx_posted() const { return posted_; }
  std::uint64_t rx_written() const { return written_; }
  std::uint64_t in_poll_rx() const { return taken_rx_; }
  std::uint64_t in_poll_tx() const { return taken_xmit_ + taken_clean_; }
  std::uint64_t hw_tx_outstanding() const { return hw_tx_posted_ - hw_tx_cleaned_; }
  const napi::Context& napi() const { return napi_; }

 private:
  enum Kind : std::uint16_t { kInterrupt, kSoftInterrupt, kForcedWriteback, kNapiTimer };

  // The hardirq job: entry and handler, then napi_schedule on the interrupt's core.
  struct IrqJob {
    ZcQueue* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
  };

  static bool take_thunk(void* self, const Core& core);
  static Duration poll_begin_thunk(void* self, Core& core);
  static std::optional<Duration> poll_more_thunk(void* self, Core& core);
  static int poll_end_thunk(void* self, Core& core);
  static const NapiOps kOps;
  NapiRef ref() { return NapiRef{&kOps, this}; }

  void on_event(const Event& event);
  std::uint64_t arrivals_by(Instant t) const;
  std::uint64_t sent_by(Instant t) const;
  // The poll's first half: what it takes (Rx frames, Tx completions, Tx descriptors) and the CPU
  // time that costs; `fixed` charges a poll call's fixed cost (`cpu.napi-poll`), which a turn of
  // the busy loop does not pay on top of its `cpu.busy-poll-iteration` (as BusyLoop's turns).
  // The second half: where they go; returns what i40e_napi_poll returns to NAPI on `core`
  // (napi::Driver::poll_return).
  Duration scan(int budget, Core& core, bool fixed);
  int finish(const Core& core);
  void handle(const napi::PollResult& result, const Core& core);
  void enable_irq();
  void arm_irq();
  void settle_rs(std::int64_t now_ps);
  std::optional<Instant> tx_cause_at();
  bool raise_irq();  // false: an interrupt is already queued

  World& world_;
  Core& irq_core_;
  std::vector<NetRx*> net_rx_;
  Xsk& xsk_;
  napi::Context napi_;
  napi::Driver driver_;
  Settings settings_;
  Costs costs_;
  Counters counters_{};
  XskWaiter waiter_{};
  IrqJob irq_job_{};
  EndpointId endpoint_{};
  SlotId irq_slot_{};
  SlotId timer_slot_{};
  bool irq_enabled_ = false;      // the vector may fire (interrupts re-enabled by the driver)
  bool irq_queued_ = false;       // a hardirq job is on the core, not yet run to napi_schedule
  bool timer_scheduled_ = false;  // until the next poll: the NAPI timer scheduled the context
  std::optional<Instant> last_irq_;
  std::uint64_t landed_ = 0;         // arrivals counted so far
  std::uint64_t posted_ = 0;         // Rx descriptors with a buffer, waiting for a frame
  std::uint64_t written_ = 0;        // Rx descriptors written back, not yet cleaned
  std::uint64_t hw_tx_posted_ = 0;   // frames ever posted on the Tx ring
  std::uint64_t hw_tx_cleaned_ = 0;  // ... whose completions were cleaned
  std::int64_t wire_free_ps_ = 0;    // when the Tx wire has sent everything posted
  std::uint64_t taken_rx_ = 0;       // the running poll's Rx frames
  std::uint64_t taken_clean_ = 0;    // ... its Tx completions
  std::uint64_t taken_xmit_ = 0;     // ... its Tx descriptors
  int budget_ = 0;                   // ... its budget
  bool forced_wb_ = false;           // the last poll took the off-affinity branch
  bool tx_unfinished_ = false;       // the running poll left Tx not done (i40e's "work_done")
  // The Tx cause (nic.xdp-tx-irq): the completion times of RS-marked descriptors still on the
  // wire (a FIFO, at most one per descriptor: entries not in the future are dropped before one
  // is added), and whether one completed since the last interrupt (the cause is latched until
  // the interrupt is raised, as the PBA holds it while the vector is masked).
  std::vector<std::int64_t> rs_ps_;  // RS completion times (ps), a ring of tx_descriptors entries
  std::size_t rs_head_ = 0;          // the oldest entry of rs_ps_
  std::size_t rs_count_ = 0;         // entries in rs_ps_
  bool tx_cause_ = false;            // an RS descriptor completed since the last interrupt
  bool tx_first_ = false;         // the armed interrupt is the Tx cause's (counters_.tx_interrupts)
  bool woke_ = false;             // the running poll charged waking the application
  std::uint64_t fill_lines_ = 0;  // fill-ring lines the last refill read from another core
};

}  // namespace irqmod::sim
