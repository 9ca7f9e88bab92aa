// Threaded NAPI (napi.threaded, dev_set_threaded): the context's kernel thread
// ("napi/<dev>-<id>", napi_threaded_poll). Woken by a schedule, it polls while the context is its
// own (SCHED_THREADED), giving the core away between full-budget polls when the scheduler wants
// it (cond_resched), and sleeps once a poll completed and nothing scheduled it again.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "sim/cpu/core.hpp"

namespace irqmod::sim {

class NapiInstance;

// How to place the thread.
struct NapiThreadSettings {
  bool enabled = false;               // napi.threaded
  std::optional<std::uint32_t> core;  // napi.thread-core; none = the core of the device's interrupt
};

// What a NAPI thread did, for the report.
struct NapiThreadStats {
  std::uint64_t wakeups = 0;  // wake_up_process calls that woke it from sleep
  std::uint64_t polls = 0;    // polls it ran (__napi_poll in napi_threaded_poll_loop)
  std::uint64_t yields = 0;   // cond_resched calls that gave the core to another thread
};

class NapiThread {
 public:
  // napi_kthread_create: kthread_run(napi_threaded_poll, ...), a SCHED_NORMAL kernel thread of
  // `core`. `wakeup` and `context_switch`: cpu.wakeup and cpu.context-switch, charged in place of
  // the softirq's entry (which the model does not charge).
  NapiThread(NapiInstance& owner, Core& core, Distribution wakeup, Distribution context_switch);
  NapiThread(const NapiThread&) = delete;
  NapiThread& operator=(const NapiThread&) = delete;

  // ____napi_schedule with NAPI_STATE_THREADED: SCHED_THREADED is set and the thread woken; a
  // thread that is running or runnable sees the bit when it next checks.
  void wake();

  std::uint32_t core() const { return core_.index(); }
  const NapiThreadStats& stats() const { return stats_; }

  // The thread as a job of its core.
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);
  bool yields() const { return yielded_; }

 private:
  NapiInstance& owner_;
  Core& core_;
  Distribution wakeup_;
  Distribution context_switch_;
  std::uint32_t thread_ = 0;  // its number among its core's threads
  bool polling_ = false;      // its poll is running (between poll_begin and poll_end)
  bool yielded_ = false;      // it gave the core away at cond_resched, still runnable
  NapiThreadStats stats_{};
};

}  // namespace irqmod::sim
