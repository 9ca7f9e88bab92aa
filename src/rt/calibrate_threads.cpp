// Measurements with two threads or a sleep (calibrate.hpp): a yield between two threads on one
// CPU, the latency of waking a thread blocked in an eventfd read (same or other CPU, after a
// short or a long idle), and how late a short clock_nanosleep returns.
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

#include "calibrate_common.hpp"
#include "irqmod/rt/calibrate.hpp"

namespace irqmod::rt::calibrate {
namespace {

using detail::Fd;
using detail::now_ns;
using detail::system_error;
using detail::thread_cpu_ns;

// Up to this idle the waker spins (a sleep's own wake-up would be what is waited for); above it
// it sleeps, so its CPU may halt as well.
constexpr Duration kLongestSpin = microseconds(100);

bool pin_thread(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return ::pthread_setaffinity_np(thread, sizeof set, &set) == 0;
}

// An eventfd read that retries when a signal interrupts it.
bool take(int fd) {
  eventfd_t value = 0;
  for (;;) {
    if (::eventfd_read(fd, &value) == 0) return true;
    if (errno != EINTR) return false;
  }
}

void sleep_for(Duration d) {
  timespec left{static_cast<time_t>(d.count() / 1'000'000'000),
                static_cast<long>(d.count() % 1'000'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, 0, &left, &left) == EINTR) {
  }
}

void spin_for(Duration d) {
  const std::int64_t until = now_ns() + d.count();
  while (now_ns() < until) {
  }
}

// A partner thread, joined at scope exit after `release` has run.
class Partner {
 public:
  template <typename Body, typename Release>
  Partner(Body body, Release release) : thread_(std::move(body)), release_(std::move(release)) {}
  Partner(const Partner&) = delete;
  Partner& operator=(const Partner&) = delete;
  ~Partner() {
    release_();
    thread_.join();
  }

 private:
  std::thread thread_;
  std::function<void()> release_;
};

}  // namespace

Expected<Samples> yield_switch(const Budget& budget, double* switched) {
  const CpuPin pin(0);
  if (pin.error()) return *pin.error();
  std::atomic<bool> stop{false};
  std::atomic<bool> pinned{true};
  std::atomic<std::int64_t> partner_yields{0};
  const int cpu = pin.cpu();
  Samples samples;
  std::int64_t partner_before = 0;
  std::int64_t partner_after = 0;
  {
    const Partner partner(
        [&] {
          if (!pin_thread(::pthread_self(), cpu)) {
            pinned.store(false);
            return;
          }
          while (!stop.load(std::memory_order_relaxed)) {
            ::sched_yield();
            partner_yields.fetch_add(1, std::memory_order_relaxed);
          }
        },
        [&] { stop.store(true); });
    // The partner pins itself and starts yielding; warm up meanwhile.
    for (std::size_t i = 0; i < detail::warm_up_count(budget) ||
                            (partner_yields.load() == 0 && pinned.load() && i < 100'000);
         ++i)
      ::sched_yield();
    if (!pinned.load())
      return Error{"", "pinning the partner thread to CPU " + std::to_string(cpu) + " failed"};
    const double clock = detail::clock_cost_ns();
    partner_before = partner_yields.load();
    for (const detail::Limits limits(budget); limits.more(samples.size());) {
      const std::int64_t start = now_ns();
      ::sched_yield();
      const std::int64_t end = now_ns();
      // The interval holds this thread's yield and switch and the partner's.
      samples.push_back(detail::per_call(start, end, clock, 2));
    }
    partner_after = partner_yields.load();
  }
  if (samples.empty()) return Error{"", "no sample within the time budget"};
  if (switched)
    *switched =
        static_cast<double>(partner_after - partner_before) / static_cast<double>(samples.size());
  return samples;
}

namespace {

// wakeup_latencies' rounds; with `send`, also the waker's eventfd_write's own duration and,
// beside each, one on an eventfd nobody waits on, and the wakee's CPU time across its blocking
// read (wakeup_send).
//
// On the other CPU an idle is counted from the wakee's block (the time it writes just before its
// read), and the waker spins meanwhile (or, past kLongestSpin, sleeps), watching for the wakee's
// return instead of blocking on a reply: a waker that blocked would itself be woken late and
// find the wakee idle for that long already, so no idle under ~20 us could be measured. On the
// same CPU the wakee runs only once the waker blocks, so the waker waits in a read of its reply.
Expected<std::vector<Samples>> wake_rounds(const Budget& budget, WakeCore core,
                                           const std::vector<Duration>& idles, WakeSend* send) {
  if (idles.empty()) return std::vector<Samples>{};
  const int other_cpu = allowed_cpu(1);  // before pinning, which leaves one
  const CpuPin pin(0);
  if (pin.error()) return *pin.error();
  const bool same = core == WakeCore::same;
  const int partner_cpu = same ? pin.cpu() : other_cpu;
  if (partner_cpu < 0)
    return Error{"", "waking a thread on another CPU needs two CPUs; this thread may use one"};
  const Fd ping(::eventfd(0, EFD_CLOEXEC));
  const Fd pong(::eventfd(0, EFD_CLOEXEC));
  const Fd lone(::eventfd(0, EFD_CLOEXEC));
  if (!ping.ok() || !pong.ok() || !lone.ok()) return system_error("eventfd");
  std::atomic<bool> stop{false};
  std::atomic<bool> failed{false};
  std::atomic<std::int64_t> woken_at{0};
  std::atomic<std::int64_t> woken_run{0};
  std::atomic<std::int64_t> blocked_at{0};
  std::atomic<std::uint64_t> blocks{0};  // reads begun (the round's wakee is about to block)
  std::atomic<std::uint64_t> wakes{0};   // reads returned, woken_at and woken_run stored
  std::vector<Samples> samples(idles.size());
  {
    const Partner partner(
        [&] {
          if (!pin_thread(::pthread_self(), partner_cpu)) failed.store(true);
          while (!failed.load()) {
            const std::int64_t cpu_before = thread_cpu_ns();
            blocked_at.store(now_ns());
            blocks.fetch_add(1);
            if (!take(ping.get())) {
              failed.store(true);
              break;
            }
            woken_at.store(now_ns());
            woken_run.store(thread_cpu_ns() - cpu_before);
            wakes.fetch_add(1);
            if (stop.load()) break;
            if (same && ::eventfd_write(pong.get(), 1) != 0) failed.store(true);
          }
          // Whatever happened, the main thread may be blocked on pong: release it.
          ::eventfd_write(pong.get(), 1);
        },
        [&] {
          stop.store(true);
          ::eventfd_write(ping.get(), 1);
        });
    const auto partner_failed = [&] {
      return Error{"", "the partner thread failed (pinning to CPU " + std::to_string(partner_cpu) +
                           ", or eventfd)"};
    };
    // Spins until `counter` passes `value`; false if the partner failed or a second went by.
    const auto await = [&](const std::atomic<std::uint64_t>& counter, std::uint64_t value) {
      const std::int64_t give_up = now_ns() + 1'000'000'000;
      while (counter.load() <= value) {
        if (failed.load() || now_ns() > give_up) return false;
      }
      return true;
    };
    const double clock = detail::clock_cost_ns();
    const std::size_t warm_up = std::min<std::size_t>(detail::warm_up_count(budget), 10);
    const detail::Limits limits(budget);
    std::uint64_t wakes_done = 0;
    for (std::size_t round = 0; limits.more(samples[0].size()); ++round)
      for (std::size_t i = 0; i < idles.size(); ++i) {
        if (same) {
          if (idles[i] > kLongestSpin)
            sleep_for(idles[i]);
          else if (idles[i] > Duration::zero())
            spin_for(idles[i]);
        } else {
          if (!await(blocks, wakes_done)) return partner_failed();
          if (idles[i] > kLongestSpin) {
            sleep_for(idles[i]);
          } else {
            const std::int64_t until = blocked_at.load() + idles[i].count();
            while (now_ns() < until) {
            }
          }
        }
        const std::int64_t start = now_ns();
        const int wrote = ::eventfd_write(ping.get(), 1);
        const std::int64_t written = now_ns();
        if (wrote != 0) return partner_failed();
        if (same ? !take(pong.get()) || failed.load() : !await(wakes, wakes_done))
          return partner_failed();
        ++wakes_done;
        if (round < warm_up) continue;
        samples[i].push_back(detail::per_call(start, woken_at.load(), clock, 1));
        if (send == nullptr) continue;
        const std::int64_t alone_start = now_ns();
        const int alone_wrote = ::eventfd_write(lone.get(), 1);
        const std::int64_t alone_end = now_ns();
        if (alone_wrote != 0 || !take(lone.get())) return system_error("eventfd");
        send->waking.push_back(detail::per_call(start, written, clock, 1));
        send->alone.push_back(detail::per_call(alone_start, alone_end, clock, 1));
        // The wakee stored its CPU time before counting its wake-up, which this thread has seen.
        send->woken_run.push_back(woken_run.load());
      }
  }
  if (samples[0].empty()) return Error{"", "no sample within the time budget"};
  return samples;
}

}  // namespace

Expected<std::vector<Samples>> wakeup_latencies(const Budget& budget, WakeCore core,
                                                const std::vector<Duration>& idles) {
  return wake_rounds(budget, core, idles, nullptr);
}

Expected<WakeSend> wakeup_send(const Budget& budget, Duration idle) {
  WakeSend out;
  auto latencies = wake_rounds(budget, WakeCore::other, {idle}, &out);
  if (!latencies) return latencies.error();
  return out;
}

Expected<Samples> wakeup_latency(const Budget& budget, WakeCore core, Duration idle) {
  auto samples = wakeup_latencies(budget, core, {idle});
  if (!samples) return samples.error();
  return std::move(samples.value()[0]);
}

Expected<Samples> hrtimer_lateness(const Budget& budget, Duration timeout) {
  const int previous = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if (previous < 0) return system_error("prctl(PR_GET_TIMERSLACK)");
  if (::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0)
    return system_error("prctl(PR_SET_TIMERSLACK)");
  const timespec request{static_cast<time_t>(timeout.count() / 1'000'000'000),
                         static_cast<long>(timeout.count() % 1'000'000'000)};
  const double clock = detail::clock_cost_ns();
  const std::size_t warm_up = std::min<std::size_t>(detail::warm_up_count(budget), 10);
  Samples samples;
  const detail::Limits limits(budget);
  for (std::size_t round = 0; limits.more(samples.size()); ++round) {
    const std::int64_t start = now_ns();
    // An interrupted sleep is not a sample.
    if (::clock_nanosleep(CLOCK_MONOTONIC, 0, &request, nullptr) != 0) continue;
    const std::int64_t end = now_ns();
    if (round >= warm_up)
      samples.push_back(detail::per_call(start, end, clock, 1) - timeout.count());
  }
  ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(previous), 0, 0, 0);
  if (samples.empty()) return Error{"", "no sample within the time budget"};
  return samples;
}

}  // namespace irqmod::rt::calibrate
