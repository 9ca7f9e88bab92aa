// The open-loop sockperf-protocol load generator (load.hpp).
#include "irqmod/rt/load.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <utility>

#include "irqmod/rt/sockperf_protocol.hpp"

namespace irqmod::rt::load {
namespace {

namespace sp = sockperf;

// Most connections: each TCP one holds a 64 KiB frame buffer; more than this on one client
// thread measures the client.
constexpr unsigned kMaxConnections = 64;
// Most requests per second: one client thread cannot schedule more with meaning.
constexpr double kMaxRate = 1e6;
constexpr double kMaxDuration = 3600;

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

Error sys_error(const std::string& key, const std::string& what, int err) {
  return Error{key, what + ": " + std::strerror(err)};
}

struct Socket {
  int fd = -1;
  std::unique_ptr<sp::StreamFramer> framer;  // TCP only
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

std::optional<Error> validate(const Config& c) {
  in_addr addr{};
  if (inet_pton(AF_INET, c.ip.c_str(), &addr) != 1)
    return Error{"--ip", "'" + c.ip + "' is not an IPv4 address"};
  if (c.port == 0) return Error{"--port", "must be a port number from 1 to 65535"};
  if (c.connections < 1 || c.connections > kMaxConnections)
    return Error{"--connections", std::to_string(c.connections) + ": allowed 1 to " +
                                      std::to_string(kMaxConnections)};
  if (!(c.rate > 0 && c.rate <= kMaxRate))
    return Error{"--rate", "must be above 0 and at most 1000000 requests per second"};
  if (!(c.duration_s > 0 && c.duration_s <= kMaxDuration))
    return Error{"--duration", "must be above 0 and at most 3600 seconds"};
  if (!(c.grace_s >= 0 && c.grace_s <= kMaxDuration))
    return Error{"--grace", "must be between 0 and 3600 seconds"};
  if (!(c.warmup_s >= 0 && c.warmup_s < c.duration_s))
    return Error{"--warmup", "must be at least 0 and below --duration"};
  if (c.size < sp::kHeaderSize || c.size > sp::kMaxMessageSize)
    return Error{"--size", "allowed " + std::to_string(sp::kHeaderSize) + " to " +
                               std::to_string(sp::kMaxMessageSize) + " bytes"};
  if (c.cpu) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    if (*c.cpu < 0 || *c.cpu >= cpus)
      return Error{"--cpu", "must be between 0 and " + std::to_string(cpus - 1)};
  }
  return std::nullopt;
}

Expected<Result> run(const Config& c) {
  if (auto e = validate(c)) return *e;
  if (c.cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(*c.cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
      return sys_error("--cpu", "sched_setaffinity", errno);
  }
  const bool tcp = c.transport == Transport::tcp;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(c.port);
  inet_pton(AF_INET, c.ip.c_str(), &to.sin_addr);
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return sys_error("epoll", "epoll_create1", errno);
  const auto close_ep =
      std::unique_ptr<const int, void (*)(const int*)>(&ep, [](const int* fd) { ::close(*fd); });
  std::vector<Socket> sockets(c.connections);
  for (std::size_t i = 0; i < sockets.size(); ++i) {
    Socket& s = sockets[i];
    // Blocking sends (a full TCP send buffer waits instead of splitting a message); reads are
    // MSG_DONTWAIT after epoll says so.
    s.fd = ::socket(AF_INET, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
    if (s.fd < 0) return sys_error("socket", "socket", errno);
    const int one = 1;
    if (tcp) setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(s.fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0)
      return sys_error("connect", "cannot connect to " + c.ip + ":" + std::to_string(c.port),
                       errno);
    if (tcp) s.framer = std::make_unique<sp::StreamFramer>();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, s.fd, &ev) != 0) return sys_error("epoll", "epoll_ctl", errno);
  }

  std::mt19937_64 random(c.seed);
  std::exponential_distribution<double> gap_s(c.rate);
  const auto expected = static_cast<std::size_t>(c.rate * c.duration_s * 1.1) + 16;
  std::vector<std::int64_t> sent_at;  // by sequence number
  std::vector<bool> answered;
  sent_at.reserve(expected);
  answered.reserve(expected);
  std::vector<double> latencies_us;
  std::vector<double> lags_us;
  latencies_us.reserve(expected);
  lags_us.reserve(expected);
  std::vector<std::uint8_t> message(c.size, 0);
  std::vector<std::uint8_t> datagram(sp::kMaxMessageSize + 1);
  Result r;

  const std::int64_t start = now_ns();
  const std::int64_t warm_end = start + static_cast<std::int64_t>(c.warmup_s * 1e9);
  const std::int64_t schedule_end = start + static_cast<std::int64_t>(c.duration_s * 1e9);
  const auto grace_ns = static_cast<std::int64_t>(c.grace_s * 1e9);
  double next_s = gap_s(random);
  const auto next_ns = [&] { return start + static_cast<std::int64_t>(next_s * 1e9); };

  const auto take_reply = [&](std::span<const std::uint8_t> bytes, std::int64_t arrived) {
    const sp::Header h = sp::decode_header(bytes);
    if (bytes.size() < sp::kHeaderSize || (h.flags & sp::kFlagClient) != 0 ||
        h.sequence >= sent_at.size() || answered[h.sequence]) {
      ++r.unexpected;
      return;
    }
    answered[h.sequence] = true;
    ++r.received;
    if (sent_at[h.sequence] >= warm_end) {
      ++r.measured;
      latencies_us.push_back(static_cast<double>(arrived - sent_at[h.sequence]) / 2e3);
    }
  };

  std::array<epoll_event, 64> events{};
  for (;;) {
    std::int64_t now = now_ns();
    while (next_ns() <= now && next_ns() < schedule_end) {
      const std::uint64_t seq = sent_at.size();
      Socket& s = sockets[seq % sockets.size()];
      sp::encode_header({seq, sp::kFlagClient | sp::kFlagPongRequest, c.size}, message);
      lags_us.push_back(static_cast<double>(now - next_ns()) / 1e3);
      sent_at.push_back(now_ns());
      answered.push_back(false);
      std::size_t done = 0;
      while (done < message.size()) {
        const ssize_t n = ::send(s.fd, message.data() + done, message.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sys_error("send", "send to " + c.ip, errno);
        done += static_cast<std::size_t>(n);
      }
      ++r.sent;
      next_s += gap_s(random);
      now = now_ns();
    }
    const bool scheduling = next_ns() < schedule_end;
    if (!scheduling && (r.received == r.sent || now >= schedule_end + grace_ns)) break;
    const std::int64_t wake = scheduling ? next_ns() : schedule_end + grace_ns;
    const std::int64_t wait = std::max<std::int64_t>(0, wake - now);
    const timespec timeout{static_cast<time_t>(wait / 1'000'000'000),
                           static_cast<long>(wait % 1'000'000'000)};
    const int n =
        epoll_pwait2(ep, events.data(), static_cast<int>(events.size()), &timeout, nullptr);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("epoll", "epoll_pwait2", errno);
    const std::int64_t arrived = now_ns();
    for (int i = 0; i < n; ++i) {
      Socket& s = sockets[events[static_cast<std::size_t>(i)].data.u64];
      for (;;) {
        if (!tcp) {
          const ssize_t got = ::recv(s.fd, datagram.data(), datagram.size(), MSG_DONTWAIT);
          if (got < 0 && errno == EINTR) continue;
          if (got < 0 && (errno == EAGAIN || errno == ECONNREFUSED)) break;
          if (got < 0) return sys_error("recv", "recv from " + c.ip, errno);
          take_reply({datagram.data(), static_cast<std::size_t>(got)}, arrived);
          continue;
        }
        const auto space = s.framer->write_space();
        const ssize_t got = ::recv(s.fd, space.data(), space.size(), MSG_DONTWAIT);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && errno == EAGAIN) break;
        if (got < 0) return sys_error("recv", "recv from " + c.ip, errno);
        if (got == 0) return Error{"server", "the server at " + c.ip + " closed a connection"};
        s.framer->commit(static_cast<std::size_t>(got));
        for (auto frame = s.framer->next(); frame.kind != sp::StreamFramer::FrameKind::need_more;
             frame = s.framer->next()) {
          if (frame.kind == sp::StreamFramer::FrameKind::bad_length)
            return Error{"server", "the server at " + c.ip + " sent a bad length field"};
          take_reply(frame.message, arrived);
        }
      }
    }
  }
  r.seconds = static_cast<double>(now_ns() - start) / 1e9;
  std::sort(latencies_us.begin(), latencies_us.end());
  std::sort(lags_us.begin(), lags_us.end());
  if (!latencies_us.empty()) {
    double sum = 0;
    for (const double v : latencies_us)
      sum += v;
    r.avg_us = sum / static_cast<double>(latencies_us.size());
    r.max_us = latencies_us.back();
  }
  r.p25_us = percentile(latencies_us, 0.25);
  r.p50_us = percentile(latencies_us, 0.5);
  r.p75_us = percentile(latencies_us, 0.75);
  r.p90_us = percentile(latencies_us, 0.9);
  r.p99_us = percentile(latencies_us, 0.99);
  r.p999_us = percentile(latencies_us, 0.999);
  r.lag_p50_us = percentile(lags_us, 0.5);
  r.lag_p99_us = percentile(lags_us, 0.99);
  return r;
}

namespace {

// The result's fields in output order, each as its name and its printed value.
std::vector<std::pair<std::string, std::string>> fields(const Result& r) {
  const auto count = [](std::uint64_t v) { return std::to_string(v); };
  const auto real = [](double v) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.3f", v);
    return std::string(text.data());
  };
  return {{"sent", count(r.sent)},
          {"received", count(r.received)},
          {"lost", count(r.sent - r.received)},
          {"measured", count(r.measured)},
          {"unexpected", count(r.unexpected)},
          {"seconds", real(r.seconds)},
          {"avg_us", real(r.avg_us)},
          {"p25_us", real(r.p25_us)},
          {"p50_us", real(r.p50_us)},
          {"p75_us", real(r.p75_us)},
          {"p90_us", real(r.p90_us)},
          {"p99_us", real(r.p99_us)},
          {"p99.9_us", real(r.p999_us)},
          {"max_us", real(r.max_us)},
          {"lag_p50_us", real(r.lag_p50_us)},
          {"lag_p99_us", real(r.lag_p99_us)}};
}

}  // namespace

std::string format_text(const Result& r) {
  std::string line = "load";
  for (const auto& [name, value] : fields(r))
    line += " " + name + "=" + value;
  return line;
}

std::string format_json(const Result& r) {
  std::string line;
  for (const auto& [name, value] : fields(r))
    line += (line.empty() ? "{\"" : ", \"") + name + "\": " + value;
  return line + "}";
}

}  // namespace irqmod::rt::load
