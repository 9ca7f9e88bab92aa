// Server's private state, shared by its parts: server.cpp (the public calls), server_io.cpp
// (sockets, reads and replies), server_loops.cpp (the five wait loops) and server_host.cpp (what
// is probed on the host). Not installed. Its helpers are static members, so that the parts call
// them unqualified without a using-declaration that a unity batch would carry into other files.
#pragma once

#include <sys/epoll.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fd.hpp"
#include "irqmod/rt/server.hpp"
#include "irqmod/rt/sockperf_protocol.hpp"

namespace irqmod::rt {

namespace sp = sockperf;

// Server::State's members are named types (State is not in an anonymous namespace).
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

struct Server::State {
  using Fd = detail::Fd;
  using Counters = detail::Counters;
  using Connection = detail::Connection;

  // What one read did.
  enum class Io : std::uint8_t {
    progress,  // bytes or a datagram were taken
    empty,     // nothing there (EAGAIN)
    closed,    // the connection (or, when stopping, the socket) is finished
  };

  // Events taken from one epoll_wait: as many as a NAPI poll's weight, no reason to differ.
  static constexpr int kMaxEvents = 64;
  // A UDP receive buffer one byte larger than the largest sockperf message, so a larger
  // datagram is seen as oversized (MSG_TRUNC also reports its real size).
  static constexpr std::size_t kDatagramBuffer = sp::kMaxMessageSize + 1;
  // epoll user data for the two fixed descriptors; connections use their address.
  static constexpr std::uint64_t kTagWake = 0;
  static constexpr std::uint64_t kTagMain = 1;

  static void bump(std::atomic<std::uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); }
  static std::uint64_t load(const std::atomic<std::uint64_t>& c) {
    return c.load(std::memory_order_relaxed);
  }
  static bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK; }
  static std::string errno_text(int err);
  static Error sys_error(std::string key, const std::string& what, int err);
  // Pins the calling thread to `cpu` (--cpu). server_host.cpp.
  static std::optional<Error> pin_to_cpu(int cpu);
  // A sysctl's value as its file holds it, or "unreadable". server_host.cpp.
  static std::string read_sysctl(const char* path);

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

}  // namespace irqmod::rt
