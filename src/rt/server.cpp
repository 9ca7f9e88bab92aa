// The receive loops of `irqmod serve`: sockets, the five wait modes, and the counters.
#include "irqmod/rt/server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "fd.hpp"
#include "irqmod/rt/sockperf_protocol.hpp"

namespace irqmod::rt {
namespace {

namespace sp = sockperf;

// EPIOCSPARAMS and its argument (Linux 6.9, include/uapi/linux/eventpoll.h); Debian 12's kernel
// headers predate it, so the layout is written out here: u32 usecs, u16 budget, u8 prefer, u8 pad.
struct EpollParams {
  std::uint32_t busy_poll_usecs;
  std::uint16_t busy_poll_budget;
  std::uint8_t prefer_busy_poll;
  std::uint8_t pad;
};
constexpr unsigned long kEpiocsparams = _IOW(0x8A, 0x01, EpollParams);
#ifndef SO_PREFER_BUSY_POLL
constexpr int SO_PREFER_BUSY_POLL = 69;  // Linux 5.11, include/uapi/asm-generic/socket.h
#endif
#ifndef SO_BUSY_POLL_BUDGET
constexpr int SO_BUSY_POLL_BUDGET = 70;  // Linux 5.11, include/uapi/asm-generic/socket.h
#endif

// Events taken from one epoll_wait: as many as a NAPI poll's weight, no reason to differ.
constexpr int kMaxEvents = 64;
// Pending connections the kernel queues before accept: SOMAXCONN's historical default.
constexpr int kListenBacklog = 128;
// How long a TCP reply may wait for room in the send buffer before the connection is given up
// as stalled. A choice: far above any loopback round trip, short enough to bound a stuck peer.
constexpr int kSendStallTimeoutMs = 1000;
// The longer bound while the connection is retransmitting: then the wait is the path's, not a
// peer that stopped reading. TCP backs its retransmission timeout off from 200 ms (TCP_RTO_MIN)
// by doubling, so five losses of one segment in a row wait 0.2 + 0.4 + 0.8 + 1.6 + 3.2 = 6.2 s;
// 10 s covers that. Seen under `lab up --loss 0.4`: the 1 s bound alone gave up a connection
// whose replies sat in a backed-off retransmission (reply_failures 1 in 8 runs of 1 s).
constexpr int kSendLossTimeoutMs = 10'000;

// True while TCP is recovering lost segments on `fd`: timed-out retransmissions of the same
// segment (icsk_retransmits), or the Loss state. Not the zero-window probes of a peer that stopped
// reading: those count in icsk_probes_out and icsk_backoff, which are not read here.
bool retransmitting(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return false;
  return info.tcpi_retransmits > 0 || info.tcpi_ca_state == TCP_CA_Loss;
}
// A UDP receive buffer one byte larger than the largest sockperf message, so a larger datagram
// is seen as oversized (MSG_TRUNC also reports its real size).
constexpr std::size_t kDatagramBuffer = sp::kMaxMessageSize + 1;
// Room for the control messages a recvmsg can carry here: one SCM_TIMESTAMPNS.
constexpr std::size_t kControlBuffer = CMSG_SPACE(sizeof(timespec));
// epoll user data for the two fixed descriptors; connections use their address.
constexpr std::uint64_t kTagWake = 0;
constexpr std::uint64_t kTagMain = 1;

std::string errno_text(int err) {
  return std::strerror(err);
}

Error sys_error(std::string key, const std::string& what, int err) {
  return Error{std::move(key), what + ": " + errno_text(err)};
}

using detail::Fd;

}  // namespace

// Server::State's members are named types (State is not in the anonymous namespace).
namespace detail {

// Totals, bumped by the loop thread(s) and read by stats() from any thread.
struct Counters {
  std::atomic<std::uint64_t> messages{0};
  std::atomic<std::uint64_t> replies{0};
  std::atomic<std::uint64_t> reply_failures{0};
  std::atomic<std::uint64_t> warmup{0};
  std::atomic<std::uint64_t> no_reply{0};
  std::array<std::atomic<std::uint64_t>, sp::kRejectReasons> rejected{};
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> connections_closed{0};
  std::atomic<std::uint64_t> connections_refused{0};
  std::atomic<std::uint64_t> wakeups{0};
  std::atomic<std::uint64_t> spins{0};
  std::atomic<std::uint64_t> timer_sleeps{0};
  std::atomic<std::uint64_t> mode_switches{0};
  std::atomic<std::uint64_t> recheck_found_work{0};
  std::atomic<std::int64_t> mean_gap_ns{0};
  std::atomic<std::int64_t> gap_deviation_ns{0};
  std::atomic<std::int64_t> spin_window_ns{0};
};

// One TCP connection and the bytes of its unfinished message.
struct Connection {
  explicit Connection(Fd f) : fd(std::move(f)) {}
  Fd fd;
  sp::StreamFramer framer;
  // False once finished; the descriptor closes when the connection is reaped. Atomic because in
  // blocking mode the acceptor counts live connections while workers finish theirs.
  std::atomic<bool> open{true};
  std::atomic<bool> worker_done{false};  // blocking mode: its thread has returned
  std::thread worker;                    // blocking mode only
};

}  // namespace detail

using detail::Connection;
using detail::Counters;

namespace {

void bump(std::atomic<std::uint64_t>& c) {
  c.fetch_add(1, std::memory_order_relaxed);
}
std::uint64_t read(const std::atomic<std::uint64_t>& c) {
  return c.load(std::memory_order_relaxed);
}

// What one read did.
enum class Io : std::uint8_t {
  progress,  // bytes or a datagram were taken
  empty,     // nothing there (EAGAIN)
  closed,    // the connection (or, when stopping, the socket) is finished
};

bool would_block(int err) {
  return err == EAGAIN || err == EWOULDBLOCK;
}

std::optional<Error> pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (rc != 0) return sys_error("--cpu", "cannot pin to CPU " + std::to_string(cpu), rc);
  return std::nullopt;
}

std::string read_sysctl(const char* path) {
  std::ifstream in(path);
  std::string value;
  if (!(in >> value)) return "unreadable";
  return value;
}

}  // namespace

struct Server::State {
  ServerConfig config;
  Fd socket;  // the UDP socket or the TCP listener
  Fd epoll;   // every mode but blocking
  Fd wake;    // eventfd in the epoll set: stop() writes it to end a wait
  std::uint16_t port = 0;
  std::vector<std::string> notes;
  Counters counters;
  Instant started{};
  std::atomic<bool> stopping{false};
  bool ran = false;
  std::vector<std::unique_ptr<Connection>> connections;  // owned by the loop thread
  std::mutex connections_mutex;  // blocking mode: stop() walks the list from another thread
  std::vector<std::uint8_t> datagram = std::vector<std::uint8_t>(kDatagramBuffer);
  // adaptive mode: the sockets carry SO_TIMESTAMPNS, and the newest kernel receive stamp
  // (CLOCK_REALTIME ns) read since the loop last cleared it; 0 = none.
  bool receive_timestamps = false;
  std::int64_t newest_arrival_realtime_ns = 0;

  bool blocking() const { return config.mode == LoopMode::blocking; }
  bool stop_requested() const { return stopping.load(std::memory_order_relaxed); }

  // Counts one verdict; true when the message is to be answered.
  bool account(const sp::Verdict& v) {
    bump(counters.messages);
    switch (v.kind) {
      case sp::VerdictKind::answer:
        return true;
      case sp::VerdictKind::warmup:
        bump(counters.warmup);
        break;
      case sp::VerdictKind::no_reply:
        bump(counters.no_reply);
        break;
      case sp::VerdictKind::reject:
        reject(v.reason);
        break;
    }
    return false;
  }
  void reject(sp::Reject reason) { bump(counters.rejected[static_cast<std::size_t>(reason)]); }

  void apply_busy_poll_options(int fd, bool report);
  bool enable_receive_timestamps(int fd);
  void note_arrival(const msghdr& msg);
  std::optional<Error> open_sockets();

  Io receive_datagram();
  Io service_connection(Connection& conn);
  void finish(Connection& conn);
  bool send_all(int fd, std::span<const std::uint8_t> bytes);
  std::uint32_t accept_pending();
  Connection* adopt(Fd fd);
  void reap_closed();
  std::uint32_t poll_once();
  std::uint32_t drain_connection(Connection& conn);
  std::uint32_t drain_udp();
  void handle_event(const epoll_event& e);

  std::optional<Error> run_epoll();
  std::optional<Error> run_busy();
  std::optional<Error> run_adaptive();
  std::optional<Error> run_blocking();
};

std::string_view mode_name(LoopMode mode) {
  switch (mode) {
    case LoopMode::blocking:
      return "blocking";
    case LoopMode::epoll:
      return "epoll";
    case LoopMode::busy:
      return "busy";
    case LoopMode::adaptive:
      return "adaptive";
    case LoopMode::kernel_busy_poll:
      return "kernel-busy-poll";
  }
  return "unknown";
}

Expected<LoopMode> parse_mode(std::string_view text) {
  for (const LoopMode m : {LoopMode::blocking, LoopMode::epoll, LoopMode::busy, LoopMode::adaptive,
                           LoopMode::kernel_busy_poll})
    if (text == mode_name(m)) return m;
  return Error{"--mode", "unknown mode '" + std::string(text) +
                             "'. allowed: blocking, epoll, busy, adaptive, kernel-busy-poll"};
}

Duration host_max_predicted_gap(std::string* why) {
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

std::string_view transport_name(Transport t) {
  return t == Transport::udp ? "udp" : "tcp";
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

// Sets the kernel busy-poll options on one socket; `report` adds a start-up note for each.
void Server::State::apply_busy_poll_options(int fd, bool report) {
  const KernelBusyPollConfig& k = config.kernel_busy_poll;
  struct Option {
    int name;
    const char* text;
    int value;
  };
  const Option options[] = {
      {SO_BUSY_POLL, "SO_BUSY_POLL", static_cast<int>(k.busy_poll_usecs)},
      {SO_PREFER_BUSY_POLL, "SO_PREFER_BUSY_POLL", k.prefer_busy_poll ? 1 : 0},
      {SO_BUSY_POLL_BUDGET, "SO_BUSY_POLL_BUDGET", static_cast<int>(k.budget)},
  };
  for (const Option& o : options) {
    const int rc = setsockopt(fd, SOL_SOCKET, o.name, &o.value, sizeof o.value);
    if (!report) continue;
    std::string note = std::string(o.text) + "=" + std::to_string(o.value) + ": ";
    if (rc == 0) {
      note += "accepted";
    } else {
      const int err = errno;
      note += "refused (" + errno_text(err) + ")";
      if (err == EPERM) note += ": raising it needs CAP_NET_ADMIN";
      if (err == ENOPROTOOPT) note += ": this kernel does not know the option (Linux < 5.11)";
    }
    notes.push_back(std::move(note));
  }
}

// adaptive mode: asks the kernel to stamp each received message (SO_TIMESTAMPNS: software
// receive time, CLOCK_REALTIME, delivered as a control message by recvmsg).
bool Server::State::enable_receive_timestamps(int fd) {
  const int one = 1;
  return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
}

// Keeps the newest SCM_TIMESTAMPNS stamp of a recvmsg, if it carried one.
void Server::State::note_arrival(const msghdr& msg) {
  for (const cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr;
       c = CMSG_NXTHDR(const_cast<msghdr*>(&msg), const_cast<cmsghdr*>(c))) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec t{};
    std::memcpy(&t, CMSG_DATA(c), sizeof t);
    const std::int64_t ns = static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
    newest_arrival_realtime_ns = std::max(newest_arrival_realtime_ns, ns);
  }
}

std::optional<Error> Server::State::open_sockets() {
  const bool tcp = config.transport == Transport::tcp;
  const int type =
      (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC | (blocking() ? 0 : SOCK_NONBLOCK);
  socket = Fd(::socket(AF_INET, type, 0));
  if (socket.get() < 0) return sys_error("socket", "cannot create the socket", errno);
  // TCP only: a restarted server may bind while old connections sit in TIME_WAIT. Not for UDP,
  // where it would let two servers share the port silently.
  const int one = 1;
  if (tcp && setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0)
    return sys_error("socket", "SO_REUSEADDR", errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(config.port);
  inet_pton(AF_INET, config.ip.c_str(), &addr.sin_addr);
  if (bind(socket.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    // EADDRNOTAVAIL: no interface has the address; the port is then not at fault.
    const int err = errno;
    return sys_error(err == EADDRNOTAVAIL ? "--ip" : "--port",
                     "cannot bind " + config.ip + ":" + std::to_string(config.port), err);
  }
  if (tcp && listen(socket.get(), kListenBacklog) != 0)
    return sys_error("--port", "cannot listen", errno);
  socklen_t len = sizeof addr;
  if (getsockname(socket.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return sys_error("socket", "getsockname", errno);
  port = ntohs(addr.sin_port);

  if (config.mode == LoopMode::kernel_busy_poll) {
    apply_busy_poll_options(socket.get(), true);
    notes.push_back("net.core.busy_poll=" + read_sysctl("/proc/sys/net/core/busy_poll") +
                    ", net.core.busy_read=" + read_sysctl("/proc/sys/net/core/busy_read") +
                    " (system-wide defaults; the socket options above override them)");
  }
  if (config.mode == LoopMode::adaptive) {
    receive_timestamps = enable_receive_timestamps(socket.get());
    const int err = errno;
    notes.push_back(receive_timestamps
                        ? "SO_TIMESTAMPNS: accepted; gaps are learned from kernel receive times"
                        : "SO_TIMESTAMPNS: refused (" + errno_text(err) +
                              "); gaps are learned from the time a poll finds the work");
  }
  if (blocking()) return std::nullopt;

  epoll = Fd(epoll_create1(EPOLL_CLOEXEC));
  if (epoll.get() < 0) return sys_error("epoll", "epoll_create1", errno);
  wake = Fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (wake.get() < 0) return sys_error("epoll", "eventfd", errno);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kTagWake;
  if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, wake.get(), &ev) != 0)
    return sys_error("epoll", "epoll_ctl(wake)", errno);
  ev.data.u64 = kTagMain;
  if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, socket.get(), &ev) != 0)
    return sys_error("epoll", "epoll_ctl(socket)", errno);

  if (config.mode == LoopMode::kernel_busy_poll) {
    const KernelBusyPollConfig& k = config.kernel_busy_poll;
    EpollParams params{k.busy_poll_usecs, k.budget, static_cast<std::uint8_t>(k.prefer_busy_poll),
                       0};
    std::string note = "EPIOCSPARAMS busy_poll_usecs=" + std::to_string(k.busy_poll_usecs) +
                       " busy_poll_budget=" + std::to_string(k.budget) +
                       " prefer_busy_poll=" + std::to_string(k.prefer_busy_poll ? 1 : 0) + ": ";
    if (ioctl(epoll.get(), kEpiocsparams, &params) == 0) {
      note += "accepted";
    } else {
      const int err = errno;
      note += "refused (" + errno_text(err) + ")";
      if (err == ENOTTY) note += ": this kernel has no epoll busy-poll parameters (Linux < 6.9)";
      if (err == EPERM) note += ": a budget above 64 needs CAP_NET_ADMIN";
    }
    notes.push_back(std::move(note));
  }
  return std::nullopt;
}

// Reads one datagram and answers it if it is a pong request.
Io Server::State::receive_datagram() {
  sockaddr_storage peer{};
  socklen_t peer_len = sizeof peer;
  alignas(cmsghdr) std::array<char, kControlBuffer> control{};
  iovec iov{datagram.data(), datagram.size()};
  msghdr msg{};
  ssize_t n;
  do {
    msg = msghdr{};
    msg.msg_name = &peer;
    msg.msg_namelen = sizeof peer;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    n = recvmsg(socket.get(), &msg, MSG_TRUNC);
  } while (n < 0 && errno == EINTR && !stop_requested());
  if (stop_requested()) return Io::closed;
  if (n < 0) {
    // ECONNREFUSED and friends report an ICMP error for an earlier reply: not a message.
    return would_block(errno) ? Io::empty : Io::progress;
  }
  peer_len = msg.msg_namelen;
  if (receive_timestamps) note_arrival(msg);
  const auto size = static_cast<std::size_t>(n);
  const std::size_t received = std::min(size, datagram.size());
  const sp::Verdict v =
      sp::classify_datagram(std::span<const std::uint8_t>(datagram.data(), received), size);
  if (account(v)) {
    sp::reply_in_place(std::span<std::uint8_t>(datagram.data(), size));
    ssize_t sent;
    do {
      sent = sendto(socket.get(), datagram.data(), size, 0, reinterpret_cast<sockaddr*>(&peer),
                    peer_len);
    } while (sent < 0 && errno == EINTR);
    bump(sent == n ? counters.replies : counters.reply_failures);
  }
  return Io::progress;
}

bool Server::State::send_all(int fd, std::span<const std::uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && would_block(errno)) {
      // Wait for room a second at a time: a second without room gives up on the peer, unless
      // TCP is retransmitting, which may take up to kSendLossTimeoutMs.
      pollfd p{fd, POLLOUT, 0};
      int rc = 0;
      for (int waited = 0; rc == 0 && waited < kSendLossTimeoutMs && !stop_requested();
           waited += kSendStallTimeoutMs) {
        if (waited > 0 && !retransmitting(fd)) break;
        do
          rc = ::poll(&p, 1, kSendStallTimeoutMs);
        while (rc < 0 && errno == EINTR);
      }
      if (rc > 0) continue;
    }
    return false;  // an error, or no room: the peer is not reading, or the path stayed lost
  }
  return true;
}

// Counts the end of a connection; the descriptor is closed when the connection is reaped.
void Server::State::finish(Connection& conn) {
  if (!conn.open) return;
  conn.open = false;
  if (conn.framer.partial_bytes() > 0 && !stop_requested()) {
    bump(counters.messages);
    reject(sp::Reject::cut_off);
  }
  bump(counters.connections_closed);
}

// One read from a TCP connection, then every whole message it completed.
Io Server::State::service_connection(Connection& conn) {
  const std::span<std::uint8_t> space = conn.framer.write_space();
  alignas(cmsghdr) std::array<char, kControlBuffer> control{};
  iovec iov{space.data(), space.size()};
  msghdr msg{};
  ssize_t n;
  do {
    msg = msghdr{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    n = recvmsg(conn.fd.get(), &msg, 0);
  } while (n < 0 && errno == EINTR && !stop_requested());
  if (n < 0 && would_block(errno) && !stop_requested()) return Io::empty;
  if (n <= 0 || stop_requested()) {
    finish(conn);  // orderly close, reset, or the server is stopping
    return Io::closed;
  }
  if (receive_timestamps) note_arrival(msg);
  conn.framer.commit(static_cast<std::size_t>(n));
  for (;;) {
    const sp::StreamFramer::Frame f = conn.framer.next();
    if (f.kind == sp::StreamFramer::FrameKind::need_more) return Io::progress;
    if (f.kind == sp::StreamFramer::FrameKind::bad_length) {
      // The stream cannot be re-synchronised after a bad length: count it and close.
      bump(counters.messages);
      reject(f.reason);
      conn.open = false;
      bump(counters.connections_closed);
      return Io::closed;
    }
    if (account(sp::classify(sp::decode_header(f.message)))) {
      sp::reply_in_place(f.message);
      if (!send_all(conn.fd.get(), f.message)) {
        bump(counters.reply_failures);
        conn.open = false;
        bump(counters.connections_closed);
        return Io::closed;
      }
      bump(counters.replies);
    }
  }
}

Connection* Server::State::adopt(Fd fd) {
  bump(counters.connections_accepted);
  std::size_t live = 0;
  for (const auto& c : connections)
    live += c->open ? 1 : 0;
  if (live >= config.max_connections) {
    bump(counters.connections_refused);
    bump(counters.connections_closed);
    return nullptr;  // fd closes here
  }
  const int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // answers go out at once
  if (config.mode == LoopMode::kernel_busy_poll) apply_busy_poll_options(fd.get(), false);
  if (receive_timestamps) enable_receive_timestamps(fd.get());  // stamps the connection's data
  auto conn = std::make_unique<Connection>(std::move(fd));
  Connection* raw = conn.get();
  if (!blocking()) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.ptr = raw;
    if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, raw->fd.get(), &ev) != 0) {
      bump(counters.connections_closed);
      return nullptr;
    }
  }
  std::lock_guard lock(connections_mutex);
  connections.push_back(std::move(conn));
  return raw;
}

// Single-threaded modes: takes every pending connection. Returns how many.
std::uint32_t Server::State::accept_pending() {
  std::uint32_t taken = 0;
  for (;;) {
    const int fd = accept4(socket.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return taken;  // EAGAIN, or out of descriptors: try again on the next readiness
    }
    ++taken;
    adopt(Fd(fd));
  }
}

void Server::State::reap_closed() {
  std::lock_guard lock(connections_mutex);
  std::erase_if(connections, [](const std::unique_ptr<Connection>& c) { return !c->open; });
}

std::uint32_t Server::State::drain_udp() {
  std::uint32_t items = 0;
  while (items < config.batch && receive_datagram() == Io::progress)
    ++items;
  return items;
}

std::uint32_t Server::State::drain_connection(Connection& conn) {
  std::uint32_t items = 0;
  while (conn.open && items < config.batch && service_connection(conn) == Io::progress)
    ++items;
  return items;
}

// One non-blocking pass over every socket; returns the reads that found something.
std::uint32_t Server::State::poll_once() {
  if (config.transport == Transport::udp) return drain_udp();
  std::uint32_t items = accept_pending();
  bool closed = false;
  for (const auto& conn : connections) {
    items += drain_connection(*conn);
    closed = closed || !conn->open;
  }
  if (closed) reap_closed();
  return items;
}

void Server::State::handle_event(const epoll_event& e) {
  if (e.data.u64 == kTagWake) return;
  if (e.data.u64 == kTagMain) {
    if (config.transport == Transport::udp)
      drain_udp();
    else
      accept_pending();
    return;
  }
  drain_connection(*static_cast<Connection*>(e.data.ptr));
}

std::optional<Error> Server::State::run_epoll() {
  std::array<epoll_event, kMaxEvents> events{};
  while (!stop_requested()) {
    const int n = epoll_wait(epoll.get(), events.data(), kMaxEvents, config.epoll_timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      return sys_error("epoll", "epoll_wait", errno);
    }
    // A wait that may not sleep (timeout 0) and found nothing is a spin, not a wake-up.
    if (n == 0 && config.epoll_timeout_ms == 0)
      bump(counters.spins);
    else
      bump(counters.wakeups);
    for (int i = 0; i < n; ++i)
      handle_event(events[static_cast<std::size_t>(i)]);
    reap_closed();
  }
  return std::nullopt;
}

std::optional<Error> Server::State::run_busy() {
  while (!stop_requested())
    if (poll_once() == 0) bump(counters.spins);
  return std::nullopt;
}

std::optional<Error> Server::State::run_adaptive() {
  // Timed sleeps end within ~1 ns of the asked time instead of the default 50 µs timer slack,
  // which is larger than the poller's guard (adaptive_poll::Config::wakeup_cost).
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  adaptive_poll::AdaptivePoller poller(config.adaptive);
  std::array<epoll_event, kMaxEvents> events{};
  while (!stop_requested()) {
    newest_arrival_realtime_ns = 0;
    const std::uint32_t items = poll_once();
    const Instant now = SteadyClock::now();
    if (items > 0) {
      if (newest_arrival_realtime_ns == 0) {
        poller.on_work(now, items);
        continue;
      }
      // The stamp is CLOCK_REALTIME; carried to the steady clock by the offset between the two
      // read now (one vDSO call; an NTP step between stamp and now shifts one sample only, and
      // the poller takes a stamp after `now` as `now`).
      timespec real{};
      clock_gettime(CLOCK_REALTIME, &real);
      const std::int64_t real_now_ns =
          static_cast<std::int64_t>(real.tv_sec) * 1'000'000'000 + real.tv_nsec;
      poller.on_work(now, items, now - Duration{real_now_ns - newest_arrival_realtime_ns});
      continue;
    }
    const adaptive_poll::Action action = poller.on_idle(now);
    switch (action.kind) {
      case adaptive_poll::ActionKind::spin:
        bump(counters.spins);
        break;
      case adaptive_poll::ActionKind::sleep_until: {
        // The timed sleep is taken in epoll_pwait2 with the remaining time as its timeout, so a
        // message that comes earlier than predicted ends it through the packet's wake-up
        // instead of waiting out the timer (on this project's VM a timer wake-up is 30-60 µs
        // late, a packet wake-up ~12 µs). Falls back to clock_nanosleep before Linux 5.11.
        const Duration left = action.until - SteadyClock::now();
        if (left > Duration::zero()) {
          const timespec timeout{static_cast<time_t>(left.count() / 1'000'000'000),
                                 static_cast<long>(left.count() % 1'000'000'000)};
          const int n = epoll_pwait2(epoll.get(), events.data(), kMaxEvents, &timeout, nullptr);
          if (n < 0 && errno == ENOSYS) {
            const std::int64_t ns = ns_since_epoch(action.until);
            const timespec until{static_cast<time_t>(ns / 1'000'000'000),
                                 static_cast<long>(ns % 1'000'000'000)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
          }
        }
        bump(counters.timer_sleeps);
        break;
      }
      case adaptive_poll::ActionKind::block: {
        adaptive_poll::InterruptEntry entry = poller.try_enter_interrupt_mode(now);
        // The kernel wait is armed already: every socket sits in the level-triggered epoll set
        // from creation on. The pure poll after arming asks for readiness without taking the
        // work, so a message that raced the decision is seen here rather than lost.
        int ready;
        do
          ready = epoll_wait(epoll.get(), events.data(), kMaxEvents, 0);
        while (ready < 0 && errno == EINTR);
        if (ready < 0) return sys_error("epoll", "epoll_wait", errno);
        if (poller.recheck(entry, ready > 0)) {
          const int n = epoll_wait(epoll.get(), events.data(), kMaxEvents, -1);
          if (n < 0 && errno != EINTR) return sys_error("epoll", "epoll_wait", errno);
          bump(counters.wakeups);
        }
        poller.exit_interrupt_mode(entry, SteadyClock::now());
        break;
      }
    }
    counters.mode_switches.store(poller.counters().mode_switches, std::memory_order_relaxed);
    counters.recheck_found_work.store(poller.counters().recheck_found_work,
                                      std::memory_order_relaxed);
    counters.mean_gap_ns.store(poller.mean_gap().count(), std::memory_order_relaxed);
    counters.gap_deviation_ns.store(poller.gap_deviation().count(), std::memory_order_relaxed);
    counters.spin_window_ns.store(poller.spin_window().count(), std::memory_order_relaxed);
  }
  return std::nullopt;
}

std::optional<Error> Server::State::run_blocking() {
  if (config.transport == Transport::udp) {
    // Asleep in recvfrom for every datagram; stop() shuts the socket down to end the wait.
    while (!stop_requested()) {
      const Io r = receive_datagram();
      bump(counters.wakeups);
      if (r == Io::closed) break;
    }
    return std::nullopt;
  }
  // The calling thread accepts; each connection gets a thread asleep in recv.
  while (!stop_requested()) {
    const int fd = accept4(socket.get(), nullptr, nullptr, SOCK_CLOEXEC);
    bump(counters.wakeups);
    if (stop_requested()) {
      if (fd >= 0) ::close(fd);
      break;
    }
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) ::poll(nullptr, 0, 100);  // let descriptors free up
      continue;
    }
    {
      // Join and drop the connections whose threads have returned.
      std::lock_guard lock(connections_mutex);
      for (auto& c : connections)
        if (c->worker_done.load() && c->worker.joinable()) c->worker.join();
      std::erase_if(connections, [](const std::unique_ptr<Connection>& c) {
        return c->worker_done.load() && !c->worker.joinable();
      });
    }
    Connection* conn = adopt(Fd(fd));
    if (conn == nullptr) continue;
    conn->worker = std::thread([this, conn] {
      if (config.cpu) pin_to_cpu(*config.cpu);
      while (conn->open) {
        service_connection(*conn);
        bump(counters.wakeups);
      }
      // The peer sees the end now; the descriptor itself closes when the acceptor reaps it.
      shutdown(conn->fd.get(), SHUT_RDWR);
      conn->worker_done.store(true);
    });
  }
  std::vector<std::unique_ptr<Connection>> all;
  {
    std::lock_guard lock(connections_mutex);
    all.swap(connections);
  }
  // stop() may have walked the list before the swap above found it empty: wake every worker
  // here too (shutting a socket down twice is harmless; descriptors close only below).
  for (auto& c : all)
    shutdown(c->fd.get(), SHUT_RDWR);
  for (auto& c : all)
    if (c->worker.joinable()) c->worker.join();
  return std::nullopt;
}

Server::Server(std::unique_ptr<State> state) : state_(std::move(state)) {}
Server::~Server() = default;

Expected<std::unique_ptr<Server>> Server::create(const ServerConfig& config) {
  if (auto e = validate(config)) return *std::move(e);
  auto state = std::make_unique<State>();
  state->config = config;
  if (auto e = state->open_sockets()) return *std::move(e);
  state->started = SteadyClock::now();
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

std::uint16_t Server::port() const {
  return state_->port;
}
const std::vector<std::string>& Server::startup_notes() const {
  return state_->notes;
}

std::optional<Error> Server::run() {
  State& s = *state_;
  if (s.ran) return Error{"run", "a server runs once"};
  s.ran = true;
  if (s.config.cpu)
    if (auto e = pin_to_cpu(*s.config.cpu)) return e;
  switch (s.config.mode) {
    case LoopMode::blocking:
      return s.run_blocking();
    case LoopMode::epoll:
    case LoopMode::kernel_busy_poll:
      return s.run_epoll();
    case LoopMode::busy:
      return s.run_busy();
    case LoopMode::adaptive:
      return s.run_adaptive();
  }
  return std::nullopt;
}

void Server::stop() {
  State& s = *state_;
  s.stopping.store(true);
  if (!s.blocking()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(s.wake.get(), &one, sizeof one);
    return;
  }
  // Shutting a socket down wakes every thread asleep on it (for an unconnected UDP socket the
  // call reports ENOTCONN but still marks it shut and wakes the reader).
  shutdown(s.socket.get(), SHUT_RDWR);
  std::lock_guard lock(s.connections_mutex);
  for (const auto& c : s.connections)
    if (!c->worker_done.load()) shutdown(c->fd.get(), SHUT_RDWR);
}

ServerStats Server::stats() const {
  const State& s = *state_;
  const Counters& c = s.counters;
  ServerStats out;
  out.elapsed = SteadyClock::now() - s.started;
  out.messages = read(c.messages);
  out.replies = read(c.replies);
  out.reply_failures = read(c.reply_failures);
  out.warmup = read(c.warmup);
  out.no_reply = read(c.no_reply);
  for (std::size_t i = 0; i < out.rejected.size(); ++i)
    out.rejected[i] = read(c.rejected[i]);
  out.connections_accepted = read(c.connections_accepted);
  out.connections_closed = read(c.connections_closed);
  out.connections_refused = read(c.connections_refused);
  out.wakeups = read(c.wakeups);
  out.spins = read(c.spins);
  out.timer_sleeps = read(c.timer_sleeps);
  out.mode_switches = read(c.mode_switches);
  out.recheck_found_work = read(c.recheck_found_work);
  out.mean_gap = Duration{c.mean_gap_ns.load(std::memory_order_relaxed)};
  out.gap_deviation = Duration{c.gap_deviation_ns.load(std::memory_order_relaxed)};
  out.spin_window = Duration{c.spin_window_ns.load(std::memory_order_relaxed)};
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) == 0) {
    const auto to_duration = [](const timeval& t) {
      return seconds(t.tv_sec) + microseconds(t.tv_usec);
    };
    out.cpu_user = to_duration(u.ru_utime);
    out.cpu_system = to_duration(u.ru_stime);
    out.voluntary_switches = static_cast<std::uint64_t>(u.ru_nvcsw);
    out.involuntary_switches = static_cast<std::uint64_t>(u.ru_nivcsw);
  }
  return out;
}

}  // namespace irqmod::rt
