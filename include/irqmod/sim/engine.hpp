// The simulator's event engine: virtual time in integer nanoseconds, events totally ordered by
// (time, sequence number), lazy cancellation, no per-event allocation and no std::function.
//
// An event is a 32-byte POD: when, its sequence number and a 16-bit kind packed in one word, a
// 32-bit target and a 64-bit payload. The engine never interprets kind or payload.
//
// The target names an endpoint: a plain function pointer and the component it belongs to, bound
// once at set-up (bind()) and kept in a table, so an event carries a 32-bit index and dispatching
// it is one indirect call, with no allocation and no std::function. Each component has its own
// few event kinds and its own small switch in its handler; the engine knows none of them.
// run_until(end) dispatches through the table; run_until(end, handler) hands every event to one
// callable instead (a template, so a direct, inlinable call), which may wrap dispatch().
//
// Cancellation is lazy: a cancellable event belongs to a *slot* (a timer: an ITR timer, a
// coalescing deadline, a busy-poll timeout). Arming a slot again or cancelling it leaves the old
// event in the heap; it is recognised as stale when it reaches the top (its sequence number is no
// longer the slot's) and skipped. Stale events are purged when they outnumber the live ones, so a
// timer re-armed on every packet cannot grow the heap without bound: memory depends on the number
// of pending events, never on the simulated duration.
//
// Time never runs backwards: scheduling before now() is a programming error and aborts, in every
// build type (one predictable branch per schedule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "irqmod/sim/heap.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// A timer that owns at most one pending event; see Engine::make_slot().
struct SlotId {
  std::uint32_t index = std::numeric_limits<std::uint32_t>::max();
  friend constexpr bool operator==(SlotId, SlotId) = default;
};

// One scheduled event. Plain data: copied into and out of the heap.
struct Event {
  std::int64_t time_ns = 0;   // when it fires, ns since the epoch
  std::uint64_t order = 0;    // sequence number << 16 | kind: the tie-break, and the kind
  std::uint64_t payload = 0;  // the handler's: a packet count, a vector number, ...
  std::uint32_t target = 0;   // the handler's: which component receives it
  std::uint32_t slot = 0;     // slot index + 1, or 0 for an event that cannot be cancelled

  Instant time() const { return at_ns(time_ns); }
  std::uint64_t sequence() const { return order >> kKindBits; }
  std::uint16_t kind() const { return static_cast<std::uint16_t>(order & kKindMask); }

  static constexpr unsigned kKindBits = 16;
  static constexpr std::uint64_t kKindMask = (std::uint64_t{1} << kKindBits) - 1;
};
static_assert(sizeof(Event) == 32, "four events per two cache lines");

// Where an event goes: a component's handler and the component. Bound without allocation.
struct Endpoint {
  void (*handle)(void* self, const Event& event) = nullptr;
  void* self = nullptr;

  void operator()(const Event& event) const { handle(self, event); }
};

// An endpoint's index in the engine's table; what Event::target holds.
struct EndpointId {
  std::uint32_t index = std::numeric_limits<std::uint32_t>::max();
  friend constexpr bool operator==(EndpointId, EndpointId) = default;
};

// Earlier time first; equal times in the order they were scheduled.
struct EventBefore {
  bool operator()(const Event& a, const Event& b) const {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.order < b.order;
  }
};

// What a run did, for the results and the benchmark.
struct EngineStats {
  std::uint64_t scheduled = 0;   // events scheduled, including those later cancelled
  std::uint64_t dispatched = 0;  // events handed to the handler
  std::uint64_t cancelled = 0;   // events made stale by cancel() or by re-arming their slot
  std::uint64_t purges = 0;      // times the heap was compacted to drop stale events
  std::size_t peak_pending = 0;  // largest heap size seen (stale events included)
};

class Engine {
 public:
  // Sequence numbers have 48 bits: 2.8e14 events, 65 days of simulation at 50 M events/s.
  static constexpr std::uint64_t kMaxSequence = (std::uint64_t{1} << (64 - Event::kKindBits)) - 1;
  // Below this heap size stale events are left to drain by themselves.
  static constexpr std::size_t kPurgeMinimum = 1024;

  // `capacity` events are reserved up front; the heap grows (amortised) only past that.
  explicit Engine(std::size_t capacity = 4096) : heap_(capacity) {}

  Instant now() const { return at_ns(now_ns_); }

  // A new timer slot. Call at set-up; slots live as long as the engine.
  SlotId make_slot() {
    slots_.push_back(SlotState{});
    return SlotId{static_cast<std::uint32_t>(slots_.size() - 1)};
  }

  // A new endpoint for `handle(self, event)`. Call at set-up; endpoints live as long as the engine.
  EndpointId add_endpoint(Endpoint endpoint) {
    endpoints_.push_back(endpoint);
    return EndpointId{static_cast<std::uint32_t>(endpoints_.size() - 1)};
  }

  // An endpoint that calls `(object.*Method)(event)`.
  template <auto Method, typename T>
  EndpointId bind(T& object) {
    return add_endpoint(Endpoint{
        [](void* self, const Event& event) { (static_cast<T*>(self)->*Method)(event); }, &object});
  }

  // Schedules an event for `to` that cannot be cancelled. Precondition: at >= now().
  void schedule(Instant at, EndpointId to, std::uint16_t kind, std::uint64_t payload = 0) {
    push(ns_since_epoch(at), kind, to.index, payload, 0);
  }

  // Schedules the slot's event for `to` at `at`, replacing the one it had pending (if any).
  void arm(SlotId slot, Instant at, EndpointId to, std::uint16_t kind, std::uint64_t payload = 0) {
    arm(slot, at, kind, to.index, payload);
  }

  // Schedules an event that cannot be cancelled. Precondition: at >= now().
  void schedule(Instant at, std::uint16_t kind, std::uint32_t target, std::uint64_t payload = 0) {
    push(ns_since_epoch(at), kind, target, payload, 0);
  }

  // Schedules the slot's event at `at`, replacing the one it had pending (if any).
  void arm(SlotId slot, Instant at, std::uint16_t kind, std::uint32_t target,
           std::uint64_t payload = 0) {
    SlotState& state = slots_[slot.index];
    if (state.armed_order != 0) {
      state.armed_order = 0;  // before note_stale(): a purge there must see the old event stale
      note_stale();
    }
    const std::uint64_t order = push(ns_since_epoch(at), kind, target, payload, slot.index + 1);
    state.armed_order = order;
    state.deadline_ns = ns_since_epoch(at);
  }

  // Cancels the slot's pending event; false if it had none.
  bool cancel(SlotId slot) {
    SlotState& state = slots_[slot.index];
    if (state.armed_order == 0) return false;
    state.armed_order = 0;
    note_stale();
    return true;
  }

  bool armed(SlotId slot) const { return slots_[slot.index].armed_order != 0; }
  // When the slot's event fires. Precondition: armed(slot).
  Instant deadline(SlotId slot) const { return at_ns(slots_[slot.index].deadline_ns); }

  // Runs every event with time <= end, in (time, sequence) order, calling handler(event) for each
  // live one; the handler may schedule, arm and cancel. Then advances now() to `end` unless the
  // handler called stop(). Returns the number of events dispatched by this call.
  template <typename Handler>
  std::uint64_t run_until(Instant end, Handler&& handler) {
    const std::int64_t end_ns = ns_since_epoch(end);
    const std::uint64_t before = stats_.dispatched;
    stop_ = false;
    while (!heap_.empty() && heap_.top().time_ns <= end_ns) {
      const Event event = heap_.top();
      if (event.slot != 0) {
        SlotState& state = slots_[event.slot - 1];
        if (state.armed_order != event.order) {
          heap_.pop();
          --stale_;
          continue;
        }
        state.armed_order = 0;
      }
      // The dispatched event stays at the top while its handler runs: the first event the handler
      // schedules replaces it in one pass down the heap instead of a pop and a push (most events
      // schedule a successor: a segment its next, a timer its next expiry).
      top_dispatched_ = true;
      now_ns_ = event.time_ns;
      ++stats_.dispatched;
      handler(event);
      if (top_dispatched_) {
        heap_.pop();
        top_dispatched_ = false;
      }
      if (stop_) return stats_.dispatched - before;
    }
    if (end_ns > now_ns_) now_ns_ = end_ns;
    return stats_.dispatched - before;
  }

  // Hands `event` to its target endpoint: for a handler given to run_until() that wraps the
  // dispatch (the simulator lands frames before every event and re-arms a watch after it).
  void dispatch(const Event& event) const { endpoints_[event.target](event); }

  // Runs every event with time <= end, each handed to its target endpoint.
  std::uint64_t run_until(Instant end) {
    return run_until(end, [this](const Event& event) { dispatch(event); });
  }

  // Makes run_until() return after the current event.
  void stop() { stop_ = true; }

  // Time of the earliest pending event, live or stale; Instant::max() when none.
  Instant next_time() {
    settle_top();
    return heap_.empty() ? Instant::max() : at_ns(heap_.top().time_ns);
  }
  // In the heap, stale included (the event being dispatched is not pending).
  std::size_t pending() const { return heap_.size() - (top_dispatched_ ? 1 : 0); }
  std::size_t live_pending() const { return pending() - stale_; }
  const EngineStats& stats() const { return stats_; }

 private:
  struct SlotState {
    std::uint64_t armed_order = 0;  // order of the slot's pending event; 0 when none
    std::int64_t deadline_ns = 0;   // its time
  };

  std::uint64_t push(std::int64_t at_ns_value, std::uint16_t kind, std::uint32_t target,
                     std::uint64_t payload, std::uint32_t slot) {
    if (at_ns_value < now_ns_) [[unlikely]]
      time_ran_backwards(at_ns_value);
    if (next_sequence_ > kMaxSequence) [[unlikely]]
      sequence_exhausted();
    const std::uint64_t order = next_sequence_++ << Event::kKindBits | kind;
    if (top_dispatched_) {
      heap_.replace_top(Event{at_ns_value, order, payload, target, slot});
      top_dispatched_ = false;
    } else {
      heap_.push(Event{at_ns_value, order, payload, target, slot});
    }
    ++stats_.scheduled;
    if (heap_.size() > stats_.peak_pending) stats_.peak_pending = heap_.size();
    return order;
  }

  // Takes the dispatched event off the heap before anything reads or rearranges it.
  void settle_top() {
    if (!top_dispatched_) return;
    heap_.pop();
    top_dispatched_ = false;
  }

  void note_stale() {
    ++stale_;
    ++stats_.cancelled;
    if (stale_ > kPurgeMinimum && stale_ * 2 > heap_.size()) purge_stale();
  }

  void purge_stale();
  [[noreturn]] void time_ran_backwards(std::int64_t at_ns_value) const;
  [[noreturn]] static void sequence_exhausted();

  QuaternaryHeap<Event, EventBefore> heap_;
  std::vector<SlotState> slots_;
  std::vector<Endpoint> endpoints_;
  std::int64_t now_ns_ = 0;
  std::uint64_t next_sequence_ = 1;  // 0 is never used: armed_order 0 means "none"
  std::size_t stale_ = 0;            // stale events still in the heap
  bool stop_ = false;
  bool top_dispatched_ = false;  // the heap's top is the event being dispatched, not pending
  EngineStats stats_;
};

}  // namespace irqmod::sim
