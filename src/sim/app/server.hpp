// An application thread that receives on one socket: a sockperf-like server (it answers the
// messages of flows whose peer expects a reply) or a sink (it records how long each frame waited
// from its arrival). It waits in one of three ways:
//   recv           blocks in recv and is woken by the socket; busy-polls the socket's NAPI context
//                  first with net.core.busy_read (sk_busy_loop)
//   epoll          the same in epoll_wait with net.core.busy_poll, and prefer_busy_poll's IRQ
//                  suspension (napi_suspend_irqs / napi_resume_irqs); with Linux 6.13's rule
//                  (napi.epoll-prefer-busy-loop) prefer_busy_poll alone busy-polls, one
//                  iteration when busy_poll is 0
//   adaptive-poll  the library's adaptive_poll::AdaptivePoller, as irqmod serve --mode adaptive
//                  runs it: spin on the socket in user space (non-blocking recv, charged as thread
//                  time), sleep on a timer until a predicted arrival, or block after re-checking;
//                  it learns the gaps from the frames' arrival times (the kernel timestamps)
//   spin           non-blocking recvs in a loop (irqmod serve --mode busy): the thread never
//                  sleeps and takes a message as soon as it is queued
//
// Costs: wakeup + context-switch when woken; per message syscall + app-message, and for a reply
// syscall + tx-packet more (+ a software device's xmit); with epoll, epoll-wait per epoll_wait
// that returns events and recv-empty for the recv that finds the drained socket empty.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/policy/adaptive_poll.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/hrtimer.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/stack.hpp"
#include "sim/napi/busy_loop.hpp"
#include "sim/napi/instance.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

struct ApplicationCosts {
  Distribution syscall{};         // cpu.syscall
  Distribution app_message{};     // cpu.app-message
  Distribution tx_packet{};       // cpu.tx-packet
  Distribution wakeup{};          // cpu.wakeup
  Distribution context_switch{};  // cpu.context-switch
  Distribution epoll_wait{};      // cpu.epoll-wait: each epoll_wait that returns events (epoll)
  Distribution recv_empty{};      // cpu.recv-empty: the recv that ends a drain (epoll, spin)
  Distribution xmit{};            // a software device's transmit per reply (cpu.veth-xmit, ...)
};

// The adaptive poller as `irqmod serve --mode adaptive` configures it with no flags
// (tools/irqmod/cmd_serve.cpp): Seastar's 200 us spin window; the longest gap it sleeps across
// 2000 us on a guest, 200 us on bare metal (rt::host_max_predicted_gap: `hypervisor`, the
// platform's cpu.hypervisor); and as its wake-up cost the 90th percentile lateness of timed
// sleeps of kServeSleepSample, which serve measures at start (rt::measure_timed_sleep_overshoot).
// The platform's cpu.hrtimer-late was measured on sleeps of kCalibrateSleepSample (irqmod
// calibrate), so its p90 is carried to serve's longer sleep by what the idle curve
// (cpu.wakeup-idle, `idle`) adds between the two idles. A platform whose timers fire on time (0)
// leaves the cost of the wake-up itself, `wakeup`.
inline constexpr Duration kServeSleepSample =
    microseconds(500);  // cmd_serve.cpp kWakeupSampleSleep
inline constexpr Duration kCalibrateSleepSample = microseconds(50);  // calibrate's hrtimer-50us
adaptive_poll::Config serve_adaptive_config(const Distribution& hrtimer_late, const IdleExit& idle,
                                            bool hypervisor, Duration wakeup);

class Application {
 public:
  // How the thread waits: blocking recv (busy_read applies), epoll_wait (busy_poll applies), the
  // adaptive controller, or a loop of non-blocking recvs that never sleeps (spin).
  enum class Wait : std::uint8_t { recv, epoll, adaptive_poll, spin };

  // `napis`: the NAPI instances by NAPI id - 1 (the socket's last one is busy-polled).
  Application(World& world, Core& core, Socket& socket, std::vector<NapiInstance*> napis,
              Stack& stack, const Peers& peers, Wait wait, BusyPollSettings busy,
              ApplicationCosts costs);
  Application(const Application&) = delete;
  Application& operator=(const Application&) = delete;

  // The socket carries a TCP stream: one recv takes everything queued, charged cpu.syscall and
  // cpu.app-message once and `copy_kb` per KiB of payload (netperf's recv of a large buffer).
  void set_stream(Distribution copy_kb) {
    stream_ = true;
    copy_kb_ = copy_kb;
  }

  // Wait::adaptive_poll: the poller's configuration (serve_adaptive_config), replacing the
  // library's defaults with the constructor's wake-up cost. Call before the run starts.
  void set_adaptive(const adaptive_poll::Config& config) {
    if (poller_) poller_.emplace(config);
  }

  // epoll_wait with a timeout (irqmod serve --epoll-timeout): a wait that finds nothing returns
  // after `timeout` (an hrtimer: `timers` says how late and what it costs, also for the adaptive
  // controller's sleeps) and the thread polls again. Zero: no timeout.
  // Wait::epoll with SO_BUSY_POLL on the socket (irqmod serve --mode kernel-busy-poll sets it to
  // its busy_poll_usecs, as napi.busy_read): the drain's recv that finds the UDP socket empty
  // runs one iteration of sk_busy_loop (non-blocking: no loop end test, one turn, then
  // busy_poll_stop), and returns what it polled in. `recv`'s usecs must be 0 (one iteration).
  void set_recv_busy_poll(const BusyPollSettings& recv) { recv_busy_.emplace(recv); }
  // Times the thread was woken from a sleep (blocked in recv or epoll_wait, in a timed sleep, or
  // in a sendto waiting for buffer space): each ends one voluntary context switch, what
  // /proc/PID/status counts as voluntary_ctxt_switches.
  std::uint64_t wakeups() const { return wakeups_; }

  void set_epoll_timeout(Duration timeout, const HrtimerCosts& timers) {
    epoll_timeout_ = timeout;
    timers_ = timers;
    if (timeout > Duration::zero() && !sleep_timer_armable_) bind_timer();
  }

  // The socket has data (its Waiter).
  void on_data();
  // The sleep's hrtimer expired (its interrupt ended): the thread wakes to poll again.
  void wake_on_timer();
  // Sleeps until `due` on the hrtimer (armed now on this core).
  void sleep_until(Instant due);
  // The socket's send buffer has room again (its send Waiter).
  void on_writable();

  // The thread as a job of its core.
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  enum class Phase : std::uint8_t {
    blocked,       // asleep in recv / epoll_wait
    sleeping,      // asleep on the adaptive controller's timer (or until data comes)
    waking,        // wakeup + context switch
    consuming,     // taking the queued messages
    busy_poll,     // in the busy loop, final poll included
    resuming,      // in epoll_wait after napi_resume_irqs: its softirq runs, then a last look
    recv_busy,     // the drain's recv on an empty socket, in sk_busy_loop's one iteration
    spinning,      // the adaptive controller spins on the socket in user space
    send_blocked,  // in sendto, waiting for the send buffer (Tx completions to free it)
  };

  // `via_epoll`: the messages are epoll_wait's events (false: the drain's recv polled them in).
  std::optional<Segment> receive(Core& core, bool via_epoll = true);
  // The drain is over: its last recv busy-polls (set_recv_busy_poll), else the wait goes on.
  std::optional<Segment> after_drain(Core& core);
  std::optional<Segment> adaptive_idle(Core& core);
  void on_event(const Event& event);
  std::optional<Segment> after_busy_loop(Core& core);
  // The thread goes to sleep in recv / epoll_wait (with epoll's timeout when it has one).
  std::optional<Segment> block();
  void bind_timer();
  // The cost of the batch's next segment (from the socket's head: message_cost's comment) and
  // the taking of one message at its end.
  Duration message_cost(Core& core);
  void take_message();
  void finish_consuming();
  // Sends the replies waiting for the send buffer; false when it is full again.
  bool flush_replies();
  static Segment thread_segment(Duration length) {
    return Segment{length, ContextKind::thread, "application"};
  }

  World& world_;
  Core& core_;
  Socket& socket_;
  std::vector<NapiInstance*> napis_;
  Stack& stack_;
  const Peers& peers_;
  Wait wait_;
  BusyLoop busy_;
  std::optional<BusyLoop> recv_busy_;  // set_recv_busy_poll
  std::uint64_t wakeups_ = 0;
  // ep->napi_id dropped: epoll's busy loop timed out with no event (ep_busy_loop), and epoll_wait
  // does not busy-poll again until it returns an event (ep_send_events sets it back).
  bool ep_napi_dropped_ = false;
  ApplicationCosts costs_;
  bool stream_ = false;  // set_stream
  Distribution copy_kb_{};
  Phase phase_ = Phase::blocked;
  std::optional<adaptive_poll::AdaptivePoller> poller_;  // Wait::adaptive_poll
  std::optional<adaptive_poll::InterruptEntry> entry_;   // its interrupt mode, while blocked
  Instant idle_since_{};                                 // the socket has been empty since
  bool idle_ = false;
  EndpointId endpoint_{};
  SlotId sleep_timer_{};
  bool sleep_timer_armable_ = false;  // endpoint_ and sleep_timer_ are bound
  Duration epoll_timeout_{};          // 0: none
  HrtimerCosts timers_{};             // the sleep's hrtimer
  Instant sleep_due_{};               // the sleep's expiry, while sleeping
  Duration sleep_irq_{};              // its timer interrupt, drawn when armed
  TimerInterrupt sleep_irq_job_{
      [](void* self) { static_cast<Application*>(self)->wake_on_timer(); }, this};
  std::uint32_t thread_ = 0;            // this thread among its core's
  std::uint32_t consuming_ = 0;         // messages the thread is taking now (the batch)
  std::uint32_t consumed_ = 0;          // of them, taken
  std::uint32_t segment_messages_ = 0;  // of them, taken at the end of the running segment
  bool drain_ends_ = false;             // the batch's last recv is followed by one that finds none
  std::int64_t last_arrival_ns_ = 0;    // the last taken message's arrival
  Ring<Packet> unsent_;                 // replies whose sendto waits for the send buffer
};

}  // namespace irqmod::sim
