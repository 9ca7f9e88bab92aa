// A thread's busy loop over one NAPI instance (__napi_busy_loop): from recv with
// net.core.busy_read (sk_busy_loop) or from epoll_wait with net.core.busy_poll (ep_busy_loop).
// Each iteration tries to own the context (busy_poll_acquire, with prefer_busy_poll's pledge) and
// polls it with the busy-poll budget; the loop ends when the socket has data or the time is up
// (in 1024 ns units, as busy_loop_timeout counts), and busy_poll_stop's final poll re-enables the
// interrupt. It reaches the device only through the instance (the narrow device interface).
//
// Iterations that find nothing while the context is ours change nothing: after the first, the
// loop jumps to the iteration at which the next frame is written back or the time is up, as one
// segment (the CPU time is the same; the events are not).
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/time.hpp"
#include "sim/cpu/core.hpp"
#include "sim/napi/instance.hpp"

namespace irqmod::sim {

struct BusyPollSettings {
  std::uint32_t usecs = 0;  // busy_read or busy_poll, us
  bool prefer = false;      // SO_PREFER_BUSY_POLL
  // Linux 6.13's ep_busy_loop_on (napi.epoll-prefer-busy-loop): prefer alone starts the loop.
  // Epoll only; false for recv, whose sk_busy_loop needs busy_read.
  bool prefer_starts_loop = false;
  int budget = 8;            // SO_BUSY_POLL_BUDGET
  Distribution iteration{};  // cpu.busy-poll-iteration: one turn of the loop
};

// Whether the busy-polling thread's socket has data, asked after each poll's delivery (an
// endpoint of the socket's owner: the loop knows no socket).
struct DataReady {
  bool (*ready)(const void* self) = nullptr;
  const void* self = nullptr;
  bool operator()() const { return ready(self); }
};

class BusyLoop {
 public:
  explicit BusyLoop(const BusyPollSettings& settings) : settings_(settings) {}

  // Starts a loop over `napi` on `core` now, for a socket that `ready` asks: the first
  // iteration.
  Segment begin(NapiInstance& napi, Core& core, DataReady ready);
  // The running segment ended. The next segment, or none when the loop is over (the socket has
  // data, which the poll may just have delivered, or the time is up).
  std::optional<Segment> next(Core& core);

  const BusyPollSettings& settings() const { return settings_; }

 private:
  Segment iteration(Core& core);

  BusyPollSettings settings_;
  NapiInstance* napi_ = nullptr;
  DataReady ready_{};
  bool owned_ = false;
  bool polled_ = false;  // this loop has polled the context at least once
  bool final_ = false;   // in busy_poll_stop's final poll
  Instant start_{};
};

}  // namespace irqmod::sim
