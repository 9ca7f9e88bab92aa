// The host costs the simulator charges, measured on the running kernel (`irqmod calibrate`,
// bench/host_calibration_bench.cpp; docs/calibration.md "irqmod calibrate" says what each one
// times and how the keys are derived from them).
//
// Each measurement is a function that runs an operation again and again and returns one sample
// per operation (or per batch, where the function says so) in nanoseconds, with the cost of the
// clock read around it taken out. Every loop is bounded by a sample count and a time (Budget),
// and nothing waits for ever: a partner thread that fails releases the main one, a wait for a
// datagram has a timeout. The calling thread should be pinned to one CPU (CpuPin) for the
// single-threaded ones, so that caches stay warm and the scheduler does not move it mid-sample.
// Linux only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::rt::calibrate {

// How much one measurement may take: it stops at whichever limit comes first, after a warm-up
// of its own that is not sampled.
struct Budget {
  std::size_t samples = 1000;         // at most this many samples
  Duration time = milliseconds(200);  // and at most this long
};

// Nanoseconds per operation, in the order measured. A sample may be slightly negative for an
// operation cheaper than the clock read's spread.
using Samples = std::vector<std::int64_t>;

// The calling thread pinned to one CPU, its previous CPU mask restored at scope exit.
class CpuPin {
 public:
  // `nth` counts the CPUs the thread may run on now, from 0. Check error() before use.
  explicit CpuPin(int nth);
  CpuPin(const CpuPin&) = delete;
  CpuPin& operator=(const CpuPin&) = delete;
  ~CpuPin();

  int cpu() const { return cpu_; }  // the CPU pinned to, -1 on error
  const std::optional<Error>& error() const { return error_; }

 private:
  std::vector<unsigned char> saved_;  // the previous cpu_set_t, as bytes
  int cpu_ = -1;
  std::optional<Error> error_;
};

// The n-th CPU (from 0) the calling thread may run on, or -1 when it may run on fewer.
int allowed_cpu(int nth);

// ---- one thread, no privilege (calibrate_host.cpp) -------------------------------------------

// The calls below, by name, for calls_in_blocks.
enum class Call : std::uint8_t {
  clock_read,
  getppid,
  recvfrom_empty,
  epoll_wait_empty,
  epoll_wait_ready,
  poll_empty,
  xsk_sendto_unbound,
};

// Samples of each of `calls` (the functions below say what each times), taken in rounds of
// blocks (64 samples of one call, then of the next) until the budget (whose `samples` counts
// each call's) ends: a call stays warm within its block, and a change of the machine's load
// touches all calls alike, so the differences between them hold. A sample is the mean of 16
// calls (the clock steps by ~10 ns on the development VM, too coarse for one call). One result
// per call asked, in order; a call that cannot run has its Error.
std::vector<Expected<Samples>> calls_in_blocks(const Budget& budget,
                                               const std::vector<Call>& calls);

// Back-to-back CLOCK_MONOTONIC reads: the cost of one (a vDSO call with the tsc clocksource).
// The only measurement whose clock cost stays in.
Expected<Samples> clock_read(const Budget& budget);
// syscall(SYS_getppid): entry, a field read, exit.
Expected<Samples> null_syscall(const Budget& budget);
// recvfrom on an empty non-blocking UDP socket (EAGAIN).
Expected<Samples> udp_recv_empty(const Budget& budget);
// epoll_wait with timeout 0 on one empty UDP socket (0 events).
Expected<Samples> epoll_wait_empty(const Budget& budget);
// epoll_wait with timeout 0 on one UDP socket that has a datagram queued (level-triggered, so it
// stays ready: 1 event each time; the datagram is never read).
Expected<Samples> epoll_wait_ready(const Budget& budget);
// poll() with timeout 0 on one empty UDP socket.
Expected<Samples> poll_one_socket(const Budget& budget);
// sendto(MSG_DONTWAIT) on an AF_XDP socket that is not bound (ENXIO); an Error where AF_XDP
// sockets cannot be made (no CAP_NET_RAW, no XDP in the kernel).
Expected<Samples> xsk_sendto_unbound(const Budget& budget);

// ---- messages over loopback, no privilege (calibrate_messages.cpp) ---------------------------

enum class MessageApi {
  sendto_recvfrom,  // sendto / recvfrom (send / recv on TCP)
  sendmsg_recvmsg,  // sendmsg / recvmsg with one iovec
};

struct MessageSamples {
  Samples send;     // the sending call alone; on loopback it runs the receive softirq too
  Samples receive;  // the receiving call alone, of a message already queued
};

struct Message {
  bool tcp = false;  // TCP, else UDP
  MessageApi api = MessageApi::sendto_recvfrom;
  std::size_t size = 64;  // bytes
};

// Each of `messages` exchanged in rounds of blocks (32 of one, then of the next: each warm
// within its block, a change of load touching all alike) until the budget (whose `samples`
// counts each one's) ends; one result per message asked, in order. UDP and TCP as udp_loopback
// and tcp_loopback say.
std::vector<Expected<MessageSamples>> messages_in_blocks(const Budget& budget,
                                                         const std::vector<Message>& messages);

// UDP datagrams of `size` bytes (1 to 65507) between two sockets on 127.0.0.1.
Expected<MessageSamples> udp_loopback(const Budget& budget, std::size_t size, MessageApi api);
// TCP messages of `size` bytes (1 to 1 MiB) on one connection over 127.0.0.1, TCP_NODELAY
// (send / recv, or sendmsg / recvmsg); a receive takes the whole message (several calls if TCP
// split it, timed together).
Expected<MessageSamples> tcp_loopback(const Budget& budget, std::size_t size, MessageApi api);

// ---- threads (calibrate_threads.cpp) ---------------------------------------------------------

// Two threads pinned to the caller's CPU calling sched_yield in turn: one sample is one yield
// and the switch to the other thread. `switched` (if given) receives the partner's yields per
// sampled yield, about 1 when every yield switched.
Expected<Samples> yield_switch(const Budget& budget, double* switched = nullptr);

enum class WakeCore {
  same,   // the blocked thread on the waker's CPU
  other,  // on another CPU (an Error when the thread may run on one CPU only)
};

// Latency of waking a thread blocked in an eventfd read: from just before the waker's
// eventfd_write to the woken thread back in userspace, read by that thread (CLOCK_MONOTONIC is
// one clock across CPUs). `idle` is how long the wakee stays blocked before each wake-up: 0
// wakes it as soon as it blocks; up to 100 us the waker spins meanwhile, longer it sleeps, so
// both CPUs can halt. On the same CPU the wakee runs only once the waker blocks in its own read,
// so a sample there also holds that read's entry and the switch.
Expected<Samples> wakeup_latency(const Budget& budget, WakeCore core, Duration idle);
// The same for each of `idles` in turn, one sample of each per round (the budget's `samples`
// counts rounds), so that their differences hold when the machine's load changes.
Expected<std::vector<Samples>> wakeup_latencies(const Budget& budget, WakeCore core,
                                                const std::vector<Duration>& idles);

// The waker's side of waking a thread blocked in an eventfd read on the other CPU, `idle` after
// it blocked (the waker spinning meanwhile, so only the wakee's CPU idles): the eventfd_write's
// own duration (try_to_wake_up and the IPI it sends to the idle CPU), and beside each one the
// same call on an eventfd nobody waits on; and the woken thread's own CPU time
// (CLOCK_THREAD_CPUTIME_ID) from just before its blocking eventfd_read to just after it returns:
// what of the wake-up its CPU spends running it (the read's entry and block, the switch-in and
// the return), the rest being the idle CPU halted or in its idle loop.
struct WakeSend {
  Samples waking;
  Samples alone;
  Samples woken_run;
};
Expected<WakeSend> wakeup_send(const Budget& budget, Duration idle);

// How late a relative clock_nanosleep of `timeout` returns with the thread's timer slack set to
// 1 ns (restored after): the hrtimer's lateness plus the sleeper's wake-up and switch-in.
Expected<Samples> hrtimer_lateness(const Budget& budget, Duration timeout);

// ---- the CPU's clock-event device (calibrate_timers.cpp) -------------------------------------

// Programming the CPU's clock-event device, on one CPU (the calling thread pinned to the one it
// is on, restored after): timerfd_settime arming a disarmed timer 200 us ahead, the CPU's
// earliest expiry while the thread runs (the tick is up to 1/HZ away; hrtimer_reprogram writes
// the device), then disarming it (hrtimer_cancel of the earliest: hrtimer_force_reprogram);
// beside each pair the same two calls on a timer 10 s ahead, behind the tick (no write). One
// call a sample; the four kinds in turn.
struct TimerProgramming {
  Samples arm_soon;
  Samples cancel_soon;
  Samples arm_far;
  Samples cancel_far;
};
Expected<TimerProgramming> timer_programming(const Budget& budget);

// The CPU time a timer interrupt takes from the thread it interrupts, on one CPU (pinned as
// above): the thread arms a timerfd 50 us ahead and spins reading the clock for 150 us; a sample
// is the largest gap between two reads (entry, hrtimer_interrupt with the timerfd's callback,
// the device programmed for the next expiry, exit). Beside each, the largest gap in 150 us of
// the same spin with no timer armed (a clock read, and whatever else interrupts).
struct TimerInterruptGaps {
  Samples with_timer;
  Samples without;
};
Expected<TimerInterruptGaps> timer_interrupt_gaps(const Budget& budget);

// A thread's own wake-up by its CPU's timer, on one CPU (pinned as above): its own CPU time
// (CLOCK_THREAD_CPUTIME_ID) across an epoll_wait on a timerfd armed 100 us ahead, so that the
// call blocks, the CPU idles and the timer's interrupt wakes the thread where the idle task ran
// (the switch out, the switch in from idle, the return to user space); beside each, the same
// call when the timerfd has already expired (the call returning at once).
struct OwnTimerWakeups {
  Samples blocked;
  Samples ready;
};
Expected<OwnTimerWakeups> own_timer_wakeups(const Budget& budget);

// The host's noise: what takes a CPU from the thread running on it (the tick, device
// interrupts, other tasks, a virtual machine's exits and the host's preemption of its vCPU). A
// thread on each CPU the caller may run on (at most kNoiseCpus), pinned, all at once, spins
// reading the clock for the budget's time; a gap between two reads longer than kNoiseFloor is
// one event, its length the gap. Events up to kNoiseSplit long are `lengths`, longer ones
// `long_lengths` (the simulator's cpu.noise and cpu.noise-long); `intervals` and
// `long_intervals` the times from one event's start to the next one's of its kind on the same
// CPU (cpu.noise-interval, cpu.noise-long-interval); `spun` has one sample per CPU, the
// nanoseconds it spun (a check: the events' counts over it are their rates).
inline constexpr Duration kNoiseFloor = microseconds(5);
inline constexpr Duration kNoiseSplit = microseconds(256);
inline constexpr int kNoiseCpus = 8;
struct HostNoise {
  Samples lengths;
  Samples long_lengths;
  Samples intervals;
  Samples long_intervals;
  Samples spun;
};
Expected<HostNoise> host_noise(const Budget& budget);

// The kernel's CONFIG_HZ, from /proc/config.gz (read with zcat) or /boot/config-RELEASE; an
// error saying where it looked when neither has it.
Expected<int> kernel_hz();

// ---- kernel paths in the lab's namespaces, root (calibrate_paths.cpp) ------------------------

// Where a batch of UDP segments goes after the sender's UDP/IP transmit path.
enum class Path {
  tun,               // a tun device whose queue is full: the driver's xmit drops each segment
  loopback,          // lo: netif_rx to the backlog, process_backlog, the stack, a socket
  loopback_dropped,  // lo with a drop filter at tc ingress: the backlog path, then dropped
  veth_dropped,      // veth with GRO (NAPI): veth_xmit, veth_poll, dropped at the peer's ingress
};

const char* path_name(Path path);

// Two network namespaces (the lab's, irqmod/rt/lab.hpp) with the devices each Path needs, made
// on construction and removed on destruction. The sending socket uses UDP GSO (UDP_SEGMENT) with
// software segmentation (tx-udp-segmentation off), so one sendmsg puts a whole batch through
// the device before the softirq that runs on its local_bh_enable polls it: one poll of N packets.
class PathLab {
 public:
  // Needs root; an Error says what failed (the partial set-up is removed).
  static Expected<std::unique_ptr<PathLab>> open();
  PathLab(const PathLab&) = delete;
  PathLab& operator=(const PathLab&) = delete;
  ~PathLab();

  // One sendmsg of `segments` (1 to 64) datagrams of 64 bytes through `path`.
  struct Batch {
    Path path = Path::tun;
    std::size_t segments = 1;
  };
  struct PathSamples {
    std::vector<Samples> per_batch;  // per batch asked for, in order
    // NET_RX softirqs this CPU counted (/proc/softirqs) per send of a batch that is received:
    // 1 when each batch was polled in the softirq its own send ran.
    double softirqs_per_send = 0;
  };

  // Sends `batches` in rounds of blocks (32 sends of one kind, then of the next), so that each
  // kind's path stays warm within its block and a change of the machine's load touches all
  // kinds alike, until the budget (whose `samples` counts each kind's) ends. A sample is one
  // batch's sendmsg, the NET_RX softirq it runs included; delivered datagrams are read back,
  // not timed.
  Expected<PathSamples> send(const Budget& budget, const std::vector<Batch>& batches);

  struct Sockets;

 private:
  PathLab() = default;
  std::string name_;                  // the lab's name
  std::unique_ptr<Sockets> sockets_;  // the sockets and the tun device's file
};

}  // namespace irqmod::rt::calibrate
