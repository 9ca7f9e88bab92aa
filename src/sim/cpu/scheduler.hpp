// The fair scheduler of one core's threads (application threads and ksoftirqd, all SCHED_NORMAL
// nice 0): EEVDF as Linux runs it since 6.6 (kernel/sched/fair.c), reduced to equal weights.
//
// Each runnable thread has a virtual runtime v (its CPU time, all weights being equal) and a
// virtual deadline d = v + slice. V is the average v of the runnable threads; a thread is
// eligible when v <= V. The scheduler runs the eligible thread with the earliest deadline
// (pick_eevdf), but lets the current one finish its slice (RUN_TO_PARITY): a woken thread does
// not preempt a thread in the middle of its slice, it waits for the slice to end. A thread that
// sleeps keeps its lag (V - v, bounded by two slices) and is placed back at V - lag (PLACE_LAG),
// so sleeping earns no credit beyond what it was owed, unlike CFS's GENTLE_FAIR_SLEEPERS.
//
// Not modelled: nice values and weights, cgroups, the tick's granularity (a slice ends exactly
// when it is used up, as with HRTICK), PLACE_DEADLINE_INITIAL, migration between cores.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/time.hpp"

namespace irqmod::sim {

// sysctl_sched_base_slice: 0.70 ms since 2ae891b82695 (Linux 6.15, backported to 6.6.y; 0.75 ms
// before), scaled like every scheduler tunable by 1 + ilog2(min(online CPUs, 8))
// (SCHED_TUNABLESCALING_LOG, get_update_sysctl_factor()).
inline constexpr Duration kBaseSlice = microseconds(700);
Duration kernel_slice(std::uint32_t cores);

class FairScheduler {
 public:
  explicit FairScheduler(Duration slice) : slice_(slice) {}

  // A new thread, not runnable. Threads are numbered in the order they are added.
  std::uint32_t add();

  // The thread becomes runnable: placed at V - its lag, with a fresh deadline.
  void wake(std::uint32_t thread);
  // The thread stops being runnable (blocks); its lag is kept for its next wake-up.
  void block(std::uint32_t thread);
  // The thread ran for `d`: its virtual runtime grows by it.
  void ran(std::uint32_t thread, Duration d);

  // The thread to run now, given the one running (`current`, if any): `current` while it is
  // runnable, eligible and within its slice; else the eligible thread with the earliest
  // deadline (ties: the lower number). None when nothing is runnable.
  std::optional<std::uint32_t> pick(std::optional<std::uint32_t> current) const;

  // `thread` starts running (set_next_entity): RUN_TO_PARITY protects the slice it was picked
  // for, and only that one.
  void picked(std::uint32_t thread) {
    threads_[thread].protected_deadline = threads_[thread].deadline;
  }

  // The running thread has used its slice: a new deadline (update_deadline).
  bool slice_used(std::uint32_t thread) const;
  void renew(std::uint32_t thread);
  // Virtual time left in the thread's slice (0 when used up).
  Duration slice_left(std::uint32_t thread) const;

  bool runnable(std::uint32_t thread) const { return threads_[thread].runnable; }
  std::size_t runnable_count() const { return runnable_; }
  std::int64_t vruntime(std::uint32_t thread) const { return threads_[thread].vruntime; }
  std::int64_t deadline(std::uint32_t thread) const { return threads_[thread].deadline; }
  Duration slice() const { return slice_; }
  // V: the average virtual runtime of the runnable threads (0 when none).
  std::int64_t average_vruntime() const;

 private:
  struct Thread {
    bool runnable = false;
    std::int64_t vruntime = 0;             // ns of CPU time, placed on wake-up
    std::int64_t deadline = 0;             // vruntime + slice when the slice began
    std::int64_t lag = 0;                  // V - vruntime when it last blocked
    std::int64_t protected_deadline = -1;  // its deadline when it was last picked
  };
  bool eligible(const Thread& t, std::int64_t average) const { return t.vruntime <= average; }

  Duration slice_;
  std::vector<Thread> threads_;
  std::size_t runnable_ = 0;
  std::int64_t last_average_ = 0;  // V when the last runnable thread blocked: where sleepers return
};

}  // namespace irqmod::sim
