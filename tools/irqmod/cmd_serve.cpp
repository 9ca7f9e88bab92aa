// irqmod serve [--udp|--tcp] [-i|--ip A] [-p|--port P] [--mode M] [--cpu N] [--stats-interval S]
// [--json]
//
// Answers the real sockperf client (ping-pong, under-load, throughput; UDP or TCP) until SIGINT
// or SIGTERM, printing its statistics every --stats-interval and at exit.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "irqmod/rt/server.hpp"

namespace irqmod::cli {
namespace {

// Start-up measurement of the timed-sleep wake-up cost: 100 sleeps of 500 µs (about 60 ms in
// all). 500 µs sits among the sleeps the poller takes at 1000-10000 msg/s; on this project's
// 2-vCPU VM the lateness of 200 µs sleeps was lower and less stable (p90 26-58 µs) than that of
// 500-900 µs sleeps (p90 ~66 µs), and a cost measured too low wakes the loop after the message.
constexpr int kWakeupSamples = 100;
constexpr Duration kWakeupSampleSleep = microseconds(500);
// Largest value of the adaptive mode's µs flags: adaptive_poll's 10 s bound on its durations.
constexpr std::int64_t kMaxAdaptiveFlagMicroseconds = 10'000'000;
// Largest --busy-poll-budget: the u16 of EPIOCSPARAMS busy_poll_budget (above 64, NAPI_POLL_WEIGHT,
// the kernel asks for CAP_NET_ADMIN).
constexpr std::int64_t kMaxBusyPollBudget = 65535;
// Longest --stats-interval: one day, far beyond any run; keeps the timespec arithmetic simple.
constexpr double kMaxStatsIntervalSeconds = 86400.0;

std::string json_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// An adaptive-mode flag in µs as a Duration, or an error naming the flag.
Expected<Duration> microseconds_flag(std::int64_t us, const std::string& flag,
                                     const std::string& zero_means) {
  if (us < 0 || us > kMaxAdaptiveFlagMicroseconds)
    return Error{flag, "must be between 0 and " + std::to_string(kMaxAdaptiveFlagMicroseconds) +
                           " us" + zero_means};
  return microseconds(us);
}

void print_start(const rt::Server& server, const rt::ServerConfig& config,
                 const std::string& window_reason, const std::string& horizon_reason,
                 const std::string& cost_reason, bool json) {
  const std::string where = config.ip + ":" + std::to_string(server.port());
  std::vector<std::string> lines = server.startup_notes();
  if (config.mode == rt::LoopMode::adaptive) {
    lines.push_back("idle-poll window " +
                    std::to_string(config.adaptive.idle_poll_window.count() / 1000) + " us (" +
                    window_reason + ")");
    lines.push_back(
        "max predicted gap " +
        std::to_string(adaptive_poll::max_predicted_gap(config.adaptive).count() / 1000) + " us (" +
        horizon_reason + ")");
  }
  if (config.mode == rt::LoopMode::adaptive)
    lines.push_back("wakeup cost " + std::to_string(config.adaptive.wakeup_cost.count() / 1000) +
                    " us (" + cost_reason + ")");
  if (json) {
    std::string notes;
    for (const std::string& n : lines)
      notes += (notes.empty() ? "\"" : ", \"") + json_escape(n) + "\"";
    std::printf(
        "{\"event\": \"start\", \"transport\": \"%s\", \"ip\": \"%s\", \"port\": %u, "
        "\"mode\": \"%s\", \"notes\": [%s]}\n",
        std::string(rt::transport_name(config.transport)).c_str(), config.ip.c_str(),
        static_cast<unsigned>(server.port()), std::string(rt::mode_name(config.mode)).c_str(),
        notes.c_str());
  } else {
    std::printf("irqmod serve: listening on %s %s, mode %s\n",
                std::string(rt::transport_name(config.transport)).c_str(), where.c_str(),
                std::string(rt::mode_name(config.mode)).c_str());
    for (const std::string& n : lines)
      std::printf("irqmod serve: %s: %s\n", std::string(rt::mode_name(config.mode)).c_str(),
                  n.c_str());
  }
  std::fflush(stdout);
}

void print_stats(const rt::Server& server, bool json, const char* label) {
  const rt::ServerStats s = server.stats();
  const std::string line = json ? rt::format_json(s, label) : rt::format_text(s, label);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

void add_serve_command(CLI::App& app, int& status) {
  struct Args {
    bool udp = false;
    bool tcp = false;
    std::string ip = rt::ServerConfig{}.ip;
    std::uint16_t port = rt::ServerConfig{}.port;
    std::string mode = std::string(rt::mode_name(rt::ServerConfig{}.mode));
    std::optional<int> cpu;
    // Seconds between statistics lines; 0 = only at exit. Default 0: quiet unless asked.
    double stats_interval = 0;
    bool json = false;
    // adaptive: idle-poll window (spin limit) in µs; empty = rt::kAdaptiveIdlePollWindow.
    std::optional<std::int64_t> idle_poll_window_us;
    // adaptive: longest predicted gap in µs; empty = host_max_predicted_gap() (Seastar's rule).
    std::optional<std::int64_t> max_predicted_gap_us;
    // adaptive: wakeup cost in µs; empty = measured at start (measure_timed_sleep_overshoot).
    std::optional<std::int64_t> wakeup_cost_us;
    // adaptive: a fixed spin window in µs, no prediction (the frontier's fixed settings).
    std::optional<std::int64_t> fixed_spin_us;
    // kernel-busy-poll: the EPIOCSPARAMS / socket-option values; empty = KernelBusyPollConfig's.
    std::optional<std::int64_t> busy_poll_usecs;
    std::optional<std::int64_t> busy_poll_budget;
    std::optional<std::string> prefer_busy_poll;
    // epoll and kernel-busy-poll: epoll_wait's timeout in ms (-1 = until an event).
    std::optional<int> epoll_timeout_ms;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("serve", "Answer the sockperf client over UDP or TCP");
  auto* udp = cmd->add_flag("--udp", args->udp, "UDP (the default, as sockperf's)");
  auto* tcp = cmd->add_flag("--tcp", args->tcp, "TCP, messages framed by their length field");
  udp->excludes(tcp);
  // -i and -p as sockperf sr takes them.
  cmd->add_option("-i,--ip", args->ip, "IPv4 address to listen on (default 127.0.0.1)");
  cmd->add_option("-p,--port", args->port, "Port (default 11111, sockperf's; 0 = any free port)");
  cmd->add_option("--mode", args->mode,
                  "blocking, epoll (default, as sockperf sr), busy, adaptive, kernel-busy-poll");
  cmd->add_option("--cpu", args->cpu, "Pin the receive loop to this CPU");
  cmd->add_option("--stats-interval", args->stats_interval,
                  "Seconds between statistics lines (0 = only at exit)");
  cmd->add_flag("--json", args->json, "Print the start line and statistics as JSON lines");
  cmd->add_option("--idle-poll-window", args->idle_poll_window_us,
                  "adaptive: longest spin when no prediction holds, in us (default 200, "
                  "haltpoll's guest_halt_poll_ns)");
  cmd->add_option("--max-predicted-gap", args->max_predicted_gap_us,
                  "adaptive: longest gap slept through on a prediction, in us (default: 2000 "
                  "when virtualized, else 200, Seastar's idle-poll window)");
  cmd->add_option("--wakeup-cost", args->wakeup_cost_us,
                  "adaptive: how early to wake before a predicted arrival, in us (default: the "
                  "measured 90th percentile lateness of a timed sleep on this host)");

  cmd->add_option("--fixed-spin", args->fixed_spin_us,
                  "adaptive: spin this many us, then block; no prediction and no adaptation of "
                  "the window (the fixed settings adaptive is judged against)");
  cmd->add_option("--busy-poll-usecs", args->busy_poll_usecs,
                  "kernel-busy-poll: SO_BUSY_POLL and EPIOCSPARAMS busy_poll_usecs (default 50; "
                  "0 with --prefer-busy-poll on: one poll per wait, the 6.13 suspend mode)");
  cmd->add_option("--busy-poll-budget", args->busy_poll_budget,
                  "kernel-busy-poll: packets per busy poll (default 64, NAPI_POLL_WEIGHT)");
  cmd->add_option("--prefer-busy-poll", args->prefer_busy_poll,
                  "kernel-busy-poll: on (default) or off: SO_PREFER_BUSY_POLL and EPIOCSPARAMS "
                  "prefer_busy_poll, which IRQ suspension needs");
  cmd->add_option("--epoll-timeout", args->epoll_timeout_ms,
                  "epoll, kernel-busy-poll: epoll_wait timeout in ms (default -1: until an "
                  "event; 1 with kernel busy polling is the 6.13 fullbusy case)");

  cmd->callback([args, &status] {
    const auto fail = [&status](const Error& e) {
      std::cerr << "irqmod serve: " << e.what() << "\n";
      status = exit_status_for(e);
    };
    rt::ServerConfig config;
    config.transport = args->tcp ? rt::Transport::tcp : rt::Transport::udp;
    config.ip = args->ip;
    config.port = args->port;
    config.cpu = args->cpu;
    const Expected<rt::LoopMode> mode = rt::parse_mode(args->mode);
    if (!mode) return fail(mode.error());
    config.mode = *mode;
    std::string window_reason = "--idle-poll-window";
    if (args->idle_poll_window_us) {
      const Expected<Duration> d =
          microseconds_flag(*args->idle_poll_window_us, window_reason, " (0 = never spin)");
      if (!d) return fail(d.error());
      config.adaptive.idle_poll_window = *d;
    } else {
      config.adaptive.idle_poll_window = rt::kAdaptiveIdlePollWindow;
      window_reason = "haltpoll's guest_halt_poll_ns";
    }
    std::string horizon_reason = "--max-predicted-gap";
    if (args->max_predicted_gap_us) {
      const Expected<Duration> d =
          microseconds_flag(*args->max_predicted_gap_us, horizon_reason, " (0 = never predict)");
      if (!d) return fail(d.error());
      config.adaptive.max_predicted_gap = *d;
    } else {
      config.adaptive.max_predicted_gap = rt::host_max_predicted_gap(&horizon_reason);
    }
    std::string cost_reason = "--wakeup-cost";
    if (args->wakeup_cost_us) {
      const Expected<Duration> d = microseconds_flag(*args->wakeup_cost_us, cost_reason, "");
      if (!d) return fail(d.error());
      config.adaptive.wakeup_cost = *d;
    } else if (config.mode == rt::LoopMode::adaptive) {
      config.adaptive.wakeup_cost =
          rt::measure_timed_sleep_overshoot(kWakeupSamples, kWakeupSampleSleep);
      cost_reason = "90th percentile lateness of " + std::to_string(kWakeupSamples) +
                    " timed sleeps of " + std::to_string(kWakeupSampleSleep.count() / 1000) +
                    " us, measured now";
    }
    if (args->fixed_spin_us) {
      if (config.mode != rt::LoopMode::adaptive)
        return fail(Error{"--fixed-spin", "applies to --mode adaptive only"});
      if (args->idle_poll_window_us || args->max_predicted_gap_us)
        return fail(Error{"--fixed-spin",
                          "sets the window and turns prediction off: give it without "
                          "--idle-poll-window and --max-predicted-gap"});
      const Expected<Duration> d =
          microseconds_flag(*args->fixed_spin_us, "--fixed-spin", " (0 = block at once)");
      if (!d) return fail(d.error());
      // A window that neither grows nor shrinks (factors 1, start = the window) and a horizon
      // of 0: the poller spins up to the window after every message, then blocks.
      config.adaptive.idle_poll_window = *d;
      if (*d > Duration::zero()) config.adaptive.spin_grow_start = *d;
      config.adaptive.spin_grow = 1;
      config.adaptive.spin_shrink = 1;
      config.adaptive.max_predicted_gap = Duration::zero();
      window_reason = horizon_reason = "--fixed-spin";
    }
    // The first spin window may not exceed a non-zero window (adaptive_poll::validate).
    if (config.adaptive.idle_poll_window > Duration::zero())
      config.adaptive.spin_grow_start =
          std::min(config.adaptive.spin_grow_start, config.adaptive.idle_poll_window);
    // The kernel busy-poll flags shape that mode only; elsewhere they would be ignored.
    const std::pair<const char*, bool> kernel_flags[] = {
        {"--busy-poll-usecs", args->busy_poll_usecs.has_value()},
        {"--busy-poll-budget", args->busy_poll_budget.has_value()},
        {"--prefer-busy-poll", args->prefer_busy_poll.has_value()}};
    for (const auto& [flag, given] : kernel_flags)
      if (given && config.mode != rt::LoopMode::kernel_busy_poll)
        return fail(Error{flag, "applies to --mode kernel-busy-poll only"});
    if (args->busy_poll_usecs) {
      if (*args->busy_poll_usecs < 0 || *args->busy_poll_usecs > rt::kMaxBusyPollUsecs)
        return fail(Error{"--busy-poll-usecs", std::to_string(*args->busy_poll_usecs) +
                                                   ": allowed 0 to " +
                                                   std::to_string(rt::kMaxBusyPollUsecs)});
      config.kernel_busy_poll.busy_poll_usecs = static_cast<std::uint32_t>(*args->busy_poll_usecs);
    }
    if (args->busy_poll_budget) {
      if (*args->busy_poll_budget < 1 || *args->busy_poll_budget > kMaxBusyPollBudget)
        return fail(Error{"--busy-poll-budget", std::to_string(*args->busy_poll_budget) +
                                                    ": allowed 1 to " +
                                                    std::to_string(kMaxBusyPollBudget)});
      config.kernel_busy_poll.budget = static_cast<std::uint16_t>(*args->busy_poll_budget);
    }
    if (args->prefer_busy_poll) {
      if (*args->prefer_busy_poll != "on" && *args->prefer_busy_poll != "off")
        return fail(
            Error{"--prefer-busy-poll", "'" + *args->prefer_busy_poll + "': allowed on, off"});
      config.kernel_busy_poll.prefer_busy_poll = *args->prefer_busy_poll == "on";
    }
    if (args->epoll_timeout_ms) config.epoll_timeout_ms = *args->epoll_timeout_ms;
    if (!(args->stats_interval >= 0 && args->stats_interval <= kMaxStatsIntervalSeconds))
      return fail(Error{"--stats-interval", "must be between 0 and 86400 seconds (0 = at exit)"});

    // SIGINT and SIGTERM (and SIGUSR1, the loop's "I ended") are taken by sigtimedwait below,
    // never by a handler: block them before any thread exists so every thread inherits that.
    // A shell starts background jobs with SIGINT ignored, and an ignored signal is discarded
    // even while blocked: restore the default so that sigtimedwait sees it.
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    Expected<std::unique_ptr<rt::Server>> created = rt::Server::create(config);
    if (!created) return fail(created.error());
    rt::Server& server = **created;
    print_start(server, config, window_reason, horizon_reason, cost_reason, args->json);

    std::optional<Error> loop_error;
    const pthread_t main_thread = pthread_self();
    std::thread loop([&] {
      loop_error = server.run();
      pthread_kill(main_thread, SIGUSR1);
    });

    const double whole = std::floor(args->stats_interval);
    const timespec interval{static_cast<time_t>(whole),
                            static_cast<long>((args->stats_interval - whole) * 1e9)};
    const bool periodic = args->stats_interval > 0;
    for (;;) {
      const int sig = sigtimedwait(&signals, nullptr, periodic ? &interval : nullptr);
      if (sig < 0) {
        if (errno == EAGAIN) print_stats(server, args->json, "stats");
        continue;  // EAGAIN: the interval passed; EINTR: another signal
      }
      break;  // SIGINT, SIGTERM, or the loop ended by itself (SIGUSR1)
    }
    server.stop();
    loop.join();
    print_stats(server, args->json, "final");
    if (loop_error) {
      std::cerr << "irqmod serve: " << loop_error->what() << "\n";
      status = kExitRunFailed;  // the loop failed after start-up
      return;
    }
    status = kExitOk;
  });
}

}  // namespace irqmod::cli
