// The narrow device interface: what NAPI needs from a device's driver, as the kernel's
// net/core/dev.c needs a napi_struct's poll function and nothing else. NapiInstance (the NAPI
// context with its scheduling, watchdog and thread) and BusyLoop (napi_busy_loop) drive every
// device through these bound functions, so deferral, busy polling and IRQ suspension are one
// code for every device, as in the kernel, where they live in net/core and not in drivers.
//
// The kernel's one call, napi->poll(napi, budget), is steps here, because a poll takes CPU time
// and things happen meanwhile: the poll begins (the driver takes what its rings hold and says
// what that costs), may go on in parts (a clean loop that sees frames written back while it
// works), returns its work, and after NAPI's completion (napi_complete_done) the device delivers
// the frames up the stack and does its tail (re-enable the interrupt, write a new ITR, ...).
//
// A device provides a DeviceOps table (one per device type, static) and binds it to itself; no
// virtual call, no allocation.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "irqmod/time.hpp"
#include "sim/cpu/core.hpp"

namespace irqmod::sim {

// Who polls, which decides what the poll is charged: a softirq poll (NET_RX, a NAPI thread, or
// the interrupt handler with napi.poll-in-irq) pays the poll call's fixed part and may clean in
// rounds; a busy-loop turn is paid by the loop's iteration (cpu.busy-poll-iteration) and takes
// what is there; busy_poll_stop's final poll pays the fixed part and takes what is there.
enum class PollKind : std::uint8_t { softirq, busy, final };

// A poll's first part.
struct PollStart {
  Duration cost{};     // its CPU time
  bool empty = false;  // it found nothing to clean (no Rx frame, no Tx completion)
};

struct DeviceOps {
  // The device's rings are brought up to `now` (what arrived meanwhile is landed): a busy loop
  // does this before each iteration.
  void (*land)(void* self, Instant now);
  // When the device next has work for a poll (a frame written back); Instant::max() for none.
  Instant (*next_work)(const void* self);
  // The poll begins with `budget` on `core`.
  PollStart (*poll_begin)(void* self, int budget, Core& core, PollKind kind);
  // A part of a softirq poll ended: the CPU time of its next part, or none when it is done.
  std::optional<Duration> (*poll_more)(void* self, Core& core);
  // What the driver's poll returns to NAPI for the poll that ran, with `budget`, on `core`.
  int (*poll_return)(void* self, int budget, const Core& core);
  // napi_complete_done's flush: the poll's frames go up the stack from `core`.
  void (*deliver)(void* self, Core& core);
  // After NAPI's decision on the poll (`result`): the driver's tail.
  void (*completed)(void* self, const napi::PollResult& result, Core& core);
};

struct DeviceRef {
  const DeviceOps* ops = nullptr;
  void* self = nullptr;
};

// The DeviceOps of a type T with those member functions (land, next_work, poll_begin,
// poll_more, poll_return, deliver, completed).
template <typename T>
inline constexpr DeviceOps kDeviceOpsOf{
    [](void* self, Instant now) { static_cast<T*>(self)->land(now); },
    [](const void* self) { return static_cast<const T*>(self)->next_work(); },
    [](void* self, int budget, Core& core, PollKind kind) {
      return static_cast<T*>(self)->poll_begin(budget, core, kind);
    },
    [](void* self, Core& core) { return static_cast<T*>(self)->poll_more(core); },
    [](void* self, int budget, const Core& core) {
      return static_cast<T*>(self)->poll_return(budget, core);
    },
    [](void* self, Core& core) { static_cast<T*>(self)->deliver(core); },
    [](void* self, const napi::PollResult& result, Core& core) {
      static_cast<T*>(self)->completed(result, core);
    }};

template <typename T>
DeviceRef device_of(T& device) {
  return DeviceRef{&kDeviceOpsOf<T>, &device};
}

// Above the device: where a poll's frames go. Every device hands its frames to the host's stack
// through this endpoint (the stack implements it; no device includes the stack).
// The stack's work on a poll's frames, planned when the poll takes them.
struct StackWork {
  int tcp_skbs = 0;   // GRO skbs of TCP connections
  int acks = 0;       // TCP ACKs they make
  int forwarded = 0;  // frames routed out of the egress port
};

// The host's stack as the driver's clean sees it (bound functions of the stack).
struct RxStack {
  // A poll on `core` took `taken` frames, polled[first...]: the stack's work on them, planned
  // now. `planned` gathers the TCP connections with ACKs due at the poll's end.
  StackWork (*plan)(void* self, const Ring<Packet>& polled, std::size_t first, int taken,
                    std::uint32_t core, std::vector<std::uint32_t>& planned) = nullptr;
  // One frame of the poll's batch, cleaned by NAPI context `napi_id` on `core`.
  void (*receive)(void* self, const Packet& packet, std::uint32_t napi_id,
                  std::uint32_t core) = nullptr;
  // The batch is over: the planned ACKs go out, the sockets that got data wake.
  void (*end_batch)(void* self, std::vector<std::uint32_t>& planned) = nullptr;
  void* self = nullptr;
};

}  // namespace irqmod::sim
