// `irqmod serve`'s server: its modes by name, and the public calls (create, run, stop, stats).
// The parts: server_io.cpp, server_loops.cpp, server_host.cpp; their shared state is
// server_state.hpp.
#include "irqmod/rt/server.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>

#include "server_state.hpp"

namespace irqmod::rt {

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

std::string_view transport_name(Transport t) {
  return t == Transport::udp ? "udp" : "tcp";
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
    if (auto e = State::pin_to_cpu(*s.config.cpu)) return e;
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
  const State::Counters& c = s.counters;
  ServerStats out;
  out.elapsed = SteadyClock::now() - s.started;
  out.messages = State::load(c.messages);
  out.replies = State::load(c.replies);
  out.reply_failures = State::load(c.reply_failures);
  out.warmup = State::load(c.warmup);
  out.no_reply = State::load(c.no_reply);
  for (std::size_t i = 0; i < out.rejected.size(); ++i)
    out.rejected[i] = State::load(c.rejected[i]);
  out.connections_accepted = State::load(c.connections_accepted);
  out.connections_closed = State::load(c.connections_closed);
  out.connections_refused = State::load(c.connections_refused);
  out.wakeups = State::load(c.wakeups);
  out.spins = State::load(c.spins);
  out.timer_sleeps = State::load(c.timer_sleeps);
  out.mode_switches = State::load(c.mode_switches);
  out.recheck_found_work = State::load(c.recheck_found_work);
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
