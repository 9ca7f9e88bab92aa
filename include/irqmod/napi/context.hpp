// The NAPI context of one queue: the kernel's napi_struct state machine, step by step.
//
// A rendering of net/core/dev.c (Linux 6.18): napi_schedule_prep / __napi_schedule, the
// __napi_poll part of net_rx_action, napi_complete_done, napi_watchdog, __napi_busy_loop,
// busy_poll_stop / __busy_poll_stop, and napi_suspend_irqs / napi_resume_irqs (6.13). Sources and
// excerpts are collected in docs/research/napi-busy-poll.md, section 1.
//
// Who may poll, for a newcomer
// ----------------------------
// The SCHED bit is a token: whoever sets it owns the context and is the only one allowed to call
// the driver's poll routine. The interrupt handler sets it (napi_schedule) and hands the context
// to the NET_RX softirq; a busy-polling thread sets it together with IN_BUSY_POLL and polls from
// process context. If SCHED is already held, a scheduling attempt sets MISSED instead, which
// obliges the owner to poll once more before it lets go. The driver lets go through
// napi_complete_done(); its answer says whether the driver may re-enable the device interrupt:
// false while a busy poller owns the context (it will poll again), while the interrupt deferral
// of napi_defer_hard_irqs + gro_flush_timeout is active (a timer will poll), or when MISSED
// forced a reschedule.
//
// How the host drives it
// ----------------------
// A poll is split in two so that anything may happen while the driver works: *_poll_begin()
// hands out the budget; the host cleans up to that many descriptors (the ring scan); *_poll_end()
// reports the work done and runs the driver's completion. A descriptor that lands between the
// two is the window of seed 000's race. Timers are not run here: a PollResult or a call returns
// "arm the timer at t" (the kernel's hrtimer_start, which replaces any earlier deadline), and the
// host calls on_timer(now) when t comes. Stale timer calls are ignored, so the host may cancel
// lazily. The object reads no clock, allocates nothing and never logs.
//
// Not modelled: NAPI_STATE_DISABLE / napi_disable, netpoll (NPSVC), threaded NAPI, GRO. GRO is
// taken to hold no packet at completion, so gro_flush_timeout acts only through the deferral
// (the kernel also arms it when GRO keeps packets back with napi_defer_hard_irqs at 0).
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::napi {

// ---- defaults and limits -------------------------------------------------------------------

// NAPI_POLL_WEIGHT (include/linux/netdevice.h): the softirq budget of one poll. "Device drivers
// are strongly advised to not use bigger value"; netif_napi_add_weight warns above it.
inline constexpr int kPollWeight = 64;
// BUSY_POLL_BUDGET (include/net/busy_poll.h): a busy poll's budget when the socket or epoll
// instance sets none (SO_BUSY_POLL_BUDGET / EPIOCSPARAMS budget 0).
inline constexpr int kBusyPollBudget = 8;
// The largest busy-poll budget: SO_BUSY_POLL_BUDGET is stored in a u16 (sk_busy_poll_budget),
// and sock.c refuses larger values. Above kPollWeight the kernel wants CAP_NET_ADMIN.
inline constexpr int kMaxBusyPollBudget = 65535;
// The largest weight this model accepts. The kernel only warns above 64; 65535 keeps budgets in
// one range.
inline constexpr int kMaxPollWeight = 65535;
// napi_defer_hard_irqs is an s32 in sysfs and netlink (dev_change_napi_defer_hard_irqs refuses
// more than S32_MAX).
inline constexpr std::uint32_t kMaxDeferHardIrqs = 2147483647U;

// ---- configuration -------------------------------------------------------------------------

// The per-NAPI settings, in the names of /sys/class/net/<dev>/ and the netdev netlink family.
// All default to the kernel's defaults: off.
struct Config {
  int weight = kPollWeight;           // napi->weight: packets per softirq poll
  std::uint32_t defer_hard_irqs = 0;  // napi_defer_hard_irqs: empty polls before re-arming
  Duration gro_flush_timeout{0};      // gro_flush_timeout, ns; the deferral's timer
  Duration irq_suspend_timeout{0};    // irq-suspend-timeout (netlink, ns); epoll suspension
  // Where busy_poll_stop arms the deferral timer. false: before its final poll (7fd3253a7de6,
  // Linux 5.11), so a watchdog expiring during a long final poll finds SCHED held and is lost.
  // true: in __busy_poll_stop after SCHED is cleared, on the full-budget path only (58e2330bd455
  // "net: napi: Avoid gro timer misfiring at end of busypoll": 7.1; stable 6.18.34, 7.0.11).
  bool gro_timer_after_final_poll = false;
  // Where the watchdog expires. false: in hard interrupt context, so it can run while the busy
  // poller's final poll holds SCHED. true: PREEMPT_RT, where an hrtimer not marked HARD (the
  // NAPI timer: HRTIMER_MODE_REL_PINNED) expires in softirq (f5c2f0215e36, Linux 5.4), which
  // cannot run inside busy_poll_stop (bottom halves off from before its hrtimer_start to after
  // __busy_poll_stop): by then SCHED is clear, so the window 58e2330bd455 closed does not open.
  // Only the watchdog's timing is modelled, not the rest of PREEMPT_RT (threaded hard interrupts,
  // priorities).
  bool watchdog_in_softirq = false;
};

// The first violation, keyed by the setting's name: "weight" outside 1..65535,
// "napi_defer_hard_irqs" above 2^31-1, "gro_flush_timeout" / "irq_suspend_timeout" negative.
std::optional<Error> validate(const Config& config);

// ---- state ---------------------------------------------------------------------------------

// NAPI_STATE_* bits that this model keeps (include/linux/netdevice.h), as a bit mask.
enum StateBit : std::uint32_t {
  kStateSched = 1U << 0,           // NAPI_STATE_SCHED: "Poll is scheduled"; the ownership token
  kStateMissed = 1U << 1,          // NAPI_STATE_MISSED: "reschedule a napi"
  kStateInBusyPoll = 1U << 2,      // NAPI_STATE_IN_BUSY_POLL: "Do not rearm NAPI interrupt"
  kStatePreferBusyPoll = 1U << 3,  // NAPI_STATE_PREFER_BUSY_POLL: softirq yields to busy poll
};

// Who holds SCHED.
enum class Owner : std::uint8_t {
  none,         // idle: the next napi_schedule or busy poller takes it
  softirq,      // on the CPU's poll list: the NET_RX softirq (or ksoftirqd) must poll it
  busy_poller,  // a thread in __napi_busy_loop (IN_BUSY_POLL set, or its final poll)
};

// Which poll is running.
enum class Poller : std::uint8_t {
  none,             // no poll in progress
  softirq,          // net_rx_action -> __napi_poll, budget = weight
  busy_poll,        // one iteration of __napi_busy_loop, budget = the busy-poll budget
  busy_poll_final,  // the poll inside busy_poll_stop that re-enables interrupts
};

// What napi_schedule did.
enum class Schedule : std::uint8_t {
  raised,  // this call took SCHED: the context is on the poll list, NET_RX must run
  missed,  // SCHED was held: MISSED is set and the owner polls again before letting go
};

// What the driver's poll routine did about completion, which decides the interrupt.
enum class Completion : std::uint8_t {
  not_called,   // the budget was used up: the driver leaves the interrupt masked
  rearm,        // napi_complete_done() returned true: the driver re-enables the interrupt
  keep_masked,  // it returned false: busy poller, deferral or MISSED; no re-enable
};

// The outcome of one *_poll_end().
struct PollResult {
  int work = 0;                                    // descriptors the poll cleaned
  Completion completion = Completion::not_called;  // what the driver's completion said
  bool repoll = false;               // the softirq owns the context and must poll it again
  std::optional<Instant> arm_timer;  // hrtimer_start(&napi->timer) at this instant
  friend constexpr bool operator==(const PollResult&, const PollResult&) = default;
};

// Event counts, for /proc/net/softnet_stat-like reporting and for the tests.
struct Counters {
  std::uint64_t schedules = 0;           // napi_schedule calls (interrupts, resume, prefer repoll)
  std::uint64_t missed = 0;              // ... of which found SCHED held and set MISSED
  std::uint64_t softirq_polls = 0;       // polls by the softirq
  std::uint64_t busy_polls = 0;          // busy-poll iterations that polled (owner)
  std::uint64_t busy_poll_misses = 0;    // iterations that could not take ownership
  std::uint64_t final_polls = 0;         // busy_poll_stop's polls
  std::uint64_t completions = 0;         // napi_complete_done calls that returned true
  std::uint64_t deferrals = 0;           // ... that returned false because of the deferral
  std::uint64_t watchdog_polls = 0;      // timer expiries that scheduled the context
  std::uint64_t timer_arms = 0;          // hrtimer_start calls
  std::uint64_t prefer_yields = 0;       // softirq full-budget polls that gave way to busy poll
  std::uint64_t masked_releases = 0;     // full final polls released idle with IRQs masked
  std::uint64_t watchdog_swallowed = 0;  // timer expiries that found SCHED held: no effect
  // ... masked releases with no timer pending: the window 58e2330bd455 closed. Nothing but
  // another busy poll will look at the queue again.
  std::uint64_t released_without_timer = 0;
  // Soft watchdog expiries (PREEMPT_RT) held until busy_poll_stop's final poll ended.
  std::uint64_t watchdog_held = 0;
};

// ---- the context ----------------------------------------------------------------------------

class Context {
 public:
  // Precondition: validate(config) found nothing (asserted); create() validates at the edge.
  explicit Context(const Config& config);
  static Expected<Context> create(const Config& config);

  // ---- interrupt path --------------------------------------------------------------------

  // napi_schedule() from the interrupt handler (napi_schedule_prep + __napi_schedule).
  Schedule schedule();

  // ---- softirq ---------------------------------------------------------------------------

  // net_rx_action starts polling this context. Precondition: owner() == softirq and no poll is
  // running. Returns the budget: the weight.
  int softirq_poll_begin();
  // The driver cleaned `work` (0..weight) descriptors. Below the weight the driver calls
  // napi_complete_done; at the weight __napi_poll keeps the context on the list (repoll), unless
  // PREFER_BUSY_POLL makes it complete and give way to the busy poller.
  PollResult softirq_poll_end(Instant now, int work);

  // ---- busy polling (a thread in __napi_busy_loop) -----------------------------------------

  // The top of a busy-loop iteration of a thread that does not own the context yet (the kernel
  // tries only until it owns). Returns true when it just set SCHED | IN_BUSY_POLL. Otherwise,
  // also when another busy poller owns it, nothing is polled this iteration; with `prefer`
  // (SO_PREFER_BUSY_POLL) PREFER_BUSY_POLL is set, so the owner gives way when it can.
  bool busy_poll_acquire(bool prefer);
  // One owned iteration polls with `budget` (1..65535). Precondition: busy_poll_acquire() is
  // true and no poll is running.
  int busy_poll_begin(int budget);
  // The driver's napi_complete_done returns false while IN_BUSY_POLL is set: keep_masked.
  PollResult busy_poll_end(Instant now, int work);
  // busy_poll_stop, first half: clears MISSED and IN_BUSY_POLL; if this busy poller prefers
  // busy polling (`prefer`, its NAPI_F_PREFER_BUSY_POLL flag) reloads the deferral count and,
  // when napi_defer_hard_irqs and gro_flush_timeout are both set, remembers to skip the
  // reschedule and, before 58e2330bd455 (Config::gro_timer_after_final_poll false), arms the
  // timer (returned). Then the host runs the final poll.
  std::optional<Instant> busy_poll_stop(Instant now, bool prefer);
  // The final poll ("All we really want here is to re-enable device interrupts").
  int final_poll_begin();
  // Below the budget the driver completes normally; at the budget the context goes back to the
  // softirq (repoll), or with skip_schedule is released with interrupts still masked (from
  // 58e2330bd455 with the timer armed here, in the result).
  PollResult final_poll_end(Instant now, int work);

  // ---- timers and epoll ------------------------------------------------------------------

  // napi_watchdog at `now`. Does nothing (nullopt) when no timer is due: stale or cancelled.
  // If SCHED is free it is taken without setting MISSED, PREFER_BUSY_POLL is cleared (the
  // pledge is revoked) and the softirq must poll: Schedule::raised. If SCHED is held, nothing.
  std::optional<Schedule> on_timer(Instant now);
  // napi_suspend_irqs (epoll returned events with prefer_busy_poll): with irq_suspend_timeout
  // set, re-arms the timer that far out and returns its deadline; else nothing.
  std::optional<Instant> suspend_irqs(Instant now);
  // napi_resume_irqs (epoll found no events): with irq_suspend_timeout set, napi_schedule().
  std::optional<Schedule> resume_irqs();

  // ---- observation -----------------------------------------------------------------------

  std::uint32_t state() const { return state_; }
  bool test(StateBit bit) const { return (state_ & bit) != 0; }
  Owner owner() const { return owner_; }
  Poller polling() const { return polling_; }
  std::optional<Instant> timer() const { return timer_; }
  std::uint32_t defer_hard_irqs_count() const { return defer_hard_irqs_count_; }
  const Counters& counters() const { return counters_; }
  const Config& config() const { return config_; }

  // The model's invariants: SCHED iff an owner; IN_BUSY_POLL only for a busy poller; a running
  // poll belongs to the owner. The kernel can leave MISSED behind without SCHED (see
  // final_poll_end), so that is not one of them.
  bool invariants_hold() const;

 private:
  // napi_complete_done(); sets owner_ / timer_ and returns the kernel's answer.
  bool complete_done(Instant now, int work, PollResult& result);
  // __napi_schedule: the softirq takes the context.
  void hand_to_softirq();
  void arm_timer(Instant at, PollResult* result);
  // Config::watchdog_in_softirq: a due timer held during the final poll is handed back to run now.
  void run_held_watchdog(Instant now, PollResult& result);
  // Marks a poll of `kind` running with `budget`, counted in `counter`; returns the budget.
  int start_poll(Poller kind, int budget, std::uint64_t& counter);
  // Ends the running poll of `kind`. Below the budget the driver completes (napi_complete_done)
  // and this returns true with result.completion set; at the budget it returns false.
  bool end_poll(Poller kind, Instant now, int work, PollResult& result);

  Config config_;
  std::uint32_t state_ = 0;                  // StateBit mask
  Owner owner_ = Owner::none;                // who holds SCHED
  Poller polling_ = Poller::none;            // the poll in progress
  int budget_ = 0;                           // the running poll's budget
  bool skip_schedule_ = false;               // busy_poll_stop armed the deferral timer
  int busy_budget_ = kBusyPollBudget;        // the busy loop's budget, for its final poll
  std::uint32_t defer_hard_irqs_count_ = 0;  // napi->defer_hard_irqs_count
  std::optional<Instant> timer_;             // napi->timer deadline, if armed
  Counters counters_{};
};

// ---- the busy loop's end condition ---------------------------------------------------------

// busy_loop_timeout (include/net/busy_poll.h): the kernel counts busy-poll time in units of
// 1024 ns (busy_loop_current_time() is ktime_get_ns() >> 10), so busy_read=50 spins ~51.2 us.
// True once `now` is past `start` + `usecs` such units. `usecs` 0 is timed out at once, as
// busy_loop_timeout returns true when net.core.busy_poll is 0: the loop ends after its first
// iteration. Only epoll reaches that (ep_busy_loop_on below); sk_busy_loop is entered only with
// a nonzero busy_read / SO_BUSY_POLL.
constexpr bool busy_loop_timed_out(Instant start, Instant now, std::uint32_t usecs) {
  if (usecs == 0) return true;
  const auto start_units = static_cast<std::uint64_t>(ns_since_epoch(start)) >> 10;
  const auto now_units = static_cast<std::uint64_t>(ns_since_epoch(now)) >> 10;
  return now_units > start_units + usecs;
}

// ep_busy_loop_on (fs/eventpoll.c): does epoll_wait busy-poll before it sleeps? Before Linux 6.13
// only when a time is set (the instance's busy_poll_usecs or net.core.busy_poll, `usecs`).
// ab5b28b007a7 "eventpoll: Trigger napi_busy_loop, if prefer_busy_poll is set" (6.13) adds
// prefer_busy_poll: with `usecs` 0 that is one iteration (busy_loop_timed_out), then
// busy_poll_stop's final poll, then napi_resume_irqs and sleep if nothing came.
// `prefer_starts_loop` selects the 6.13 rule.
constexpr bool epoll_busy_loop_on(std::uint32_t usecs, bool prefer, bool prefer_starts_loop) {
  return usecs != 0 || (prefer && prefer_starts_loop);
}

// What ends a busy loop besides its timeout. A socket's loop (sk_busy_loop_end) and epoll's
// (ep_busy_loop_end) end when there is something to return; seed 002's AF_XDP proposal ends when
// the Rx ring is empty or the Tx ring is full.
struct LoopEnd {
  bool on_data = true;       // end when the socket / epoll has data (sk_busy_loop_end)
  bool on_rx_empty = false;  // end when the ring has nothing left to clean (seed 002)
  bool on_tx_full = false;   // end when the Tx ring is full (seed 002)
};

// The queue's situation after an iteration, for LoopEnd.
struct LoopState {
  bool data_ready = false;  // the application has something to receive
  bool rx_empty = false;    // the Rx ring holds no completed descriptor
  bool tx_full = false;     // the Tx ring has no free slot
};

// loop_end(): true when the loop should stop after this iteration.
constexpr bool busy_loop_end(const LoopEnd& end, const LoopState& s, Instant start, Instant now,
                             std::uint32_t usecs) {
  return (end.on_data && s.data_ready) || (end.on_rx_empty && s.rx_empty) ||
         (end.on_tx_full && s.tx_full) || busy_loop_timed_out(start, now, usecs);
}

}  // namespace irqmod::napi
