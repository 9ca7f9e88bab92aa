// One-thread measurements that need no privilege (calibrate.hpp): the clock, a null system call,
// the empty polls, and the helpers the other measurement files share (calibrate_common.hpp).
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "calibrate_common.hpp"
#include "irqmod/rt/calibrate.hpp"

namespace irqmod::rt::calibrate {

using detail::Fd;
using detail::system_error;
using detail::time_each;

namespace detail {

double clock_cost_ns() {
  constexpr int kReads = 1000;
  std::array<double, 9> means{};
  for (double& mean : means) {
    const std::int64_t first = now_ns();
    std::int64_t last = first;
    for (int i = 0; i < kReads; ++i)
      last = now_ns();
    mean = static_cast<double>(last - first) / kReads;
  }
  std::nth_element(means.begin(), means.begin() + means.size() / 2, means.end());
  return means[means.size() / 2];
}

Expected<UdpSocket> open_udp(bool non_blocking, std::uint32_t address) {
  UdpSocket s;
  const int flags = SOCK_DGRAM | SOCK_CLOEXEC | (non_blocking ? SOCK_NONBLOCK : 0);
  s.fd = Fd(::socket(AF_INET, flags, 0));
  if (!s.fd.ok()) return system_error("socket(AF_INET, SOCK_DGRAM)");
  s.address.sin_family = AF_INET;
  s.address.sin_addr.s_addr = htonl(address);
  if (::bind(s.fd.get(), reinterpret_cast<const sockaddr*>(&s.address), sizeof s.address) != 0)
    return system_error("bind");
  socklen_t length = sizeof s.address;
  if (::getsockname(s.fd.get(), reinterpret_cast<sockaddr*>(&s.address), &length) != 0)
    return system_error("getsockname");
  return s;
}

void raise_receive_buffer(int fd, int bytes) {
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0)
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

bool wait_readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready >= 0) return ready == 1;
    if (errno != EINTR) return false;
  }
}

}  // namespace detail

namespace {

cpu_set_t current_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  ::pthread_getaffinity_np(::pthread_self(), sizeof set, &set);
  return set;
}

}  // namespace

int allowed_cpu(int nth) {
  const cpu_set_t set = current_mask();
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set) && nth-- == 0) return cpu;
  return -1;
}

CpuPin::CpuPin(int nth) {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  if (::pthread_getaffinity_np(::pthread_self(), sizeof saved, &saved) != 0) {
    error_ = Error{"", "pthread_getaffinity_np failed"};
    return;
  }
  cpu_ = allowed_cpu(nth);
  if (cpu_ < 0) {
    error_ = Error{"", "this thread may run on fewer than " + std::to_string(nth + 1) + " CPUs"};
    return;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu_, &one);
  if (const int err = ::pthread_setaffinity_np(::pthread_self(), sizeof one, &one); err != 0) {
    error_ = Error{"", "pinning to CPU " + std::to_string(cpu_) + ": " + std::strerror(err)};
    cpu_ = -1;
    return;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(&saved);
  saved_.assign(bytes, bytes + sizeof saved);
}

CpuPin::~CpuPin() {
  if (saved_.size() != sizeof(cpu_set_t)) return;
  cpu_set_t saved;
  std::memcpy(&saved, saved_.data(), sizeof saved);
  ::pthread_setaffinity_np(::pthread_self(), sizeof saved, &saved);
}

Expected<Samples> clock_read(const Budget& budget) {
  Samples samples;
  for (const detail::Limits limits(budget); limits.more(samples.size());) {
    const std::int64_t first = detail::now_ns();
    std::int64_t last = first;
    for (int i = 0; i < detail::kCallsPerSample; ++i)
      last = detail::now_ns();
    samples.push_back(detail::per_call(first, last, 0, detail::kCallsPerSample));
  }
  if (samples.empty()) return Error{"", "no sample within the time budget"};
  return samples;
}

Expected<Samples> null_syscall(const Budget& budget) {
  return time_each(
      budget, "getppid failed", [] { return ::syscall(SYS_getppid) > 0; }, detail::kCallsPerSample);
}

Expected<Samples> udp_recv_empty(const Budget& budget) {
  auto socket = detail::open_udp(true);
  if (!socket) return socket.error();
  std::array<char, 64> buffer{};
  const int fd = socket->fd.get();
  return time_each(
      budget, "recvfrom on an empty socket did not answer EAGAIN",
      [&] {
        return ::recvfrom(fd, buffer.data(), buffer.size(), 0, nullptr, nullptr) < 0 &&
               (errno == EAGAIN || errno == EWOULDBLOCK);
      },
      detail::kCallsPerSample);
}

namespace {

// An epoll instance watching `fd` for input (level-triggered).
Expected<Fd> epoll_on(int fd) {
  Fd epoll(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.ok()) return system_error("epoll_create1");
  epoll_event interest{};
  interest.events = EPOLLIN;
  interest.data.fd = fd;
  if (::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &interest) != 0) return system_error("epoll_ctl");
  return epoll;
}

// epoll_wait(timeout 0) sampled while it returns `events`.
Expected<Samples> time_epoll_wait(const Budget& budget, int epoll, int events) {
  epoll_event ready{};
  return time_each(
      budget, "epoll_wait did not return " + std::to_string(events) + " event(s)",
      [&] { return ::epoll_wait(epoll, &ready, 1, 0) == events; }, detail::kCallsPerSample);
}

}  // namespace

Expected<Samples> epoll_wait_empty(const Budget& budget) {
  auto socket = detail::open_udp(true);
  if (!socket) return socket.error();
  auto epoll = epoll_on(socket->fd.get());
  if (!epoll) return epoll.error();
  return time_epoll_wait(budget, epoll->get(), 0);
}

Expected<Samples> epoll_wait_ready(const Budget& budget) {
  auto receiver = detail::open_udp(true);
  if (!receiver) return receiver.error();
  auto sender = detail::open_udp(true);
  if (!sender) return sender.error();
  const char byte = 'x';
  if (::sendto(sender->fd.get(), &byte, 1, 0, reinterpret_cast<const sockaddr*>(&receiver->address),
               sizeof receiver->address) != 1)
    return system_error("sendto");
  if (!detail::wait_readable(receiver->fd.get(), 1000))
    return Error{"", "the datagram that makes the socket ready did not arrive within 1 s"};
  auto epoll = epoll_on(receiver->fd.get());
  if (!epoll) return epoll.error();
  return time_epoll_wait(budget, epoll->get(), 1);
}

Expected<Samples> poll_one_socket(const Budget& budget) {
  auto socket = detail::open_udp(true);
  if (!socket) return socket.error();
  pollfd p{socket->fd.get(), POLLIN, 0};
  return time_each(
      budget, "poll on an empty socket did not answer 0", [&] { return ::poll(&p, 1, 0) == 0; },
      detail::kCallsPerSample);
}

Expected<Samples> xsk_sendto_unbound(const Budget& budget) {
#ifdef AF_XDP
  const Fd xsk(::socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0));
  if (!xsk.ok()) return system_error("socket(AF_XDP)");
  return time_each(
      budget, "sendto on an unbound AF_XDP socket did not answer ENXIO",
      [&] {
        return ::sendto(xsk.get(), nullptr, 0, MSG_DONTWAIT, nullptr, 0) < 0 && errno == ENXIO;
      },
      detail::kCallsPerSample);
#else
  (void)budget;
  return Error{"", "AF_XDP is not defined by this C library"};
#endif
}

}  // namespace irqmod::rt::calibrate
