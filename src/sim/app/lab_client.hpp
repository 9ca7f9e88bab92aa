// The lab's clients as threads of the same machine (issue 28 item 3): each runs on its own core
// with its own system calls and wake-ups, and its sends run the device's transmit on that core,
// so the receive path they trigger (veth's NAPI, loopback's backlog) is charged where the kernel
// runs it (docs/research/veth-loopback.md §3: inside the sender's sendmsg).
//
//   SockperfClient  sockperf ping-pong, as traced here (strace -c: one sendto and one blocking
//                   recvfrom per message, no poll): send, then recvfrom, asleep until the reply;
//                   --mps paces the sends by spinning in user space between them (0 = at once)
//   LoadClient      irqmod load (src/rt/load.cpp): open-loop Poisson requests on `connections`
//                   sockets in turn; one thread that never spins: epoll_pwait2 until the next
//                   send is due (a timer) or a reply comes; then every due send, then each ready
//                   socket read until it is empty
//
// Both record sockperf's latency, half the round trip, into the run's histogram: SockperfClient
// from before sendto to after recvfrom returned, LoadClient from before send to right after the
// epoll_pwait2 that saw the reply (load.cpp's `arrived`, read before the socket is read).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/hrtimer.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/stack.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

struct LabClientCosts {
  Distribution syscall{};         // cpu.syscall
  Distribution send{};            // cpu.tx-packet (or cpu.tcp-tx-packet): the send's stack work
  Distribution xmit{};            // the device's transmit (cpu.veth-xmit, cpu.backlog-enqueue)
  Distribution receive{};         // cpu.app-message (or cpu.tcp-app-message): a read's work
  Distribution wakeup{};          // cpu.wakeup
  Distribution context_switch{};  // cpu.context-switch
  Distribution epoll_wait{};      // cpu.epoll-wait (LoadClient)
  Distribution recv_empty{};      // cpu.recv-empty (LoadClient: the read that ends a drain)
  HrtimerCosts timers{};          // LoadClient's epoll_pwait2 timeout: lateness, programming, irq
};

// What a lab client did, for the report.
struct LabClientCounters {
  std::uint64_t sent = 0;      // requests sent
  std::uint64_t replies = 0;   // replies read
  std::uint64_t wakeups = 0;   // times it was woken from a sleep (a reply, or its timer)
  std::uint64_t timeouts = 0;  // LoadClient: epoll_pwait2 calls that ended by their timeout
};

// The client's socket(s) and where its frames go: flow i is socket i's connection.
struct LabClientSockets {
  std::vector<Socket*> sockets;  // by connection
  std::uint32_t first_flow = 0;  // connection i's flow is first_flow + i
  std::uint32_t frame_bytes = 0;
};

class SockperfClient {
 public:
  // `mps`: sockperf --mps (0 = max: the next request as soon as the reply is read).
  SockperfClient(World& world, Core& core, Stack& stack, LabClientSockets sockets,
                 std::uint64_t mps, LabClientCosts costs);
  SockperfClient(const SockperfClient&) = delete;
  SockperfClient& operator=(const SockperfClient&) = delete;

  // The first request at time 0.
  void start();
  const LabClientCounters& counters() const { return counters_; }

  // The thread as a job of its core.
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  enum class Phase : std::uint8_t { idle, pacing, sending, receiving, blocked, waking, reading };
  void on_data();
  std::optional<Segment> begin_send(Core& core);
  std::optional<Segment> read_or_block(Core& core);

  World& world_;
  Core& core_;
  Stack& stack_;
  LabClientSockets sockets_;
  Duration gap_;  // between sends; 0 = --mps=max
  LabClientCosts costs_;
  LabClientCounters counters_{};
  std::uint32_t thread_ = 0;
  Phase phase_ = Phase::idle;
  Instant sent_at_{};    // before the last sendto
  Instant next_send_{};  // its schedule
};

class LoadClient {
 public:
  // `rate`: requests/s of the Poisson process; `rng`: its gaps.
  LoadClient(World& world, Core& core, Stack& stack, LabClientSockets sockets, std::uint64_t rate,
             Rng rng, LabClientCosts costs);
  LoadClient(const LoadClient&) = delete;
  LoadClient& operator=(const LoadClient&) = delete;

  void start();
  const LabClientCounters& counters() const { return counters_; }
  // Requests sent and not answered.
  std::uint64_t outstanding() const { return counters_.sent - counters_.replies; }

  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  enum class Phase : std::uint8_t { idle, sending, polling, blocked, waking, reading };
  void on_data();
  void on_event(const Event& event);
  // The timeout's interrupt ended: the thread wakes to send.
  void wake_on_timer();
  std::optional<Segment> loop(Core& core);
  std::optional<Segment> read_ready(Core& core);
  bool any_ready() const;

  World& world_;
  Core& core_;
  Stack& stack_;
  LabClientSockets sockets_;
  double mean_gap_ns_;
  Rng rng_;
  LabClientCosts costs_;
  LabClientCounters counters_{};
  std::uint32_t thread_ = 0;
  Phase phase_ = Phase::idle;
  Instant next_send_{};
  Instant sending_since_{};  // the running send began (its sent_at)
  Instant arrived_{};        // the epoll_pwait2 that saw the replies returned
  std::uint32_t next_socket_ = 0;
  std::vector<std::uint32_t> reading_;  // messages to take from each socket in this read
  EndpointId endpoint_{};
  SlotId timer_{};
  Duration timer_irq_{};  // the pending timeout's interrupt, drawn when armed
  TimerInterrupt timer_irq_job_{[](void* self) { static_cast<LoadClient*>(self)->wake_on_timer(); },
                                this};
};

}  // namespace irqmod::sim
