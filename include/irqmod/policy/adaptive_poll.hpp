// Adaptive spin-then-sleep for a userspace poll loop (issue 3 item 6).
//
// Shaped like Seastar's reactor (docs/research/napi-busy-poll.md §4.1): the loop polls; while
// work keeps arriving it keeps polling; when a poll finds nothing it asks on_idle() what to do:
//  - spin: poll again at once;
//  - sleep_until(t): the inter-arrival gap is regular (and at most max_predicted_gap), so sleep
//    on a timer until just before the predicted next arrival and spin from there (hybrid
//    polling, note §5). Gaps are learned between arrival times when the caller has them (kernel
//    receive timestamps), else between the times work was found;
//  - block: the gap is long or unpredictable and idle_poll_window of spinning found nothing;
//    wait in the kernel through the three-step interrupt-mode protocol below, which never loses
//    a wake-up (the lesson of seed 000, §2).
//
// Interrupt mode, as Seastar's try_enter_interrupt_mode / pure_poll / exit_interrupt_mode:
//   InterruptEntry e = poller.try_enter_interrupt_mode(now);  // 1. publish "about to block"
//   arm_kernel_wait();                                       //    (enable IRQ, set flag, ...)
//   if (poller.recheck(e, pure_poll())) block();             // 2. re-poll AFTER arming
//   poller.exit_interrupt_mode(e, clock.now());              // 3. always, blocked or not
// Work that arrived before the wait was armed is found by the recheck; work after it wakes the
// wait. An entry permits blocking only once recheck() has reported no work.
//
// Time is handed in; the poller never reads a clock, allocates, logs, throws or calls through a
// virtual function. Config is validated once, at the edge (validate / create).
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::adaptive_poll {

// Seastar's default idle-poll-time on bare metal: 200 µs, "competitive with halt/unhalt"
// (reactor.cc calculate_poll_time, note §4.1). Also haltpoll's guest_halt_poll_ns (§4.2).
inline constexpr Duration kBareMetalIdlePollWindow = microseconds(200);
// Seastar's default when /sys/hypervisor/type exists: 2000 µs, "IPIs are slow and dominate
// sleep/wake" (note §4.1).
inline constexpr Duration kVirtualizedIdlePollWindow = microseconds(2000);

struct Config {
  // Longest continuous spin before blocking when no prediction holds; 0 = never spin (Seastar's
  // --overprovisioned). Default: Seastar bare metal, above.
  Duration idle_poll_window = kBareMetalIdlePollWindow;
  // Longest mean gap that hybrid sleeping predicts across; 0 = never predict. Apart from
  // idle_poll_window so that a host can predict 1 ms gaps (sleeping through them) without also
  // spinning up to 1 ms whenever a prediction fails. Empty = idle_poll_window: the behaviour
  // before the two were separate, kept as the default because no measurement says otherwise.
  std::optional<Duration> max_predicted_gap;
  // The spin window the first grow reaches, and the floor below which a shrink drops it to 0.
  // Also the starting window, so a fresh poller spins before it first blocks, as Seastar does.
  // Default: haltpoll guest_halt_poll_grow_start = 50000 ns (note §4.2).
  Duration spin_grow_start = microseconds(50);
  // Multiplier when a block was followed by work within idle_poll_window (a longer spin would
  // have caught it). Default: haltpoll guest_halt_poll_grow = 2 (note §4.2).
  std::uint32_t spin_grow = 2;
  // Divisor when an idle period outlasted idle_poll_window (the whole spin was wasted).
  // Default: haltpoll guest_halt_poll_shrink = 2 (note §4.2).
  std::uint32_t spin_shrink = 2;
  // The price of sleeping instead of spinning; never sleep for less, and wake this early. Default
  // 10 µs, from issue 5's sockperf runs: the blocking server is ~3 µs slower than spinning at max
  // rate (p50 9.5 vs 6.6 µs) and ~9 µs slower at 1000 msg/s (21.8 vs 12.6 µs).
  Duration wakeup_cost = microseconds(10);
  // Arrivals are "regular" when the mean absolute deviation of the gap is at most this percent of
  // the mean gap. A choice: 25% keeps the guard (wakeup_cost + 4 deviations) under the mean gap.
  std::uint32_t regular_max_deviation_percent = 25;
  // Gaps learned before the poller trusts its prediction. A choice: the deviation, seeded at half
  // the first gap as RFC 6298 seeds RTTVAR, needs a few samples to decay.
  std::uint32_t min_gap_samples = 4;
};

// Longest gap learned; longer gaps are clamped so the guard arithmetic cannot overflow. Any gap
// this long is far beyond every sensible idle_poll_window, so clamping loses nothing.
inline constexpr Duration kMaxLearnedGap = seconds(10);
// Largest idle_poll_window and max_predicted_gap validate() accepts (matches kMaxLearnedGap).
inline constexpr Duration kMaxIdlePollWindow = kMaxLearnedGap;

// The prediction horizon a Config asks for: max_predicted_gap, or idle_poll_window when empty.
constexpr Duration max_predicted_gap(const Config& config) {
  return config.max_predicted_gap.value_or(config.idle_poll_window);
}

// Checks a Config; the first violation, keyed by the field name, says what is allowed.
std::optional<Error> validate(const Config& config);

// What the poll loop should do after a poll that found no work.
enum class ActionKind : std::uint8_t {
  spin,         // poll again now
  sleep_until,  // sleep on a timer until Action::until, then poll (and expect to spin)
  block,        // wait in the kernel via try_enter_interrupt_mode / recheck / exit
};

struct Action {
  ActionKind kind = ActionKind::spin;
  Instant until{};  // the wake-up time for sleep_until; unused otherwise

  static constexpr Action spin() { return {ActionKind::spin, {}}; }
  static constexpr Action sleep(Instant t) { return {ActionKind::sleep_until, t}; }
  static constexpr Action block() { return {ActionKind::block, {}}; }
  friend constexpr bool operator==(const Action&, const Action&) = default;
};

// One trip into interrupt mode. Blocking is permitted only after recheck() reported no work.
class InterruptEntry {
 public:
  bool rechecked() const { return rechecked_; }
  bool may_block() const { return may_block_; }  // recheck() ran and found nothing
  Instant entered_at() const { return entered_at_; }

 private:
  friend class AdaptivePoller;
  explicit InterruptEntry(Instant entered_at) : entered_at_(entered_at) {}

  Instant entered_at_{};
  bool rechecked_ = false;
  bool may_block_ = false;
  bool open_ = true;  // not yet passed to exit_interrupt_mode
};

// Totals since construction.
struct Counters {
  std::uint64_t spins = 0;               // on_idle answers "spin"
  std::uint64_t sleeps = 0;              // on_idle answers "sleep_until"
  std::uint64_t block_advices = 0;       // on_idle answers "block"
  std::uint64_t blocks = 0;              // rechecks that found nothing, so the caller blocked
  std::uint64_t mode_switches = 0;       // on_idle answers whose kind differs from the previous one
  std::uint64_t recheck_found_work = 0;  // rechecks that found work: wake-ups a naive loop misses
  std::uint64_t work_calls = 0;          // on_work calls with items > 0
  std::uint64_t items = 0;               // items reported through on_work
  Duration wasted_spin{};                // spinning that ended in a sleep or block, not in work
  Duration blocked_time{};               // from entering interrupt mode to exit, when blocked
};

class AdaptivePoller {
 public:
  // Precondition: validate(config) found nothing (asserted); use create() at the edge.
  explicit AdaptivePoller(const Config& config);

  // Validates, then constructs.
  static Expected<AdaptivePoller> create(const Config& config);

  // A poll found `items` (> 0) of work at `now`; the newest of them arrived at `arrived` (a
  // receive timestamp on the same clock as `now`, e.g. SO_TIMESTAMPNS converted by the caller).
  // Learns the gap between arrivals and predicts from them, so a late wake-up, which delays
  // `now` but not `arrived`, does not shift later predictions. When the idle period this ends
  // included a block, adapts the spin window the haltpoll way (idle period ending at `arrived`).
  // An `arrived` after `now` is taken as `now`; one before the previous arrival (stamps from
  // several sockets) learns a zero gap and keeps the newer arrival.
  void on_work(Instant now, std::uint32_t items, Instant arrived);
  // As above when no arrival time is known: the work is taken to have arrived when found.
  void on_work(Instant now, std::uint32_t items) { on_work(now, items, now); }

  // A poll found nothing at `now`: spin, sleep until a time, or block.
  Action on_idle(Instant now);

  // Step 1 of blocking: the caller is about to arm its kernel wait.
  [[nodiscard]] InterruptEntry try_enter_interrupt_mode(Instant now);
  // Step 2, after arming: report what a pure poll found. Returns true iff the caller may block;
  // false means work raced in and the caller must not block.
  [[nodiscard]] bool recheck(InterruptEntry& entry, bool work_found);
  // Step 3, always: after waking, or at once when the recheck found work.
  void exit_interrupt_mode(InterruptEntry& entry, Instant now);

  // Arrivals are regular and close enough that on_idle predicts them.
  bool predicting() const;
  // The predicted next arrival; empty when not predicting.
  std::optional<Instant> predicted_arrival() const;
  // How early before the predicted arrival a sleep ends: wakeup_cost + 4 mean deviations (4 as
  // RFC 6298's K in RTO = SRTT + 4 RTTVAR).
  Duration guard() const;

  Duration mean_gap() const { return Duration{mean_gap_ns_}; }      // EWMA, weight 1/8
  Duration gap_deviation() const { return Duration{gap_dev_ns_}; }  // EWMA, weight 1/4
  std::uint64_t gap_samples() const { return gap_samples_; }
  Duration spin_window() const { return spin_window_; }
  bool in_interrupt_mode() const { return in_interrupt_mode_; }
  const Counters& counters() const { return counters_; }
  const Config& config() const { return config_; }

 private:
  void learn_gap(Duration gap);
  void adapt_spin_window(Duration idle);
  Action decide(Instant now);

  Config config_;
  Counters counters_{};
  // EWMA of the gap and of its absolute deviation, integer ns (RFC 6298 weights 1/8 and 1/4).
  std::int64_t mean_gap_ns_ = 0;
  std::int64_t gap_dev_ns_ = 0;
  std::uint64_t gap_samples_ = 0;
  Duration spin_window_{};
  bool has_last_work_ = false;
  Instant last_arrival_{};  // the newest arrival reported through on_work
  bool idle_ = false;       // no work since idle_start_
  Instant idle_start_{};
  bool blocked_this_idle_ = false;
  bool spinning_ = false;  // the previous answer was spin, since spin_start_
  Instant spin_start_{};
  bool has_last_action_ = false;
  ActionKind last_action_ = ActionKind::spin;
  bool in_interrupt_mode_ = false;
};

}  // namespace irqmod::adaptive_poll
