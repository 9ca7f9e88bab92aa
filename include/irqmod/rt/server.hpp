// The sockperf-compatible server behind `irqmod serve` (issue 5), Linux only.
//
// One receive loop, five ways to wait for the next message (LoopMode). Every mode answers with
// the same pure protocol code (sockperf_protocol.hpp) and counts into the same ServerStats.
//   blocking          one thread per socket, each asleep in recvfrom/recv/accept
//   epoll             one thread, epoll_wait(-1) whenever the sockets are drained
//   busy              one thread, non-blocking reads in a loop that never sleeps
//   adaptive          busy, but on idle asks irqmod::adaptive_poll whether to spin, sleep on a
//                     timer until just before the predicted arrival, or block in epoll_wait
//                     after re-checking the armed wait (try_enter / recheck / exit)
//   kernel_busy_poll  epoll, with SO_BUSY_POLL, SO_PREFER_BUSY_POLL, SO_BUSY_POLL_BUDGET on the
//                     sockets and EPIOCSPARAMS on the epoll instance where the kernel accepts
//                     them: the kernel spins inside the wait instead of the application
// Design, counters and limits: docs/runtime.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/policy/adaptive_poll.hpp"
#include "irqmod/rt/stats.hpp"

namespace irqmod::rt {

enum class Transport : std::uint8_t { udp, tcp };

enum class LoopMode : std::uint8_t { blocking, epoll, busy, adaptive, kernel_busy_poll };

// "blocking", "epoll", "busy", "adaptive", "kernel-busy-poll" (the --mode spellings).
std::string_view mode_name(LoopMode mode);
Expected<LoopMode> parse_mode(std::string_view text);
std::string_view transport_name(Transport t);

// The kernel busy-poll knobs (docs/research/napi-busy-poll.md §1.8).
struct KernelBusyPollConfig {
  // SO_BUSY_POLL and EPIOCSPARAMS busy_poll_usecs, in the kernel's µs (1024 ns). Default 50:
  // seed 000's busy_read = busy_poll = 50.
  std::uint32_t busy_poll_usecs = 50;
  // SO_BUSY_POLL_BUDGET and EPIOCSPARAMS busy_poll_budget, packets per NAPI poll. Default 64:
  // NAPI_POLL_WEIGHT, the largest budget epoll accepts without CAP_NET_ADMIN.
  std::uint16_t budget = 64;
  // SO_PREFER_BUSY_POLL and EPIOCSPARAMS prefer_busy_poll. Default on: the point of the mode.
  // With it set, a Linux >= 6.13 epoll busy-polls once even when busy_poll_usecs is 0
  // (ep_busy_loop_on), and suspends the NAPI's interrupts for its irq-suspend-timeout while
  // epoll_wait finds events (ep_suspend_napi_irqs; docs/research/irq-suspend-modes.md 2.2).
  bool prefer_busy_poll = true;
};

// The most busy_poll_usecs the kernel takes: EPIOCSPARAMS refuses more than INT_MAX
// (ioctl_eventpoll(2)).
inline constexpr std::uint32_t kMaxBusyPollUsecs = 2147483647;
// The longest epoll_wait timeout the epoll loops take, in ms: one minute, far beyond any use
// (the 6.13 series' fullbusy case uses 1 ms).
inline constexpr int kMaxEpollTimeoutMs = 60000;

struct ServerConfig {
  Transport transport = Transport::udp;  // sockperf's default protocol
  // IPv4 address to listen on. Default loopback: the benchmark's and the tests' target.
  std::string ip = "127.0.0.1";
  // Port; 0 asks the kernel for a free one (port() tells which). Default 11111: sockperf's.
  std::uint16_t port = 11111;
  // Default epoll: sockperf sr's default I/O multiplexer (`-F e`).
  LoopMode mode = LoopMode::epoll;
  // CPU the receive loop (and in blocking mode every worker) is pinned to; empty = not pinned.
  std::optional<int> cpu;
  // The adaptive mode's controller; the policy library's defaults (adaptive_poll.hpp).
  adaptive_poll::Config adaptive{};
  KernelBusyPollConfig kernel_busy_poll{};
  // epoll and kernel-busy-poll modes: the epoll_wait timeout in ms. Default -1: wait until an
  // event (sockperf sr's loop). A positive timeout with kernel busy polling is the 6.13 series'
  // `fullbusy` case (its patched libevent waits 1 ms, so the thread busy-polls for
  // busy_poll_usecs and never sleeps long); 0 never sleeps and never busy-polls in the kernel
  // (ep_poll returns before ep_busy_loop when the timeout is 0).
  int epoll_timeout_ms = -1;
  // Most TCP connections served at once; more are accepted and closed at once. Each costs one
  // 64 KiB frame buffer, so this bounds memory under a connection flood (256 x 64 KiB = 16 MiB).
  std::size_t max_connections = 256;
  // Messages read from one socket before turning to the next. Default 64: NAPI_POLL_WEIGHT, the
  // kernel's own fairness quantum per queue.
  std::uint32_t batch = 64;
};

// The adaptive mode's prediction horizon (adaptive_poll::Config::max_predicted_gap) for this
// host: the idle-poll window Seastar would choose (reactor.cc calculate_poll_time,
// docs/research/napi-busy-poll.md §4.1), 2000 µs when virtualized ("IPIs are slow and dominate
// sleep/wake"), else 200 µs, so the poller predicts the gaps it predicted when the window was
// also the horizon, while its spin limit stays at kAdaptiveIdlePollWindow. Seastar tests
// /sys/hypervisor/type, which only Xen provides; this also reads the CPUID `hypervisor` flag in
// /proc/cpuinfo, which KVM, Firecracker, Hyper-V and VMware guests set. `why` receives a
// one-line reason.
// Whether this machine is a guest: /sys/hypervisor/type exists or a CPU has the flag
// 'hypervisor'; `why` (may be null) says which, or that neither.
bool host_is_virtualized(std::string* why);
Duration host_max_predicted_gap(std::string* why);

// The adaptive mode's spin limit (adaptive_poll::Config::idle_poll_window) on every host: 200 µs,
// haltpoll's guest_halt_poll_ns (a guest's own idle-poll limit, note §4.2) and Seastar's bare
// metal window. Not Seastar's 2000 µs for guests: with that, every failed prediction at
// 1000 msg/s spun up to 2 ms and the server used 28-89 % of busy's CPU (docs/runtime.md).
inline constexpr Duration kAdaptiveIdlePollWindow = adaptive_poll::kBareMetalIdlePollWindow;

// The adaptive mode's wakeup_cost for this host: how late a timed sleep ends, measured over
// `samples` absolute sleeps of `sleep` each (timer slack 1 ns), at the 90th percentile. The
// poller wakes this early before a predicted arrival. adaptive_poll's 10 µs default comes from
// sockperf on bare metal; a virtual machine's timer wake-up can cost several times that.
Duration measure_timed_sleep_overshoot(int samples, Duration sleep);

// Checks what can be checked without the network; the key is the command-line flag.
std::optional<Error> validate(const ServerConfig& config);

class Server {
 public:
  // Validates, creates and binds the sockets (and applies the kernel busy-poll options). A
  // system call that fails is reported with its errno text.
  static Expected<std::unique_ptr<Server>> create(const ServerConfig& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The bound port (the kernel's choice when the config asked for 0).
  std::uint16_t port() const;
  // One line per kernel option tried at start-up: what was accepted, what was refused and why.
  const std::vector<std::string>& startup_notes() const;

  // Runs the receive loop in the calling thread until stop(); may be called once.
  // Returns an error only when the loop could not continue (an unexpected system call failure).
  std::optional<Error> run();
  // Asks run() to return soon; safe from any thread (not from a signal handler).
  void stop();
  // Totals so far; safe from any thread while run() is going.
  ServerStats stats() const;

  struct State;

 private:
  explicit Server(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace irqmod::rt
