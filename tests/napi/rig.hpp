// A test rig around one queue: the NAPI context, the device vector and the driver, plus the
// actors around them (the Rx ring, the CPU's hardirq and NET_RX softirq, one busy-polling
// thread, the timer). Every step is an explicit call, so a test can script an interleaving or
// let a random generator pick one. The rig does no scheduling of its own: it only keeps the
// actors' beliefs, which the tests compare with the engine's state.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <optional>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/driver.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/time.hpp"

namespace irqmod::napi::testing {

struct RigConfig {
  Config napi{};
  VectorConfig vector{};
  DriverConfig driver{};
  int busy_poll_budget = kBusyPollBudget;  // SO_BUSY_POLL_BUDGET
  bool prefer_busy_poll = false;           // SO_PREFER_BUSY_POLL
};

// The phase of the busy-polling thread.
enum class BusyPhase : std::uint8_t {
  off,         // not in a busy loop
  trying,      // in the loop, not owning the context
  owning,      // owns the context between iterations
  iterating,   // an owned iteration is polling
  stopped,     // busy_poll_stop ran; the final poll is next
  final_poll,  // the final poll is running
};

class Rig {
 public:
  explicit Rig(const RigConfig& config, Instant start = at_ns(0))
      : config_(config),
        context(config.napi),
        vector(config.vector),
        driver(config.driver, start),
        now(start) {}

  RigConfig config_;
  Context context;
  Vector vector;
  Driver driver;
  Instant now;

  int ring = 0;                     // completed descriptors nobody has cleaned yet
  int scanned = 0;                  // descriptors taken by the running poll
  std::uint64_t landed = 0;         // descriptors written back so far
  std::uint64_t cleaned = 0;        // ... and cleaned
  bool hardirq_pending = false;     // an interrupt fired; its handler has not run
  bool softirq_listed = false;      // the softirq believes the context is on its poll list
  bool softirq_polling = false;     // ... and is polling it
  BusyPhase busy = BusyPhase::off;  // the busy poller's belief
  bool schedule_unserved = false;   // a napi_schedule has had no poll start after it
  bool masked_release_without_timer = false;  // since the last poll: see final_end()
  std::uint64_t interrupts_seen = 0;

  // ---- the device -------------------------------------------------------------------------

  void advance(Duration d) { now += d; }
  void advance_to(Instant t) { now = std::max(now, t); }

  // `n` descriptors are written back now.
  void land(int n = 1) {
    for (int i = 0; i < n; ++i) {
      ++ring;
      ++landed;
      vector.on_cause(now);
    }
  }

  bool vector_due() const { return vector.due() && *vector.due() <= now; }
  // The vector fires if due; its handler runs later (hardirq()).
  std::optional<Cause> fire() {
    auto cause = vector.fire(now);
    if (cause) {
      hardirq_pending = true;
      ++interrupts_seen;
    }
    return cause;
  }

  // ---- the CPU ----------------------------------------------------------------------------

  // i40e_msix_clean_rings: napi_schedule_irqoff.
  void hardirq() {
    assert(hardirq_pending);
    hardirq_pending = false;
    note_schedule(context.schedule());
  }

  bool timer_due() const { return context.timer() && *context.timer() <= now; }
  void timer() {
    if (auto s = context.on_timer(now)) note_schedule(*s);
  }

  void softirq_begin() {
    assert(softirq_listed && !softirq_polling);
    softirq_listed = false;
    softirq_polling = true;
    scan(context.softirq_poll_begin());
  }
  PollResult softirq_end() {
    assert(softirq_polling);
    softirq_polling = false;
    const PollResult r = context.softirq_poll_end(now, scanned);
    finish(r);
    return r;
  }
  // A whole softirq poll with nothing landing in between.
  PollResult softirq_poll() {
    softirq_begin();
    return softirq_end();
  }

  // ---- the busy-polling thread --------------------------------------------------------------

  void busy_enter() {
    assert(busy == BusyPhase::off);
    busy = BusyPhase::trying;
  }
  // The top of an iteration: try to own.
  bool busy_acquire() {
    assert(busy == BusyPhase::trying || busy == BusyPhase::owning);
    if (context.busy_poll_acquire(config_.prefer_busy_poll)) {
      busy = BusyPhase::owning;
      return true;
    }
    return false;
  }
  void busy_begin() {
    assert(busy == BusyPhase::owning);
    busy = BusyPhase::iterating;
    scan(context.busy_poll_begin(config_.busy_poll_budget));
  }
  PollResult busy_end() {
    assert(busy == BusyPhase::iterating);
    busy = BusyPhase::owning;
    const PollResult r = context.busy_poll_end(now, scanned);
    finish(r);
    return r;
  }
  // Leave the loop without ever owning.
  void busy_leave() {
    assert(busy == BusyPhase::trying);
    busy = BusyPhase::off;
  }
  void busy_stop() {
    assert(busy == BusyPhase::owning);
    busy = BusyPhase::stopped;
    context.busy_poll_stop(now, config_.prefer_busy_poll);
  }
  void final_begin() {
    assert(busy == BusyPhase::stopped);
    busy = BusyPhase::final_poll;
    scan(context.final_poll_begin());
  }
  PollResult final_end() {
    assert(busy == BusyPhase::final_poll);
    busy = BusyPhase::off;
    const PollResult r = context.final_poll_end(now, scanned);
    // A release with the interrupt masked and no timer left to pick the context up: the window
    // described in docs/research/napi-busy-poll.md (watchdog expiring inside busy_poll_stop).
    if (r.completion == Completion::not_called && !r.repoll && !context.timer()) {
      masked_release_without_timer = true;
    }
    finish(r);
    return r;
  }
  // One whole busy-poll session: own (or give up), `iterations` polls, stop, final poll.
  bool busy_session(int iterations) {
    busy_enter();
    if (!busy_acquire()) {
      busy_leave();
      return false;
    }
    for (int i = 0; i < iterations; ++i) {
      busy_begin();
      busy_end();
    }
    busy_stop();
    final_begin();
    final_end();
    return true;
  }

  // A second busy-polling thread tries once while someone owns the context; it must fail.
  // Returns false (and remembers it) if it was wrongly let in.
  bool contend() {
    if (context.busy_poll_acquire(config_.prefer_busy_poll)) {
      contender_won = true;
      return false;
    }
    return true;
  }
  bool contender_won = false;  // a contender acquired an owned context

  // ---- epoll ------------------------------------------------------------------------------

  void suspend() { context.suspend_irqs(now); }
  void resume() {
    if (auto s = context.resume_irqs()) note_schedule(*s);
  }

  // ---- checks -----------------------------------------------------------------------------

  bool busy_owns() const {
    return busy == BusyPhase::owning || busy == BusyPhase::iterating ||
           busy == BusyPhase::stopped || busy == BusyPhase::final_poll;
  }
  bool softirq_owns() const { return softirq_listed || softirq_polling; }
  // Nobody will look at the ring again unless something new happens.
  bool stranded() const {
    return ring > 0 && context.owner() == Owner::none && !vector.due() && !context.timer() &&
           !hardirq_pending;
  }

 private:
  void note_schedule(Schedule s) {
    schedule_unserved = true;
    if (s == Schedule::raised) softirq_listed = true;
  }
  void scan(int budget) {
    scanned = std::min(ring, budget);
    ring -= scanned;
    cleaned += static_cast<std::uint64_t>(scanned);
    schedule_unserved = false;  // a poll started after every request so far
    masked_release_without_timer = false;
  }
  void finish(const PollResult& r) {
    if (r.repoll) softirq_listed = true;
    driver.on_rx_cleaned(static_cast<std::uint32_t>(scanned) * 64U,
                         static_cast<std::uint32_t>(scanned));
    driver.on_poll(now, r, vector);
    scanned = 0;
  }
};

}  // namespace irqmod::napi::testing
