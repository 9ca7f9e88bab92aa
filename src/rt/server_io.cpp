// `irqmod serve`'s sockets, reads and replies: the socket and its options (kernel busy poll,
// receive stamps, epoll's busy-poll parameters), a datagram or a TCP stream's messages answered,
// connections accepted, drained and reaped.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

#include "server_state.hpp"

namespace irqmod::rt {
namespace {

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
// Room for the control messages a recvmsg can carry here: one SCM_TIMESTAMPNS.
constexpr std::size_t kControlBuffer = CMSG_SPACE(sizeof(timespec));

// What a setting's start-up note says: "accepted" (err 0), or "refused (why)" and, for an errno
// that `hints` names, what it means on this kernel.
struct ErrnoHint {
  int err;
  const char* text;
};
std::string outcome(int err, std::initializer_list<ErrnoHint> hints) {
  if (err == 0) return "accepted";
  std::string text = "refused (" + std::string(std::strerror(err)) + ")";
  for (const ErrnoHint& h : hints)
    if (h.err == err) text += std::string(": ") + h.text;
  return text;
}

}  // namespace

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
    const int err = rc == 0 ? 0 : errno;
    notes.push_back(
        std::string(o.text) + "=" + std::to_string(o.value) + ": " +
        outcome(err, {{EPERM, "raising it needs CAP_NET_ADMIN"},
                      {ENOPROTOOPT, "this kernel does not know the option (Linux < 5.11)"}}));
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
    const int err = ioctl(epoll.get(), kEpiocsparams, &params) == 0 ? 0 : errno;
    notes.push_back(
        "EPIOCSPARAMS busy_poll_usecs=" + std::to_string(k.busy_poll_usecs) +
        " busy_poll_budget=" + std::to_string(k.budget) +
        " prefer_busy_poll=" + std::to_string(k.prefer_busy_poll ? 1 : 0) + ": " +
        outcome(err, {{ENOTTY, "this kernel has no epoll busy-poll parameters (Linux < 6.9)"},
                      {EPERM, "a budget above 64 needs CAP_NET_ADMIN"}}));
  }
  return std::nullopt;
}

// Reads one datagram and answers it if it is a pong request.
Server::State::Io Server::State::receive_datagram() {
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
Server::State::Io Server::State::service_connection(Connection& conn) {
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

Server::State::Connection* Server::State::adopt(Fd fd) {
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

}  // namespace irqmod::rt
