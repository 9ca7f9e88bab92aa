// Every key irqmod calibrate writes, derived from the raw measurements (calibrate_planner.hpp).
// The definitions follow docs/calibration.md ("Where the model charges each key"); a key
// "beyond cpu.syscall" has getppid's median taken out.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "calibrate_planner.hpp"
#include "irqmod/rt/server.hpp"

namespace irqmod::rt::calibrate::detail {
namespace {

constexpr double kSmall = kSmallBatch;
// Segments between the two batches: the divisor of every per-packet slope.
constexpr double kSpan = kLargeBatch - kSmallBatch;

// The per-packet slope and the fixed part of a path, from its two batch sizes' medians.
struct Line {
  double slope = 0;
  double intercept = 0;
};

Line line_of(const Planner& p, Path path) {
  const double small = p.median(path_sample(path, kSmallBatch));
  const double large = p.median(path_sample(path, kLargeBatch));
  const double slope = (large - small) / kSpan;
  return {slope, small - kSmall * slope};
}

void calls(Planner& p) {
  const auto syscall = [&p] { return p.median("getppid"); };
  const auto nothing = [] { return 0.0; };
  p.key("cpu.syscall", "syscall(SYS_getppid): entry, a field read, exit", "getppid", {}, nothing);
  p.key("cpu.busy-poll-iteration",
        "recvfrom on an empty non-blocking UDP socket, its system call included: one turn of a "
        "userspace busy loop (the kernel's own turn has no system call but polls a driver)",
        "recvfrom-empty", {}, nothing);
  p.key("cpu.poll-call", "poll(timeout 0) on one empty UDP socket, less cpu.syscall", "poll-empty",
        {"getppid"}, syscall);
  p.key("cpu.socket-call",
        "sendto(MSG_DONTWAIT) on an unbound AF_XDP socket (ENXIO: the dispatch to xsk_sendmsg), "
        "less cpu.syscall",
        "xsk-sendto", {"getppid"}, syscall);
  p.key("cpu.epoll-wait",
        "epoll_wait(timeout 0) returning the one ready socket it watches, its system call "
        "included (the key is a whole call)",
        "epoll-wait-ready", {}, nothing);
  p.key("cpu.recv-empty",
        "recvfrom on an empty non-blocking UDP socket, its system call included: the call that "
        "ends a drain with EAGAIN (the key is a whole call)",
        "recvfrom-empty", {}, nothing);
  p.key("cpu.epoll-empty", "epoll_wait(timeout 0) on one empty socket, less cpu.syscall",
        "epoll-wait-empty", {"getppid"}, syscall);
  p.key("cpu.app-message",
        "recvfrom of a queued 64 B UDP datagram, less cpu.syscall: dequeue, copy, free",
        "udp-recvfrom-64b", {"getppid"}, syscall);
  constexpr double kCopiedKib = (16384.0 - 64.0) / 1024.0;
  p.key(
      "cpu.copy-kb",
      "per KiB: (recvfrom of a 16384 B datagram - recvfrom of 64 B) / 15.94 KiB; spread of the "
      "16384 B receive, scaled",
      "udp-recvfrom-16384b", {"udp-recvfrom-64b"}, [&p] { return p.median("udp-recvfrom-64b"); },
      kCopiedKib);
  for (const std::size_t size : kMessageSizes)
    for (const char* call : {"udp-sendto", "udp-recvfrom", "udp-sendmsg", "udp-recvmsg", "tcp-send",
                             "tcp-recv", "tcp-sendmsg", "tcp-recvmsg"}) {
      const std::string name = std::string(call) + "-" + std::to_string(size) + "b";
      const bool sending = name.find("-send") != std::string::npos;
      p.key("cpu." + name,
            std::string(call) + " of " + std::to_string(size) + " B over loopback" +
                (sending ? " (the receive softirq it runs included)" : ", already queued") +
                ", less cpu.syscall",
            name, {"getppid"}, syscall);
    }
}

void wakeups(Planner& p) {
  const auto syscall = [&p] { return p.median("getppid"); };
  // cpu.wakeup as its key below derives it, never below 0: what the model charges a woken
  // thread for try_to_wake_up, which the keys measured across a wake-up take out.
  const auto model_wakeup = [&p] {
    return std::max(0.0, p.median("wake-same-core") - p.median("getppid") - p.median("yield"));
  };
  p.key("cpu.context-switch",
        "one sched_yield that switches to the other thread on the same CPU, less cpu.syscall",
        "yield", {"getppid"}, syscall);
  // A same-CPU hand-off is the waker's eventfd_write and its blocking read (2 system calls),
  // the wake-up, and the switch to the wakee.
  p.key("cpu.wakeup",
        "same-CPU eventfd hand-off (write to the wakee running) less 2 x cpu.syscall and "
        "cpu.context-switch: try_to_wake_up and the wait queues",
        "wake-same-core", {"getppid", "yield"},
        [&p] { return p.median("getppid") + p.median("yield"); });
  // syscall + wakeup + context-switch = the same-CPU hand-off less one system call.
  p.key("cpu.wakeup-remote",
        "eventfd_write to the wakee running on the other CPU 2 us after it blocked, less "
        "cpu.syscall, "
        "cpu.wakeup and cpu.context-switch: the IPI and the idle CPU's wake-up",
        "wake-other-core-2us", {"wake-same-core", "getppid"},
        [&p] { return p.median("wake-same-core") - p.median("getppid"); });
  // cpu.wakeup-ipi: the waker's write less the same write waking nobody, less try_to_wake_up's
  // own part (cpu.wakeup, charged to the woken thread).
  p.key("cpu.wakeup-ipi",
        "the waker's eventfd_write to a thread blocked on the other CPU 100 us before, less an "
        "eventfd_write waking nobody and less cpu.wakeup: the IPI's send (an APIC write, which "
        "on a virtual machine exits to the hypervisor)",
        "wake-send-other-core", {"wake-send-alone", "wake-same-core", "getppid", "yield"},
        [&p, &model_wakeup] { return p.median("wake-send-alone") + model_wakeup(); });
  // cpu.wakeup-run: the wakee's CPU time across the blocked read, less what the model charges
  // the woken thread already (cpu.wakeup and cpu.context-switch) and less two system calls (the
  // read's and the thread-clock read's own).
  p.key("cpu.wakeup-run",
        "the woken thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) across its eventfd_read "
        "blocked on the other CPU, 100 us idle, less 2 x cpu.syscall (the read's and the clock's), "
        "cpu.wakeup and cpu.context-switch: the part of the other-CPU wake-up its CPU is busy "
        "running the wakee (switch-in and the return; on a virtual machine the exits on that "
        "path), the rest being the CPU halted or in its idle loop",
        "wake-run-other-core", {"wake-same-core", "getppid", "yield"}, [&p, &model_wakeup] {
          return 2 * p.median("getppid") + model_wakeup() + p.median("yield");
        });
  // cpu.wakeup-run-local: the thread's CPU time across an epoll_wait its own CPU's timer ends,
  // less the same call returning at once, less what the model charges the woken thread already
  // (cpu.wakeup and cpu.context-switch).
  p.key("cpu.wakeup-run-local",
        "this thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) across an epoll_wait blocked until "
        "a timerfd of its CPU expires 100 us later, less the same epoll_wait on a timerfd already "
        "expired, cpu.wakeup and cpu.context-switch: the switch from the idle task to a thread "
        "its own CPU's interrupt woke and the return to user space (on a virtual machine the "
        "exits on that path)",
        "wake-run-own-timer", {"epoll-timer-ready", "wake-same-core", "getppid", "yield"},
        [&p, &model_wakeup] {
          return p.median("epoll-timer-ready") + model_wakeup() + p.median("yield");
        });
  // cpu.wakeup-idle: the other-CPU wake-up's median after each idle of the sweep and after 5 ms,
  // less the one after 2 us: how the exit grows with the idle's length.
  const std::string base = "wake-other-core-2us";
  if (p.has(base) && p.has("wake-other-core-5ms")) {
    const double low = p.median(base);
    std::vector<std::pair<long, std::string>> points{{2, base}};
    for (const Duration idle : idle_sweep())
      points.emplace_back(idle.count() / 1000,
                          "wake-other-core-" + std::to_string(idle.count() / 1000) + "us");
    points.emplace_back(5000, "wake-other-core-5ms");
    std::string curve;
    std::string medians;
    double top = 0;
    for (const auto& [us, name] : points) {
      if (!p.has(name)) continue;
      // The curve does not fall: a longer idle is not measured earlier than a shorter one's.
      top = std::max(top, p.median(name) - low);
      curve += (curve.empty() ? "" : ", ") + std::to_string(us) +
               "us:" + std::to_string(static_cast<long>(top + 0.5)) + "ns";
      const Summary spread = summarise(p.samples(name));
      medians += (medians.empty() ? "" : ", ") + std::to_string(us) + " us " +
                 std::to_string(static_cast<long>(spread.p10)) + "/" +
                 std::to_string(static_cast<long>(spread.p50)) + "/" +
                 std::to_string(static_cast<long>(spread.p90));
    }
    p.text("cpu.wakeup-idle",
           "the other-CPU wake-up's median after each idle (from the wakee's block) less the one "
           "after 2 us, kept from "
           "falling; p10/p50/p90 per idle: " +
               medians + " ns",
           curve);
  } else {
    p.skip("cpu.wakeup-idle", "needs the other-CPU wake-ups after 2 us and 5 ms idle");
  }
  p.key("cpu.wakeup-cold",
        "the same-CPU hand-off after the waker slept 5 ms less the one at once: cold caches and "
        "TLB after the CPU idled",
        "wake-same-core-5ms", {"wake-same-core"}, [&p] { return p.median("wake-same-core"); });
  {
    std::string why;
    const bool guest = host_is_virtualized(&why);
    p.fact("cpu.hypervisor", "a guest? " + why + " (what irqmod serve --mode adaptive reads)",
           guest ? "true" : "false");
  }
  p.key("cpu.hrtimer-late",
        "clock_nanosleep(50 us) returning late with 1 ns timer slack: the hrtimer's lateness on "
        "an idle CPU plus the sleeper's wake-up and switch-in (an upper bound for a callback's, "
        "such as gro_flush_timeout's and irq_suspend_timeout's)",
        "hrtimer-50us", {}, [] { return 0.0; });
  p.key("cpu.hrtimer-arm",
        "timerfd_settime arming a timer 200 us ahead, this CPU's earliest expiry, less arming "
        "one 10 s ahead (behind the tick): hrtimer_reprogram's write of the clock-event device "
        "(on a virtual machine an exit to the hypervisor); disarming the earliest costs the same "
        "write (raw hrtimer-cancel-200us less hrtimer-cancel-10s)",
        "hrtimer-arm-200us", {"hrtimer-arm-10s"}, [&p] { return p.median("hrtimer-arm-10s"); });
  p.key("cpu.timer-irq",
        "the largest gap in a 150 us spin reading the clock across a timerfd's expiry less the "
        "largest gap without one: the timer interrupt's entry, hrtimer_interrupt, the device "
        "programmed for the next expiry and the exit, taken from the thread it interrupted",
        "timer-irq-gap", {"spin-gap"}, [&p] { return p.median("spin-gap"); });
  if (p.has("hrtimer-arm-200us") && p.has("hrtimer-arm-10s")) {
    // cpu.hz is read only beside cpu.hrtimer-arm (a scenario refuses it alone).
    if (const Expected<int> hz = kernel_hz()) {
      p.fact("cpu.hz",
             "CONFIG_HZ of the running kernel (/proc/config.gz or /boot/config-RELEASE): the "
             "tick, behind which an hrtimer is not its CPU's earliest",
             std::to_string(hz.value()));
    } else {
      p.skip("cpu.hz", hz.error().what());
    }
  } else {
    p.skip("cpu.hz", "needs cpu.hrtimer-arm's measurements");
  }
}

void kernel_paths(Planner& p) {
  // What a path's keys need: its three batch sizes and the tun's.
  const auto needs = [](Path path) {
    std::vector<std::string> names;
    for (const Path of : {Path::tun, path})
      for (const std::size_t n : {std::size_t{1}, kSmallBatch, kLargeBatch})
        names.push_back(path_sample(of, n));
    return names;
  };
  p.key("cpu.tx-packet",
        "a 64 B UDP sendto (unconnected: route lookup) through a tun device that drops it in its "
        "xmit, less cpu.syscall: udp_sendmsg, ip_make_skb, __dev_queue_xmit, a driver's xmit",
        path_sample(Path::tun, 1), {"getppid"}, [&p] { return p.median("getppid"); });
  // A path's per-packet cost less the tun's: its large batch's samples less its small batch's
  // median and the tun's slope over the span, divided by the span.
  const auto slope = [&p](Path path) {
    return [&p, path] {
      return p.median(path_sample(path, kSmallBatch)) + kSpan * line_of(p, Path::tun).slope;
    };
  };
  // A path's fixed part less the tun's: a one-datagram send less the tun's, less one packet's
  // cost beyond the tun's (the slopes' difference).
  const auto intercept = [&p](Path path) {
    return [&p, path] {
      return p.median(path_sample(Path::tun, 1)) + line_of(p, path).slope -
             line_of(p, Path::tun).slope;
    };
  };
  const std::string per_packet =
      " per packet: the slope between 4- and 32-segment sends less the tun's (which takes out "
      "the segmentation and the sendmsg's own per-segment work); spread of the 32-segment send "
      "/ 28";
  const std::string per_poll =
      " per poll: a one-datagram send less the tun's and less the per-packet cost above (the "
      "slopes' difference); spread of the one-datagram send";
  const auto per_packet_key = [&](const char* key, const std::string& method, Path path) {
    p.key(key, method + per_packet, path_sample(path, kLargeBatch), needs(path), slope(path),
          kSpan);
  };
  const auto per_poll_key = [&](const char* key, const std::string& method, Path path) {
    p.key(key, method + per_poll, path_sample(path, 1), needs(path), intercept(path));
  };
  // The receive stack alone: the delivered loopback frame's slope less the one dropped at tc
  // ingress (whose part, loopback_xmit to __netif_receive_skb, is cpu.backlog-enqueue; veth's is
  // inside cpu.veth-packet).
  {
    std::vector<std::string> both = needs(Path::loopback);
    for (const std::string& n : needs(Path::loopback_dropped))
      both.push_back(n);
    p.key(
        "cpu.rx-packet",
        "the receive stack per frame, __netif_receive_skb to the socket queue (ip_rcv, "
        "udp_rcv, the enqueue and its wake-up test): a loopback frame's per-packet cost less "
        "the same frame's dropped at tc ingress (the slopes between 4- and 32-segment sends); "
        "spread of the 32-segment send / 28",
        path_sample(Path::loopback, kLargeBatch), both,
        [&p] {
          return p.median(path_sample(Path::loopback, kSmallBatch)) +
                 kSpan * line_of(p, Path::loopback_dropped).slope;
        },
        kSpan);
  }
  per_poll_key("cpu.napi-poll",
               "loopback's softirq: raising NET_RX, softirq entry, net_rx_action, "
               "process_backlog's fixed part;",
               Path::loopback);
  per_packet_key("cpu.backlog-enqueue",
                 "the backlog path of a loopback frame up to the stack (dropped at tc ingress): "
                 "loopback_xmit, netif_rx's enqueue, process_backlog's dequeue, "
                 "__netif_receive_skb; the enqueue is not separated from the dequeue;",
                 Path::loopback_dropped);
  per_poll_key("cpu.backlog-poll",
               "process_backlog's fixed part with the softirq entry and net_rx_action (the entry "
               "is not separated);",
               Path::loopback_dropped);
  per_packet_key("cpu.veth-packet",
                 "veth with GRO up to the stack (dropped at the peer's tc ingress): veth_xmit's "
                 "forward and ptr_ring, veth_poll's per-packet part, GRO's attempt, "
                 "__netif_receive_skb; cpu.veth-xmit is included, not separated;",
                 Path::veth_dropped);
  per_poll_key("cpu.veth-poll",
               "veth's NAPI in the sender's softirq: napi_schedule, softirq entry, net_rx_action, "
               "veth_poll's fixed part, the GRO flush;",
               Path::veth_dropped);
  // TCP's keys: what a 64 B TCP send over loopback costs more than a UDP one (both with the
  // receive softirq they run), split evenly between the sender's part and the receiver's: the
  // split is an assumption (no path here separates TCP's transmit from its receive).
  {
    const std::vector<std::string> tcp_needs{"tcp-send-64b", "udp-sendto-64b", "getppid",
                                             path_sample(Path::tun, 1)};
    const std::string split =
        "; + half of (a 64 B TCP send over loopback - a UDP one), both with their receive "
        "softirq: the even split between the send and the receive is an assumption; spread of "
        "the TCP send";
    const auto extra = [&p] { return (p.median("tcp-send-64b") - p.median("udp-sendto-64b")) / 2; };
    p.key("cpu.tcp-tx-packet",
          "cpu.tx-packet for TCP: the tun send's (udp_sendmsg to the xmit)" + split, "tcp-send-64b",
          tcp_needs, [&p, extra] {
            const double tx = p.median(path_sample(Path::tun, 1)) - p.median("getppid");
            return p.median("tcp-send-64b") - tx - extra();
          });
    std::vector<std::string> rx_needs = tcp_needs;
    for (const std::string& n : needs(Path::loopback))
      rx_needs.push_back(n);
    for (const std::string& n : needs(Path::loopback_dropped))
      rx_needs.push_back(n);
    p.key("cpu.tcp-rx-packet", "cpu.rx-packet for a TCP segment: the UDP receive stack's" + split,
          "tcp-send-64b", rx_needs, [&p, extra] {
            const double rx =
                line_of(p, Path::loopback).slope - line_of(p, Path::loopback_dropped).slope;
            return p.median("tcp-send-64b") - rx - extra();
          });
    p.key("cpu.tcp-app-message",
          "cpu.app-message for TCP: recv of a queued 64 B TCP message over loopback, less "
          "cpu.syscall (tcp_recvmsg's copy, the window update and the ACK it may send)",
          "tcp-recv-64b", {"getppid"}, [&p] { return p.median("getppid"); });
  }
  p.skip("cpu.veth-xmit",
         "not separated from cpu.veth-packet, which includes it: veth's NAPI runs in the "
         "sender's own softirq, so no timing from userspace splits the two sides");
  p.skip("cpu.softirq-entry",
         "not separated from the poll it runs: included in cpu.napi-poll, cpu.backlog-poll and "
         "cpu.veth-poll");
}

// The host's noise (calibrate.hpp, host_noise): each source's lengths are the gaps' own
// distribution. Its interval is exponential at the mean the counts give (the CPUs' spin over
// the gaps counted): arrivals taken as Poisson. The intervals' own fit would run short when the
// events are rare, since an interval is seen only inside one pass's spin (on the development VM
// the long gaps' fit had a mean of 31 ms where the counts gave 200 ms); their spread is written
// beside it, to show how far from Poisson they are (the short gaps' p90 is the 4 ms tick).
void host_noise_keys(Planner& p) {
  const auto source = [&p](const char* interval_key, const char* length_key, const char* gaps,
                           const char* intervals, const std::string& what) {
    if (!p.has("noise-spun") || !p.has(gaps) || !p.has(intervals)) {
      const std::string why = !p.has("noise-spun") ? "the spin failed"
                              : !p.has(gaps)       ? "no " + what + " in the spin"
                                             : "too rare to measure in this run: no two " + what +
                                                   " within one pass's spin on one CPU";
      p.skip(interval_key, why);
      p.skip(length_key, why);
      return;
    }
    double spun = 0;
    for (const std::int64_t ns : p.samples("noise-spun"))
      spun += static_cast<double>(ns);
    const std::size_t count = p.samples(gaps).size();
    const long mean = std::lround(spun / static_cast<double>(count));
    p.chosen(interval_key,
             "from the start of one of the " + what +
                 " to the next one's: " + std::to_string(count) + " in " +
                 std::to_string(std::lround(spun / 1e6)) + " ms spun on all CPUs",
             intervals, "exponential(" + std::to_string(mean) + "ns)",
             "exponential at the spin's time over the count (Poisson arrivals); the spread is "
             "the intervals seen within a pass's spin");
    p.key(length_key, "the lengths of the " + what, gaps, {}, [] { return 0.0; });
  };
  const std::string floor = std::to_string(kNoiseFloor.count() / 1000);
  const std::string split = std::to_string(kNoiseSplit.count() / 1000);
  source("cpu.noise-interval", "cpu.noise", "noise-gap", "noise-interval",
         "gaps of " + floor + " to " + split + " us in a spinning thread's clock reads");
  source("cpu.noise-long-interval", "cpu.noise-long", "noise-gap-long", "noise-interval-long",
         "gaps over " + split + " us in a spinning thread's clock reads");
}

void unmeasurable(Planner& p) {
  const std::string why =
      "calibrate times the kernel's software paths; a device interrupt, a NIC driver's handler "
      "and DMA need a NIC and tracing (docs/calibration.md); the schema's 0, not charged, stays";
  for (const char* key : {"cpu.irq-entry", "cpu.irq-handler", "nic.dma-delay"})
    p.skip(key, why);
}

}  // namespace

void derive_keys(Planner& planner) {
  calls(planner);
  wakeups(planner);
  kernel_paths(planner);
  host_noise_keys(planner);
  unmeasurable(planner);
}

}  // namespace irqmod::rt::calibrate::detail
