// The xdpsock sample's benchmarks (samples/bpf/xdpsock_user.c, as seed 002 ran them in May 2019)
// as one application thread: rxdrop, txpush (xdpsock's "txonly") and l2fwd, in batches of
// xdp.batch descriptors, waiting by xdp.method:
//
//   r-t-c     spins on the rings and makes no Rx system call; txpush and l2fwd kick Tx with
//             sendto() whenever frames are outstanding (complete_tx_*'s kick_tx). With
//             xdp.need-wakeup it calls recvfrom() when the fill ring's flag is set and nothing
//             was received (xdpsock since Linux 5.4).
//   poll      poll() at the top of every loop (xdpsock -p): xsk_poll schedules the NAPI context
//             when the driver set the fill ring's flag (the seed's fix), returns at once when
//             the ring has something, or sleeps until the driver's data_ready wakes it.
//   busypoll  the same poll() busy-polls the queue first (napi_busy_loop with
//             napi.busy_poll_budget, until busy_loop_end or napi.busy_read); in the seed's RFC
//             mode as the RFC's xdpsock (patch 7/7) does: poll() with a 0 timeout, looping,
//             and no sendto() kick; with xdp.busy-loop-end = "once" (mainline since 5.11)
//             sendto() kicks and busy-polls too, once.
//
// The thread is a job on its core (cpu.app-core): with one core, the softirq preempts it and
// the fair scheduler shares the core between it and ksoftirqd.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/napi/context.hpp"
#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/cpu/core.hpp"
#include "sim/xdp/xsk.hpp"
#include "sim/xdp/zc_queue.hpp"

namespace irqmod::sim {

class Xdpsock {
 public:
  struct Settings {
    XdpApp app = XdpApp::rxdrop;
    XdpMethod method = XdpMethod::rtc;
    bool need_wakeup = false;
    std::uint32_t batch = 64;
    std::uint32_t frames = 4096;  // UMEM frames txpush cycles through
    XdpLoopEnd loop_end = XdpLoopEnd::rx_empty_tx_full;
    std::uint32_t busy_usecs = 0;  // napi.busy_read
    int busy_budget = napi::kBusyPollBudget;
    bool prefer = false;  // napi.prefer_busy_poll
  };
  struct Costs {
    Distribution syscall;         // cpu.syscall
    Distribution context_switch;  // cpu.context-switch: back from sleep in poll()
    Distribution iteration;       // cpu.busy-poll-iteration
    Distribution per_frame;       // cpu.xsk-rx, cpu.xsk-tx or cpu.xsk-fwd
    Distribution cache_line;      // cpu.xsk-cache-line: a ring line the driver's core wrote
    Distribution poll_call;       // cpu.poll-call: poll()'s own work
    Distribution socket_call;     // cpu.socket-call: sendto()'s / recvfrom()'s dispatch
  };
  struct Counters {
    std::uint64_t received = 0;   // frames taken from the Rx ring
    std::uint64_t queued = 0;     // frames put on the Tx ring
    std::uint64_t completed = 0;  // completions taken back
    std::uint64_t syscalls = 0;
    std::uint64_t sleeps = 0;
  };

  Xdpsock(Core& core, Xsk& xsk, ZcQueue& queue, const Settings& settings, const Costs& costs);
  Xdpsock(const Xdpsock&) = delete;
  Xdpsock& operator=(const Xdpsock&) = delete;

  void start() { core_.wake(thread_); }
  const Counters& counters() const { return counters_; }
  // Frames the application holds between rings (l2fwd: completions not yet on the fill ring).
  std::uint64_t held() const { return held_; }
  // txpush: frames on their way (queued, not completed).
  std::uint64_t outstanding() const { return outstanding_; }

  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  enum class Step : std::uint8_t {
    poll_call,   // poll()'s entry ended: busy poll, the flag, the mask
    woken,       // back from sleeping in poll()
    busy,        // a busy-poll iteration ended
    busy_final,  // busy_poll_stop's final poll ended
    kick,        // sendto()'s entry ended: wake the driver (or busy-poll)
    recv_call,   // recvfrom() (need_wakeup) ended: wake the driver
    work,        // a batch's work ended: its frames move
    spin,        // spinning on the rings ended (the driver produced, or a quantum passed)
  };
  enum class After : std::uint8_t { poll, send };  // which system call a busy loop serves

  static void notify_thunk(void* self) { static_cast<Xdpsock*>(self)->notify(); }
  static bool asleep_thunk(const void* self) {
    return static_cast<const Xdpsock*>(self)->sleeping_;
  }
  void notify();
  std::optional<Segment> top(Core& core);
  Segment syscall(Step step, Core& core);
  std::optional<Segment> kick_or_work(Core& core);
  std::optional<Segment> work(Core& core);
  std::optional<Segment> wait(Core& core);
  std::optional<Segment> poll_result(Core& core);
  Segment begin_busy_loop(Core& core, After after);
  Segment busy_iteration(Core& core);
  std::optional<Segment> busy_next(Core& core);
  std::optional<Segment> after_loop(Core& core);
  bool has_event() const;
  bool rfc_busy_poll() const;
  Segment spin();

  Core& core_;
  Xsk& xsk_;
  ZcQueue& queue_;
  Settings settings_;
  Costs costs_;
  Counters counters_{};
  std::uint32_t thread_ = 0;
  Step step_ = Step::work;
  After after_ = After::poll;
  bool spinning_ = false;  // in a spin segment: the driver's notify ends it
  bool sleeping_ = false;  // asleep in poll(): the driver's notify wakes it
  bool woken_ = false;     // woken from poll(), not yet run
  bool owned_ = false;     // the busy loop owns the NAPI context
  bool polling_ = false;   // the running busy-poll iteration polls
  Instant busy_start_{};
  std::uint64_t batch_ = 0;        // the running batch's frames
  std::uint64_t held_ = 0;         // frames for the fill ring that did not fit yet
  std::uint64_t outstanding_ = 0;  // frames on the Tx ring or beyond, not yet completed
  std::uint64_t lines_ = 0;        // ring lines read from the driver's core, not yet charged
};

}  // namespace irqmod::sim
