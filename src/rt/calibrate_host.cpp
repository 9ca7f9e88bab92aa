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

namespace {

// 64 samples of 16 calls, 0.1-0.4 ms, per block; the first 4 after another call's block settle.
constexpr detail::Blocks kCallBlocks{64, 4};

const char* failure_of(Call call) {
  switch (call) {
    case Call::clock_read:
      return "clock_gettime failed";
    case Call::getppid:
      return "getppid failed";
    case Call::recvfrom_empty:
      return "recvfrom on an empty socket did not answer EAGAIN";
    case Call::epoll_wait_empty:
      return "epoll_wait on an empty socket did not return 0 events";
    case Call::epoll_wait_ready:
      return "epoll_wait on a ready socket did not return 1 event";
    case Call::poll_empty:
      return "poll on an empty socket did not answer 0";
    case Call::xsk_sendto_unbound:
      return "sendto on an unbound AF_XDP socket did not answer ENXIO";
  }
  return "?";
}

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

// What the calls need: an empty socket (recvfrom, poll and an epoll of it), a socket with a
// datagram queued that is never read (an epoll of it stays ready), an unbound AF_XDP socket.
// A part that cannot be made fails only the calls that need it.
class CallRig {
 public:
  CallRig() {
    auto empty = detail::open_udp(true);
    if (!empty) {
      empty_error_ = empty.error();
    } else {
      empty_ = std::move(empty.value());
      if (auto epoll = epoll_on(empty_.fd.get()))
        epoll_empty_ = std::move(epoll.value());
      else
        empty_error_ = epoll.error();
    }
    ready_error_ = make_ready();
#ifdef AF_XDP
    xsk_ = Fd(::socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0));
    if (!xsk_.ok()) xsk_error_ = system_error("socket(AF_XDP)");
#else
    xsk_error_ = Error{"", "AF_XDP is not defined by this C library"};
#endif
  }

  // Why `call` cannot be sampled, if it cannot.
  const std::optional<Error>& error(Call call) const {
    static const std::optional<Error> none;
    switch (call) {
      case Call::recvfrom_empty:
      case Call::epoll_wait_empty:
      case Call::poll_empty:
        return empty_error_;
      case Call::epoll_wait_ready:
        return ready_error_;
      case Call::xsk_sendto_unbound:
        return xsk_error_;
      default:
        return none;
    }
  }

  // One sample of `call`: the mean of kCallsPerSample calls, the clock's cost out; empty when a
  // call failed.
  std::optional<std::int64_t> sample(Call call, double clock) {
    switch (call) {
      case Call::clock_read: {
        // The clock's own cost stays in: a read and kCallsPerSample more, their span / count.
        const std::int64_t first = detail::now_ns();
        std::int64_t last = first;
        for (int i = 0; i < detail::kCallsPerSample; ++i)
          last = detail::now_ns();
        return detail::per_call(first, last, 0, detail::kCallsPerSample);
      }
      case Call::getppid:
        return run(clock, [] { return ::syscall(SYS_getppid) > 0; });
      case Call::recvfrom_empty:
        return run(clock, [this] {
          return ::recvfrom(empty_.fd.get(), buffer_.data(), buffer_.size(), 0, nullptr, nullptr) <
                     0 &&
                 (errno == EAGAIN || errno == EWOULDBLOCK);
        });
      case Call::epoll_wait_empty:
        return run(clock, [this] { return ::epoll_wait(epoll_empty_.get(), &event_, 1, 0) == 0; });
      case Call::epoll_wait_ready:
        return run(clock, [this] { return ::epoll_wait(epoll_ready_.get(), &event_, 1, 0) == 1; });
      case Call::poll_empty:
        return run(clock, [this] {
          pollfd p{empty_.fd.get(), POLLIN, 0};
          return ::poll(&p, 1, 0) == 0;
        });
      case Call::xsk_sendto_unbound:
        return run(clock, [this] {
          return ::sendto(xsk_.get(), nullptr, 0, MSG_DONTWAIT, nullptr, 0) < 0 && errno == ENXIO;
        });
    }
    return std::nullopt;
  }

 private:
  template <typename Op>
  static std::optional<std::int64_t> run(double clock, Op&& op) {
    bool ok = true;
    const std::int64_t start = detail::now_ns();
    for (int i = 0; i < detail::kCallsPerSample; ++i)
      ok = op() && ok;
    const std::int64_t end = detail::now_ns();
    if (!ok) return std::nullopt;
    return detail::per_call(start, end, clock, detail::kCallsPerSample);
  }

  std::optional<Error> make_ready() {
    auto receiver = detail::open_udp(true);
    if (!receiver) return receiver.error();
    auto sender = detail::open_udp(true);
    if (!sender) return sender.error();
    const char byte = 'x';
    if (::sendto(sender->fd.get(), &byte, 1, 0,
                 reinterpret_cast<const sockaddr*>(&receiver->address),
                 sizeof receiver->address) != 1)
      return system_error("sendto");
    if (!detail::wait_readable(receiver->fd.get(), 1000))
      return Error{"", "the datagram that makes the socket ready did not arrive within 1 s"};
    auto epoll = epoll_on(receiver->fd.get());
    if (!epoll) return epoll.error();
    ready_ = std::move(receiver.value());
    epoll_ready_ = std::move(epoll.value());
    return std::nullopt;
  }

  detail::UdpSocket empty_;
  Fd epoll_empty_;
  std::optional<Error> empty_error_;
  detail::UdpSocket ready_;
  Fd epoll_ready_;
  std::optional<Error> ready_error_;
  Fd xsk_;
  std::optional<Error> xsk_error_;
  std::array<char, 64> buffer_{};
  epoll_event event_{};
};

}  // namespace

std::vector<Expected<Samples>> calls_in_blocks(const Budget& budget,
                                               const std::vector<Call>& calls) {
  CallRig rig;
  std::vector<Expected<Samples>> out;
  std::vector<Call> live;  // the calls that can be sampled, in order
  std::vector<std::size_t> slot;
  for (const Call call : calls) {
    if (const auto& e = rig.error(call)) {
      out.emplace_back(*e);
      continue;
    }
    slot.push_back(out.size());
    live.push_back(call);
    out.emplace_back(Samples{});
  }
  std::vector<bool> failed(live.size(), false);
  std::vector<Samples> samples(live.size());
  const double clock = detail::clock_cost_ns();
  detail::in_blocks(budget, live.size(), kCallBlocks, [&](std::size_t c, bool keep) {
    const auto sample = rig.sample(live[c], clock);
    failed[c] = !sample;
    if (sample && keep) samples[c].push_back(*sample);
    return sample.has_value();
  });
  for (std::size_t c = 0; c < live.size(); ++c) {
    if (failed[c])
      out[slot[c]] = Error{"", failure_of(live[c])};
    else if (samples[c].empty())
      out[slot[c]] = Error{"", "no sample within the time budget"};
    else
      out[slot[c]] = std::move(samples[c]);
  }
  return out;
}

namespace {

Expected<Samples> one_call(const Budget& budget, Call call) {
  return std::move(calls_in_blocks(budget, {call})[0]);
}

}  // namespace

Expected<Samples> clock_read(const Budget& budget) {
  return one_call(budget, Call::clock_read);
}
Expected<Samples> null_syscall(const Budget& budget) {
  return one_call(budget, Call::getppid);
}
Expected<Samples> udp_recv_empty(const Budget& budget) {
  return one_call(budget, Call::recvfrom_empty);
}
Expected<Samples> epoll_wait_empty(const Budget& budget) {
  return one_call(budget, Call::epoll_wait_empty);
}
Expected<Samples> epoll_wait_ready(const Budget& budget) {
  return one_call(budget, Call::epoll_wait_ready);
}
Expected<Samples> poll_one_socket(const Budget& budget) {
  return one_call(budget, Call::poll_empty);
}
Expected<Samples> xsk_sendto_unbound(const Budget& budget) {
  return one_call(budget, Call::xsk_sendto_unbound);
}

}  // namespace irqmod::rt::calibrate
