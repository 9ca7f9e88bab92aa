// What `irqmod serve` probes on its host: the CPU it may pin to, sysctls, whether it runs
// virtualized (the adaptive loop's idle window), how late a timed sleep ends; and the check of a
// ServerConfig against this machine.
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "server_state.hpp"

namespace irqmod::rt {

std::string Server::State::errno_text(int err) {
  return std::strerror(err);
}

Error Server::State::sys_error(std::string key, const std::string& what, int err) {
  return Error{std::move(key), what + ": " + errno_text(err)};
}

std::optional<Error> Server::State::pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (rc != 0) return sys_error("--cpu", "cannot pin to CPU " + std::to_string(cpu), rc);
  return std::nullopt;
}

std::string Server::State::read_sysctl(const char* path) {
  std::ifstream in(path);
  std::string value;
  if (!(in >> value)) return "unreadable";
  return value;
}

bool host_is_virtualized(std::string* why) {
  bool virtualized = std::ifstream("/sys/hypervisor/type").good();
  std::string reason = virtualized ? "/sys/hypervisor/type exists" : "";
  if (!virtualized) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (!virtualized && std::getline(cpuinfo, line))
      if (line.rfind("flags", 0) == 0 && line.find(" hypervisor") != std::string::npos) {
        virtualized = true;
        reason = "the CPU flag 'hypervisor' is set";
      }
  }
  if (why != nullptr)
    *why = virtualized ? reason : "no /sys/hypervisor/type, no CPU flag 'hypervisor'";
  return virtualized;
}

Duration host_max_predicted_gap(std::string* why) {
  std::string reason;
  const bool virtualized = host_is_virtualized(&reason);
  if (why != nullptr)
    *why = virtualized ? "virtualized (" + reason + "): Seastar's 2000 us"
                       : "bare metal: Seastar's 200 us";
  return virtualized ? adaptive_poll::kVirtualizedIdlePollWindow
                     : adaptive_poll::kBareMetalIdlePollWindow;
}

Duration measure_timed_sleep_overshoot(int samples, Duration sleep) {
  const unsigned long old_slack = static_cast<unsigned long>(prctl(PR_GET_TIMERSLACK));
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::vector<Duration> late;
  for (int i = 0; i < samples; ++i) {
    const std::int64_t ns = ns_since_epoch(SteadyClock::now() + sleep);
    const timespec until{static_cast<time_t>(ns / 1'000'000'000),
                         static_cast<long>(ns % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
    }
    late.push_back(SteadyClock::now() - Instant{Duration{ns}});
  }
  prctl(PR_SET_TIMERSLACK, old_slack, 0UL, 0UL, 0UL);
  if (late.empty()) return Duration::zero();
  std::sort(late.begin(), late.end());
  return late[late.size() * 9 / 10];
}

std::optional<Error> validate(const ServerConfig& c) {
  in_addr addr{};
  if (inet_pton(AF_INET, c.ip.c_str(), &addr) != 1)
    return Error{"--ip", "'" + c.ip + "' is not an IPv4 address (dotted quad, e.g. 127.0.0.1)"};
  if (c.cpu) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    if (*c.cpu < 0 || *c.cpu >= cpus)
      return Error{"--cpu",
                   "must be between 0 and " + std::to_string(cpus - 1) + " (this machine's CPUs)"};
  }
  if (c.epoll_timeout_ms != -1) {
    if (c.mode != LoopMode::epoll && c.mode != LoopMode::kernel_busy_poll)
      return Error{"--epoll-timeout", "applies to --mode epoll and kernel-busy-poll only"};
    if (c.epoll_timeout_ms < 0 || c.epoll_timeout_ms > kMaxEpollTimeoutMs)
      return Error{"--epoll-timeout", std::to_string(c.epoll_timeout_ms) +
                                          ": allowed -1 (wait for an event) or 0 to " +
                                          std::to_string(kMaxEpollTimeoutMs) + " ms"};
  }
  if (c.kernel_busy_poll.busy_poll_usecs > kMaxBusyPollUsecs)
    return Error{"--busy-poll-usecs", std::to_string(c.kernel_busy_poll.busy_poll_usecs) +
                                          ": allowed 0 to " + std::to_string(kMaxBusyPollUsecs)};
  if (c.kernel_busy_poll.budget < 1) return Error{"--busy-poll-budget", "must be at least 1"};
  if (c.max_connections < 1) return Error{"max_connections", "must be at least 1"};
  if (c.batch < 1) return Error{"batch", "must be at least 1"};
  if (auto e = adaptive_poll::validate(c.adaptive)) return Error{"adaptive." + e->key, e->message};
  return std::nullopt;
}

}  // namespace irqmod::rt
