// What `irqmod serve` reports every --stats-interval and at exit (issue 5 item 3), and its two
// renderings: one human line and one JSON object per line. Formatting is pure.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "irqmod/rt/sockperf_protocol.hpp"
#include "irqmod/time.hpp"

namespace irqmod::rt {

// A snapshot of the server's totals since it started. Every received unit (a datagram, a framed
// TCP message, or a TCP stream fault) lands in exactly one of replies, reply_failures, warmup,
// no_reply or rejected, so `messages` is their sum (checked by the tests).
struct ServerStats {
  Duration elapsed{};  // wall time since the server started (steady clock)

  std::uint64_t messages = 0;        // received units, all verdicts
  std::uint64_t replies = 0;         // pong requests answered (whole reply sent)
  std::uint64_t reply_failures = 0;  // pong requests whose reply the kernel refused or timed out
  std::uint64_t warmup = 0;          // sockperf warm-up messages (never answered)
  std::uint64_t no_reply = 0;        // valid messages that asked for no pong
  // Messages dropped as unusable, by sockperf::Reject reason (index = enum value).
  std::array<std::uint64_t, sockperf::kRejectReasons> rejected{};

  std::uint64_t connections_accepted = 0;  // TCP connections taken
  std::uint64_t connections_closed = 0;    // TCP connections closed (by the peer or the server)
  std::uint64_t connections_refused = 0;   // TCP connections closed at once: over the limit

  // The receive loop (see docs/runtime.md for what each mode counts).
  std::uint64_t wakeups = 0;             // returns from a blocking kernel wait
  std::uint64_t spins = 0;               // polls that found nothing and polled again at once
  std::uint64_t timer_sleeps = 0;        // adaptive: timed sleeps before a predicted arrival
  std::uint64_t mode_switches = 0;       // adaptive: changes between spin, sleep and block
  std::uint64_t recheck_found_work = 0;  // adaptive: rechecks after arming that found work
  // adaptive: what the poller has learned (AdaptivePoller::mean_gap, gap_deviation, spin_window).
  Duration mean_gap{};       // EWMA of the gap between polls that found work
  Duration gap_deviation{};  // EWMA of its absolute deviation; the sleep guard grows with it
  Duration spin_window{};    // spin before blocking when arrivals are not predictable

  // getrusage(RUSAGE_SELF): the whole process, every thread.
  Duration cpu_user{};                     // ru_utime
  Duration cpu_system{};                   // ru_stime
  std::uint64_t voluntary_switches = 0;    // ru_nvcsw: the process gave up the CPU (slept)
  std::uint64_t involuntary_switches = 0;  // ru_nivcsw: the scheduler took the CPU away

  std::uint64_t rejected_total() const;
};

// One line: `label elapsed_s=... messages=... rejected_total=N (reason=n ...) wakeups=... ...`.
std::string format_text(const ServerStats& s, std::string_view label);
// One JSON object on one line, with "event": label; durations in seconds with ns precision.
std::string format_json(const ServerStats& s, std::string_view label);

}  // namespace irqmod::rt
