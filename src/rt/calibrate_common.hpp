// What the calibrate measurements share (calibrate.hpp): the clock, a sampling loop bounded by
// count and time, file descriptors and UDP sockets on loopback. Private to src/rt.
#pragma once

#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "fd.hpp"
#include "irqmod/error.hpp"
#include "irqmod/rt/calibrate.hpp"

namespace irqmod::rt::calibrate::detail {

using rt::detail::Fd;

inline std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The calling thread's own CPU time (CLOCK_THREAD_CPUTIME_ID).
inline std::int64_t thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// "what: <errno text>", for a system call that just failed.
inline Error system_error(const std::string& what) {
  return Error{"", what + ": " + std::strerror(errno)};
}

// The cost of one clock read, subtracted from every sample that brackets operations with two
// reads: the median of 9 means of 1000 back-to-back reads. A mean, because the clock advances in
// steps of about 10 ns on the development VM (its TSC is scaled), far coarser than a read.
double clock_cost_ns();

// A loop's limits: a sample count and an end time.
class Limits {
 public:
  explicit Limits(const Budget& budget)
      : samples_(budget.samples), end_ns_(now_ns() + budget.time.count()) {}
  // True while `taken` samples leave room for another and the time has not run out.
  bool more(std::size_t taken) const { return taken < samples_ && now_ns() < end_ns_; }
  std::size_t samples() const { return samples_; }

 private:
  std::size_t samples_;
  std::int64_t end_ns_;
};

// Untimed runs before sampling: caches, branch predictors and the socket's first allocations
// settle within a few dozen calls; the count is capped so a slow operation does not eat the
// budget.
inline std::size_t warm_up_count(const Budget& budget) {
  return std::min<std::size_t>(200, budget.samples / 10 + 1);
}

// Several kinds of sample taken in rounds of blocks: each round takes `block` consecutive
// samples of each kind in turn, after `settle` of that kind that are not kept (its caches warm
// up again after the others ran). The blocks keep each kind's samples warm, as a loop of one
// operation is; the rounds spread every kind over the whole run, so that a change of the
// machine's load touches all alike and differences between kinds hold.
struct Blocks {
  std::size_t block;
  std::size_t settle;
};

// Runs warm_up_count untimed samples of each kind, then rounds of blocks until `budget` ends
// (its `samples` counts each kind's kept samples). `sample(kind, keep)` takes one sample and
// returns false on failure; a kind that failed is not sampled again. Returns the rounds run.
template <typename Sample>
std::size_t in_blocks(const Budget& budget, std::size_t kinds, const Blocks& blocks,
                      Sample&& sample) {
  std::vector<bool> failed(kinds, false);
  for (std::size_t i = 0; i < warm_up_count(budget); ++i)
    for (std::size_t k = 0; k < kinds; ++k)
      failed[k] = failed[k] || !sample(k, false);
  std::size_t kept = 0;
  std::size_t rounds = 0;
  for (const Limits limits(budget); limits.more(kept); ++rounds) {
    const std::size_t block = std::min(blocks.block, budget.samples - kept);
    for (std::size_t k = 0; k < kinds; ++k)
      for (std::size_t i = 0; !failed[k] && i < blocks.settle + block; ++i)
        failed[k] = !sample(k, i >= blocks.settle);
    kept += block;
  }
  return rounds;
}

// Calls of a few hundred ns are timed in runs of this many, a sample being a run's mean: the
// clock's ~10 ns steps then cost under 1 ns of resolution.
inline constexpr int kCallsPerSample = 16;

// Nanoseconds per call of a run of `calls` timed from `start` to `end`, the clock's cost out.
inline std::int64_t per_call(std::int64_t start, std::int64_t end, double clock, int calls) {
  return std::llround((static_cast<double>(end - start) - clock) / calls);
}

// A UDP/IPv4 socket bound to `address` (host order; INADDR_LOOPBACK by default) on a port the
// kernel picks, in the network namespace the calling thread is in.
struct UdpSocket {
  Fd fd;
  sockaddr_in address{};  // where it is bound
};
Expected<UdpSocket> open_udp(bool non_blocking, std::uint32_t address = INADDR_LOOPBACK);

// The receive buffer raised to `bytes` (SO_RCVBUFFORCE as root, else SO_RCVBUF up to the
// sysctl's limit); failures are ignored, the caller sees them as drops.
void raise_receive_buffer(int fd, int bytes);

// Waits up to `timeout_ms` for `fd` to be readable; false on timeout or error.
bool wait_readable(int fd, int timeout_ms);

// How long a receive waits for its message to be queued: far above a loopback send, which
// queues it before returning unless the softirq was deferred to ksoftirqd.
constexpr int kArrivalTimeoutMs = 1000;

}  // namespace irqmod::rt::calibrate::detail
