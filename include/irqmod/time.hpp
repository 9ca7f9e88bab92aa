// Time for irqmod: integer nanoseconds, and clocks that are handed to code rather than read by it.
//
// Every policy takes `now` as an argument. The simulator passes virtual time, the runtime the
// steady clock, unit tests a ManualClock. Durations and instants are 64-bit nanosecond counts,
// which cover 292 years, so no interface ever needs floating-point seconds.
#pragma once

#include <cassert>
#include <chrono>
#include <cstdint>

namespace irqmod {

// A signed span of time in nanoseconds.
using Duration = std::chrono::duration<std::int64_t, std::nano>;

// A point on the monotonic time line, in nanoseconds since an arbitrary epoch. It shares the
// steady clock's epoch so that the runtime can use steady_clock readings directly; virtual time
// in the simulator simply starts at the epoch.
using Instant = std::chrono::time_point<std::chrono::steady_clock, Duration>;

constexpr Duration nanoseconds(std::int64_t n) {
  return Duration{n};
}
constexpr Duration microseconds(std::int64_t us) {
  return Duration{us * 1000};
}
constexpr Duration milliseconds(std::int64_t ms) {
  return Duration{ms * 1000 * 1000};
}
constexpr Duration seconds(std::int64_t s) {
  return Duration{s * 1000 * 1000 * 1000};
}

// The instant `ns` nanoseconds after the epoch.
constexpr Instant at_ns(std::int64_t ns) {
  return Instant{Duration{ns}};
}

// Nanoseconds since the epoch.
constexpr std::int64_t ns_since_epoch(Instant t) {
  return t.time_since_epoch().count();
}

// A clock that moves only when told to: unit tests and the simulator. It never runs backwards.
class ManualClock {
 public:
  constexpr ManualClock() = default;
  constexpr explicit ManualClock(Instant start) : now_(start) {}

  constexpr Instant now() const { return now_; }

  constexpr void advance(Duration d) {
    assert(d >= Duration::zero() && "ManualClock never runs backwards");
    now_ += d;
  }

  constexpr void advance_to(Instant t) {
    assert(t >= now_ && "ManualClock never runs backwards");
    now_ = t;
  }

 private:
  Instant now_{};
};

// The host's monotonic clock, for the real runtime only. Policies never see this type.
struct SteadyClock {
  static Instant now() {
    return std::chrono::time_point_cast<Duration>(std::chrono::steady_clock::now());
  }
};

}  // namespace irqmod
