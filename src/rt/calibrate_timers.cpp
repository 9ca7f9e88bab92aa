// Measurements of the CPU's clock-event device (calibrate.hpp): what arming and cancelling an
// hrtimer that is the CPU's earliest costs, and what a timer interrupt takes from the thread it
// interrupts; and the kernel's tick rate.
#include <sched.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "calibrate_common.hpp"
#include "irqmod/rt/calibrate.hpp"

namespace irqmod::rt::calibrate {
namespace {

using detail::Fd;
using detail::now_ns;
using detail::system_error;
using detail::thread_cpu_ns;

// How far ahead the timers are armed: 200 us, sooner than any tick (1/HZ is 1-10 ms), and 10 s,
// behind every tick.
constexpr std::int64_t kSoonNs = 200'000;
constexpr std::int64_t kFarNs = 10'000'000'000;
// The gap measurement: the timer 50 us after arming, the spin 150 us from the arming's end.
constexpr std::int64_t kExpiryNs = 50'000;
constexpr std::int64_t kSpinNs = 150'000;
// The own-timer wake-up: the timer 100 us ahead (the idle of calibrate's other-CPU wake-up, so
// that the two are taken after the same idle); the ready call's timer 1 us ahead, expired after
// a 20 us spin.
constexpr std::int64_t kOwnWakeNs = 100'000;
constexpr std::int64_t kExpiredNs = 1'000;
constexpr std::int64_t kExpireSpinNs = 20'000;

// The calling thread on the CPU it is on, until the scope ends (its affinity restored then).
class PinHere {
 public:
  PinHere() {
    if (::sched_getaffinity(0, sizeof previous_, &previous_) != 0) return;
    const int cpu = ::sched_getcpu();
    if (cpu < 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = ::sched_setaffinity(0, sizeof one, &one) == 0;
  }
  PinHere(const PinHere&) = delete;
  PinHere& operator=(const PinHere&) = delete;
  ~PinHere() {
    if (pinned_) ::sched_setaffinity(0, sizeof previous_, &previous_);
  }

 private:
  cpu_set_t previous_{};
  bool pinned_ = false;
};

itimerspec relative(std::int64_t ns) {
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return spec;
}

// The largest gap between two clock reads of a spin lasting `ns`.
std::int64_t largest_gap(std::int64_t ns) {
  const std::int64_t start = now_ns();
  std::int64_t previous = start;
  std::int64_t largest = 0;
  while (previous - start < ns) {
    const std::int64_t t = now_ns();
    largest = std::max(largest, t - previous);
    previous = t;
  }
  return largest;
}

}  // namespace

Expected<TimerProgramming> timer_programming(const Budget& budget) {
  const Fd timer(::timerfd_create(CLOCK_MONOTONIC, 0));
  if (!timer.ok()) return system_error("timerfd_create");
  const PinHere pin;
  const double clock = detail::clock_cost_ns();
  const itimerspec off{};
  TimerProgramming out;
  // One pair (arm, cancel) of each distance in turn; kinds 0 and 1 are the soon and the far one.
  const detail::Blocks blocks{8, 1};
  bool failed = false;
  detail::in_blocks(budget, 2, blocks, [&](std::size_t kind, bool keep) {
    const itimerspec when = relative(kind == 0 ? kSoonNs : kFarNs);
    const std::int64_t t0 = now_ns();
    const int armed = ::timerfd_settime(timer.get(), 0, &when, nullptr);
    const std::int64_t t1 = now_ns();
    const int cancelled = ::timerfd_settime(timer.get(), 0, &off, nullptr);
    const std::int64_t t2 = now_ns();
    if (armed != 0 || cancelled != 0) {
      failed = true;
      return false;
    }
    if (keep) {
      (kind == 0 ? out.arm_soon : out.arm_far).push_back(detail::per_call(t0, t1, clock, 1));
      (kind == 0 ? out.cancel_soon : out.cancel_far).push_back(detail::per_call(t1, t2, clock, 1));
    }
    return true;
  });
  if (failed) return system_error("timerfd_settime");
  if (out.arm_soon.empty()) return Error{"", "no sample within the time budget"};
  return out;
}

Expected<TimerInterruptGaps> timer_interrupt_gaps(const Budget& budget) {
  const Fd timer(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK));
  if (!timer.ok()) return system_error("timerfd_create");
  const PinHere pin;
  const itimerspec when = relative(kExpiryNs);
  TimerInterruptGaps out;
  bool failed = false;
  detail::in_blocks(budget, 2, detail::Blocks{4, 1}, [&](std::size_t kind, bool keep) {
    if (kind == 0 && ::timerfd_settime(timer.get(), 0, &when, nullptr) != 0) {
      failed = true;
      return false;
    }
    const std::int64_t gap = largest_gap(kSpinNs);
    if (kind == 0) {
      std::uint64_t expirations = 0;
      // Expired by now (150 us after a 50 us timer); the read only clears it.
      (void)!::read(timer.get(), &expirations, sizeof expirations);
    }
    if (keep) (kind == 0 ? out.with_timer : out.without).push_back(gap);
    return true;
  });
  if (failed) return system_error("timerfd_settime");
  if (out.with_timer.empty()) return Error{"", "no sample within the time budget"};
  return out;
}

Expected<HostNoise> host_noise(const Budget& budget) {
  std::vector<int> cpus;
  for (int nth = 0; nth < kNoiseCpus; ++nth) {
    const int cpu = allowed_cpu(nth);
    if (cpu < 0) break;
    cpus.push_back(cpu);
  }
  if (cpus.empty()) return Error{"", "no CPU to spin on (sched_getaffinity)"};
  struct Spin {
    Samples lengths;
    Samples long_lengths;
    Samples intervals;
    Samples long_intervals;
    std::int64_t spun = 0;
    bool pinned = false;
  };
  std::vector<Spin> spins(cpus.size());
  const std::int64_t floor = kNoiseFloor.count();
  const std::int64_t split = kNoiseSplit.count();
  const std::int64_t length = budget.time.count();
  const std::size_t most = budget.samples;
  {
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads.emplace_back([&, i] {
        Spin& spin = spins[i];
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[i], &one);
        spin.pinned = ::sched_setaffinity(0, sizeof one, &one) == 0;
        if (!spin.pinned) return;
        const std::int64_t start = now_ns();
        std::int64_t previous = start;
        std::int64_t last = -1;  // the last event's start, of each kind
        std::int64_t last_long = -1;
        while (previous - start < length && spin.lengths.size() + spin.long_lengths.size() < most) {
          const std::int64_t t = now_ns();
          const std::int64_t gap = t - previous;
          if (gap > split) {
            spin.long_lengths.push_back(gap);
            if (last_long >= 0) spin.long_intervals.push_back(previous - last_long);
            last_long = previous;
          } else if (gap > floor) {
            spin.lengths.push_back(gap);
            if (last >= 0) spin.intervals.push_back(previous - last);
            last = previous;
          }
          previous = t;
        }
        spin.spun = previous - start;
      });
    }
    for (std::thread& thread : threads)
      thread.join();
  }
  HostNoise out;
  for (Spin& spin : spins) {
    if (!spin.pinned) return Error{"", "sched_setaffinity to one CPU failed"};
    out.lengths.insert(out.lengths.end(), spin.lengths.begin(), spin.lengths.end());
    out.long_lengths.insert(out.long_lengths.end(), spin.long_lengths.begin(),
                            spin.long_lengths.end());
    out.intervals.insert(out.intervals.end(), spin.intervals.begin(), spin.intervals.end());
    out.long_intervals.insert(out.long_intervals.end(), spin.long_intervals.begin(),
                              spin.long_intervals.end());
    out.spun.push_back(spin.spun);
  }
  return out;
}

Expected<OwnTimerWakeups> own_timer_wakeups(const Budget& budget) {
  const Fd timer(::timerfd_create(CLOCK_MONOTONIC, 0));
  if (!timer.ok()) return system_error("timerfd_create");
  const Fd epoll(::epoll_create1(0));
  if (!epoll.ok()) return system_error("epoll_create1");
  epoll_event watch{};
  watch.events = EPOLLIN;
  if (::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, timer.get(), &watch) != 0)
    return system_error("epoll_ctl");
  const PinHere pin;
  OwnTimerWakeups out;
  bool failed = false;
  // Kind 0 blocks until the timer fires; kind 1 finds it expired.
  detail::in_blocks(budget, 2, detail::Blocks{4, 1}, [&](std::size_t kind, bool keep) {
    const itimerspec when = relative(kind == 0 ? kOwnWakeNs : kExpiredNs);
    if (::timerfd_settime(timer.get(), 0, &when, nullptr) != 0) {
      failed = true;
      return false;
    }
    if (kind == 1) (void)largest_gap(kExpireSpinNs);
    epoll_event ready{};
    const std::int64_t before = thread_cpu_ns();
    const int n = ::epoll_wait(epoll.get(), &ready, 1, -1);
    const std::int64_t after = thread_cpu_ns();
    std::uint64_t expirations = 0;
    if (n != 1 || ::read(timer.get(), &expirations, sizeof expirations) < 0) {
      failed = true;
      return false;
    }
    if (keep) (kind == 0 ? out.blocked : out.ready).push_back(after - before);
    return true;
  });
  if (failed) return system_error("epoll_wait on a timerfd");
  if (out.blocked.empty()) return Error{"", "no sample within the time budget"};
  return out;
}

Expected<int> kernel_hz() {
  const auto hz_in = [](std::istream& in) -> int {
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("CONFIG_HZ=", 0) == 0) return std::atoi(line.c_str() + 10);
    }
    return 0;
  };
  if (std::FILE* pipe = ::popen("zcat /proc/config.gz 2>/dev/null", "r")) {
    std::string text;
    char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;)
      text.append(chunk, n);
    ::pclose(pipe);
    std::istringstream in(text);
    if (const int hz = hz_in(in); hz > 0) return hz;
  }
  utsname name{};
  const std::string boot =
      ::uname(&name) == 0 ? std::string("/boot/config-") + name.release : "/boot/config-RELEASE";
  std::ifstream in(boot);
  if (const int hz = hz_in(in); hz > 0) return hz;
  return Error{"", "no CONFIG_HZ in /proc/config.gz or " + boot};
}

}  // namespace irqmod::rt::calibrate
