// `irqmod serve`'s wait loops: epoll (and the kernel's busy poll through it), a spinning loop,
// the adaptive spin-then-sleep controller, and blocking reads with a thread per connection.
#include <poll.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <thread>
#include <vector>

#include "server_state.hpp"

namespace irqmod::rt {

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

}  // namespace irqmod::rt
