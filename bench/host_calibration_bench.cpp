// Costs of the host that userspace can measure, for the "this machine" preset of
// docs/calibration.md: a minimal system call, a clock read, an empty non-blocking recvfrom and
// epoll_wait (userspace analogues of an empty busy-poll iteration), UDP over loopback (send,
// receive, both), a yield between two threads on one core (system call + context switch), and
// a thread hand-off through eventfd on one core and across two (system calls + wake-up +
// context switch, and for two cores the cross-core wake-up).
//
// The benchmarks shown as ".../manual_time" time themselves with CLOCK_MONOTONIC: their Time
// column is ONE operation (one sendto, one recvfrom; for the two-thread ones, half a round
// trip: one yield + switch, one one-way hand-off). It includes about one clock read
// (BM_host_clock_gettime_monotonic), half of one for the two-thread ones.
// Nothing here can block for ever: receives that expect a datagram wait at most kWaitMs in
// poll(), and a failed partner thread unblocks the main one before it leaves.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>

namespace {

constexpr int kWaitMs = 1000;
constexpr std::size_t kPayload = 64;

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double seconds_between(std::int64_t start_ns, std::int64_t end_ns) {
  return static_cast<double>(end_ns - start_ns) * 1e-9;
}

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// A file descriptor closed at scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

// A UDP/IPv4 socket bound to 127.0.0.1 on a port the kernel picks; `address` is where it is.
struct UdpEndpoint {
  Fd fd{socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
  sockaddr_in address{};

  // False, with the benchmark skipped, when the socket could not be set up.
  bool open(benchmark::State& state, bool non_blocking) {
    const std::string error = bind_loopback(non_blocking);
    if (!error.empty()) state.SkipWithError(error.c_str());
    return error.empty();
  }

 private:
  // Empty on success, else what failed.
  std::string bind_loopback(bool non_blocking) {
    if (!fd.ok()) return errno_text("socket");
    if (non_blocking) {
      const int flags = fcntl(fd.get(), F_GETFL);
      if (flags < 0 || fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK) < 0) {
        return errno_text("fcntl");
      }
    }
    address.sin_family = AF_INET;
    address.sin_port = 0;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) < 0) {
      return errno_text("bind");
    }
    socklen_t length = sizeof address;
    if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) < 0) {
      return errno_text("getsockname");
    }
    return {};
  }
};

// A sender and a receiver on loopback, with a 64-byte payload and a buffer for it.
struct LoopbackPair {
  UdpEndpoint sender;
  UdpEndpoint receiver;
  std::array<char, kPayload> payload{};
  std::array<char, kPayload> buffer{};

  // False, with the benchmark skipped, when the sockets could not be opened.
  bool open(benchmark::State& state) {
    return sender.open(state, false) && receiver.open(state, false);
  }

  bool send() {
    const ssize_t sent =
        sendto(sender.fd.get(), payload.data(), payload.size(), 0,
               reinterpret_cast<const sockaddr*>(&receiver.address), sizeof receiver.address);
    return sent == static_cast<ssize_t>(payload.size());
  }

  // One datagram, without blocking; -1 with EAGAIN when none is queued.
  ssize_t try_receive() {
    return recvfrom(receiver.fd.get(), buffer.data(), buffer.size(), MSG_DONTWAIT, nullptr,
                    nullptr);
  }

  // Waits up to kWaitMs for a datagram to be queued.
  bool wait_readable() {
    pollfd p{receiver.fd.get(), POLLIN, 0};
    return poll(&p, 1, kWaitMs) == 1;
  }

  // Receives one datagram: at once if loopback already queued it (the usual case: the
  // sender's softirq delivers it before sendto returns), else after waiting for it.
  bool receive() {
    for (int attempt = 0; attempt < 2; ++attempt) {
      const ssize_t got = try_receive();
      if (got == static_cast<ssize_t>(buffer.size())) return true;
      if (got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || !wait_readable()) return false;
    }
    return false;
  }
};

// ---- system call, clock -----------------------------------------------------------------

// The cheapest real system call: entry, a field read, exit.
void BM_host_syscall_getppid(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(syscall(SYS_getppid));
  }
}
BENCHMARK(BM_host_syscall_getppid);

// A clock read through the vDSO (no system call with the tsc clocksource).
void BM_host_clock_gettime_monotonic(benchmark::State& state) {
  timespec ts{};
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_host_clock_gettime_monotonic);

// ---- empty polls ------------------------------------------------------------------------

// recvfrom on an empty non-blocking UDP socket: system call + socket lookup + empty queue
// check, EAGAIN.
void BM_host_udp_recv_empty(benchmark::State& state) {
  UdpEndpoint endpoint;
  if (!endpoint.open(state, true)) return;
  std::array<char, kPayload> buffer{};
  for (auto _ : state) {
    const ssize_t got =
        recvfrom(endpoint.fd.get(), buffer.data(), buffer.size(), 0, nullptr, nullptr);
    if (got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
      state.SkipWithError("recvfrom on an empty socket did not answer EAGAIN");
      break;
    }
  }
}
BENCHMARK(BM_host_udp_recv_empty);

// epoll_wait with timeout 0 on one empty UDP socket: the analogue of one turn of an epoll
// busy loop that finds no event.
void BM_host_epoll_wait_empty(benchmark::State& state) {
  UdpEndpoint endpoint;
  if (!endpoint.open(state, true)) return;
  Fd epoll{epoll_create1(EPOLL_CLOEXEC)};
  epoll_event interest{};
  interest.events = EPOLLIN;
  if (!epoll.ok() || epoll_ctl(epoll.get(), EPOLL_CTL_ADD, endpoint.fd.get(), &interest) < 0) {
    state.SkipWithError(errno_text("epoll").c_str());
    return;
  }
  epoll_event ready{};
  for (auto _ : state) {
    if (epoll_wait(epoll.get(), &ready, 1, 0) != 0) {
      state.SkipWithError("epoll_wait on an empty socket did not answer 0");
      break;
    }
  }
}
BENCHMARK(BM_host_epoll_wait_empty);

// poll() with timeout 0 on one empty UDP socket: the system call plus do_sys_poll's own work
// (copying the pollfd in and out, the fd lookup, the socket's poll op, datagram_poll as 5.2's
// xsk_poll called it, the poll table's teardown). Less BM_host_syscall_getppid, it is
// `cpu.poll-call`: what xdpsock's poll() costs beyond a system call.
void BM_host_poll_one_socket(benchmark::State& state) {
  UdpEndpoint endpoint;
  if (!endpoint.open(state, true)) return;
  pollfd p{endpoint.fd.get(), POLLIN, 0};
  for (auto _ : state) {
    if (poll(&p, 1, 0) != 0) {
      state.SkipWithError("poll on an empty socket did not answer 0");
      break;
    }
  }
}
BENCHMARK(BM_host_poll_one_socket);

// sendto(MSG_DONTWAIT) on an AF_XDP socket that is not bound: the system call, the fd lookup,
// sock_sendmsg and its security hook, xsk_sendmsg up to its "bound?" check (ENXIO). What an
// xdpsock kick pays before the driver's ndo_xsk_wakeup; less BM_host_syscall_getppid, it is
// `cpu.socket-call`. Skipped where AF_XDP sockets cannot be made (no CAP_NET_RAW, no XDP).
void BM_host_xsk_sendto_unbound(benchmark::State& state) {
#ifdef AF_XDP
  const Fd xsk{socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0)};
  if (!xsk.ok()) {
    state.SkipWithError(errno_text("socket(AF_XDP)").c_str());
    return;
  }
  for (auto _ : state) {
    if (sendto(xsk.get(), nullptr, 0, MSG_DONTWAIT, nullptr, 0) >= 0 || errno != ENXIO) {
      state.SkipWithError("sendto on an unbound AF_XDP socket did not answer ENXIO");
      break;
    }
  }
#else
  state.SkipWithError("AF_XDP is not defined by this C library");
#endif
}
BENCHMARK(BM_host_xsk_sendto_unbound);

// ---- UDP over loopback --------------------------------------------------------------------

// sendto + recvfrom of a 64-byte datagram on one thread: both system calls, the UDP/IP
// transmit path, the loopback device, the NET_RX softirq's receive path to the socket, the
// copy out. One iteration = one datagram.
void BM_host_udp_loopback_roundtrip(benchmark::State& state) {
  LoopbackPair pair;
  if (!pair.open(state)) return;
  for (auto _ : state) {
    if (!pair.send() || !pair.receive()) {
      state.SkipWithError("a datagram was not sent or not received");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_host_udp_loopback_roundtrip);

// The sendto alone (manual time): on loopback it carries the transmit path AND the receive
// softirq up to the socket queue. The receive that empties the queue is not timed.
void BM_host_udp_loopback_send(benchmark::State& state) {
  LoopbackPair pair;
  if (!pair.open(state)) return;
  for (auto _ : state) {
    const std::int64_t start = monotonic_ns();
    const bool sent = pair.send();
    const std::int64_t end = monotonic_ns();
    if (!sent || !pair.receive()) {
      state.SkipWithError("a datagram was not sent or not received");
      break;
    }
    state.SetIterationTime(seconds_between(start, end));
  }
}
BENCHMARK(BM_host_udp_loopback_send)->UseManualTime();

// The recvfrom alone (manual time) of a datagram already queued: system call, dequeue, copy
// of 64 bytes, buffer release. The send that queues it is not timed.
void BM_host_udp_loopback_recv(benchmark::State& state) {
  LoopbackPair pair;
  if (!pair.open(state)) return;
  for (auto _ : state) {
    if (!pair.send() || !pair.wait_readable()) {
      state.SkipWithError("a datagram was not sent or did not arrive");
      break;
    }
    const std::int64_t start = monotonic_ns();
    const ssize_t got = pair.try_receive();
    const std::int64_t end = monotonic_ns();
    if (got != static_cast<ssize_t>(pair.buffer.size())) {
      state.SkipWithError("a queued datagram was not received");
      break;
    }
    state.SetIterationTime(seconds_between(start, end));
  }
}
BENCHMARK(BM_host_udp_loopback_recv)->UseManualTime();

// ---- threads: yield, wake-up, context switch -------------------------------------------

// The calling thread's CPU mask, restored at scope exit.
class AffinityGuard {
 public:
  AffinityGuard() { ok_ = pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) == 0; }
  AffinityGuard(const AffinityGuard&) = delete;
  AffinityGuard& operator=(const AffinityGuard&) = delete;
  ~AffinityGuard() {
    if (ok_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
  }
  bool ok() const { return ok_; }
  // The n-th CPU (from 0) the thread may run on, or -1.
  int allowed_cpu(int n) const {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &saved_) && n-- == 0) return cpu;
    }
    return -1;
  }

 private:
  cpu_set_t saved_{};
  bool ok_ = false;
};

bool pin(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof set, &set) == 0;
}

// Chooses the CPUs of the two threads: both on the first allowed CPU, or the first two.
// Empty on success, else why the benchmark must be skipped.
std::string choose_cpus(const AffinityGuard& guard, bool same_core, int& main_cpu,
                        int& partner_cpu) {
  if (!guard.ok()) return "pthread_getaffinity_np failed";
  main_cpu = guard.allowed_cpu(0);
  partner_cpu = same_core ? main_cpu : guard.allowed_cpu(1);
  if (main_cpu < 0 || partner_cpu < 0) return "fewer allowed CPUs than the case needs";
  if (!pin(pthread_self(), main_cpu)) return "pinning the main thread failed";
  return {};
}

// Two threads on one core calling sched_yield in turn: each yield switches to the other
// thread, so one iteration of the main thread is two (yield system call + context switch),
// no wake-up. Manual time: the Time column is ONE yield + switch. The counter `switched` is
// the partner's yields per main yield (about 1 when every yield did switch).
void BM_host_yield_switch_same_core(benchmark::State& state) {
  AffinityGuard guard;
  int main_cpu = -1;
  int partner_cpu = -1;
  if (const std::string error = choose_cpus(guard, true, main_cpu, partner_cpu); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::atomic<bool> stop{false};
  std::atomic<bool> pinned{true};
  std::atomic<std::int64_t> partner_yields{0};
  std::thread partner([&] {
    if (!pin(pthread_self(), partner_cpu)) {
      pinned.store(false);
      return;
    }
    while (!stop.load(std::memory_order_relaxed)) {
      sched_yield();
      partner_yields.fetch_add(1, std::memory_order_relaxed);
    }
  });
  // Let the partner pin itself before measuring.
  for (int i = 0; i < 100 && partner_yields.load() == 0 && pinned.load(); ++i)
    sched_yield();
  const std::int64_t partner_before = partner_yields.load();
  for (auto _ : state) {
    if (!pinned.load(std::memory_order_relaxed)) {
      state.SkipWithError("pinning the partner thread failed");
      break;
    }
    const std::int64_t start = monotonic_ns();
    sched_yield();
    const std::int64_t end = monotonic_ns();
    state.SetIterationTime(seconds_between(start, end) / 2);
  }
  const std::int64_t partner_after = partner_yields.load();
  stop.store(true);
  partner.join();
  if (state.iterations() > 0) {
    state.counters["switched"] = static_cast<double>(partner_after - partner_before) /
                                 static_cast<double>(state.iterations());
  }
}
BENCHMARK(BM_host_yield_switch_same_core)->UseManualTime();

// eventfd read that retries when a signal interrupts it.
bool eventfd_take(int fd) {
  eventfd_t value = 0;
  for (;;) {
    if (eventfd_read(fd, &value) == 0) return true;
    if (errno != EINTR) return false;
  }
}

// Two threads handing a token back and forth through two blocking eventfds: the main thread
// writes `ping` (waking the partner) and blocks reading `pong`; the partner does the reverse.
// A one-way hand-off = eventfd write (wake-up) + the other thread being switched in (on one
// core: a context switch; across cores: an IPI to the idle core and its exit from idle) +
// its read returning. Manual time: the Time column is ONE one-way hand-off (round trip / 2).
void run_eventfd_pingpong(benchmark::State& state, bool same_core) {
  AffinityGuard guard;
  int main_cpu = -1;
  int partner_cpu = -1;
  if (const std::string error = choose_cpus(guard, same_core, main_cpu, partner_cpu);
      !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  Fd ping{eventfd(0, EFD_CLOEXEC)};
  Fd pong{eventfd(0, EFD_CLOEXEC)};
  if (!ping.ok() || !pong.ok()) {
    state.SkipWithError(errno_text("eventfd").c_str());
    return;
  }
  std::atomic<bool> stop{false};
  std::atomic<bool> failed{false};
  std::thread partner([&] {
    if (!pin(pthread_self(), partner_cpu)) failed.store(true);
    while (!failed.load()) {
      if (!eventfd_take(ping.get())) {
        failed.store(true);
        break;
      }
      if (stop.load()) break;
      if (eventfd_write(pong.get(), 1) != 0) {
        failed.store(true);
        break;
      }
    }
    // Whatever happened, the main thread may be blocked on pong: release it.
    eventfd_write(pong.get(), 1);
  });
  for (auto _ : state) {
    const std::int64_t start = monotonic_ns();
    const bool ok = eventfd_write(ping.get(), 1) == 0 && eventfd_take(pong.get());
    const std::int64_t end = monotonic_ns();
    if (!ok || failed.load(std::memory_order_relaxed)) {
      state.SkipWithError("the partner thread failed (pinning or eventfd)");
      break;
    }
    state.SetIterationTime(seconds_between(start, end) / 2);
  }
  stop.store(true);
  eventfd_write(ping.get(), 1);
  partner.join();
}

void BM_host_eventfd_handoff_same_core(benchmark::State& state) {
  run_eventfd_pingpong(state, true);
}
BENCHMARK(BM_host_eventfd_handoff_same_core)->UseManualTime();

void BM_host_eventfd_handoff_cross_core(benchmark::State& state) {
  run_eventfd_pingpong(state, false);
}
BENCHMARK(BM_host_eventfd_handoff_cross_core)->UseManualTime();

}  // namespace
