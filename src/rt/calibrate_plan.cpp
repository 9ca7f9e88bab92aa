// The measurements irqmod calibrate runs and the keys derived from them (calibrate_plan.hpp).
// Every derivation subtracts medians from a measurement's own samples (calibrate_report.hpp,
// derive), so a derived key keeps the spread of the measurement it comes from.
#include "irqmod/rt/calibrate_plan.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "calibrate_planner.hpp"
#include "irqmod/rt/calibrate.hpp"

namespace irqmod::rt::calibrate {
namespace {

using detail::BudgetRow;
using detail::kLargeBatch;
using detail::kMessageSizes;
using detail::kSmallBatch;
using detail::path_sample;
using detail::Planner;

// The budgets: the full ones keep the whole run near 25 s on the 2-vCPU development VM, within
// the 60 s promised with room for a slower host; --quick's near 3 s, within 10 s
// (docs/calibration.md has the measured times). Each measurement stops at its sample count when
// that comes first.
//
// Every call of a few hundred ns: 7 calls, a sample of 16 of one 2-7 us.
constexpr BudgetRow kCall{{30'000, milliseconds(2000)}, {4'000, milliseconds(250)}};
// Every message exchange: 24 of them (3 sizes, UDP and TCP, two calls), a send and a receive
// of 3-8 us.
constexpr BudgetRow kMessage{{5'000, milliseconds(4000)}, {600, milliseconds(500)}};
// Wake-ups and yields at once, a few us each; a second of them, because a shorter run fits
// inside one burst of another tenant's load (30 000 yields, 40 ms, once came out 37 % slower).
constexpr BudgetRow kSwitch{{400'000, milliseconds(1000)}, {10'000, milliseconds(200)}};
// One wake-up after a 2 us idle, or a 50 us sleep: tens of us.
constexpr BudgetRow kShortIdleWait{{10'000, milliseconds(1000)}, {3'000, milliseconds(300)}};
// One wake-up after a 5 ms idle: the time binds.
constexpr BudgetRow kLongIdleWait{{1'500, milliseconds(8000)}, {150, milliseconds(800)}};

// Every kernel-path batch kind: 12 kinds of 1-40 us each.
constexpr BudgetRow kPaths{{10'000, milliseconds(6000)}, {1'000, milliseconds(600)}};

// The host's noise: a spin on every CPU at once (events, not operations: the time binds). The
// long events come ~3 times a second on the development VM (a 10 s spin, 2026-12-03), so the
// full run's 4 s on 2 CPUs sees ~25 of them, --quick's 0.6 s ~4.
constexpr BudgetRow kNoise{{10'000'000, milliseconds(4000)}, {10'000'000, milliseconds(600)}};

// Passes of the plan (each with its share of the budgets above).
constexpr int kFullPasses = 4;
constexpr int kQuickPasses = 2;

// The idles of the wake-up measurements, counted from the wakee's block: 2 us, about when the
// wakee is asleep (its read's entry to its switch-out: 2-3 us in a tracefs trace of this guest,
// which slows them; a wake-up that finds it still running needs no IPI and is faster), and
// ~5 ms, long enough that an idle vCPU has halted and its host thread slept.
constexpr Duration kShortIdle = microseconds(2);
// The idle of the waker's IPI send and the wakee's run (cpu.wakeup-ipi, cpu.wakeup-run): 100 us,
// a server woken every 100 us (sockperf's --mps 10000). The run grows with the idle (after 2 us
// it is ~0.3 us here, after 100 us ~10-20 us), the send does not.
constexpr Duration kSendIdle = microseconds(100);
// The idle sweep between kShortIdle and kLongIdle: 9 idles, ~3.9 ms a round.
constexpr BudgetRow kSweepWait{{400, milliseconds(3000)}, {60, milliseconds(500)}};
constexpr Duration kLongIdle = milliseconds(5);
// The hrtimer's timeout: the order of gro_flush_timeout's and irq_suspend_timeout's settings.
constexpr Duration kTimerTimeout = microseconds(50);

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string cpu_model() {
  std::istringstream lines(read_file("/proc/cpuinfo"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
  }
  return "unknown";
}

std::string load_average() {
  const std::string text = read_file("/proc/loadavg");
  return text.substr(0, text.find(' '));
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// The calling thread at nice -20 while it lives (threads it starts inherit it), its nice value
// restored after. Other tenants' work on the measured CPU (this VM is shared with builds) then
// rarely preempts a sample: at load average 6.5 two full runs at nice 0 moved the null system
// call by 40 %, at nice -20 they agreed with a run at load 5 on 44 of 45 keys. It stays a CFS
// thread (not SCHED_FIFO), so the wake-ups take the scheduler's usual path.
class Priority {
 public:
  Priority() {
    errno = 0;
    previous_ = ::getpriority(PRIO_PROCESS, 0);
    if (errno != 0) {
      text_ = "unknown (getpriority: " + std::string(std::strerror(errno)) + ")";
      return;
    }
    raised_ = ::setpriority(PRIO_PROCESS, 0, kNice) == 0;
    text_ = raised_ ? std::to_string(kNice)
                    : std::to_string(previous_) + " (nice " + std::to_string(kNice) +
                          " refused: " + std::strerror(errno) + "; root or CAP_SYS_NICE raises it)";
  }
  Priority(const Priority&) = delete;
  Priority& operator=(const Priority&) = delete;
  ~Priority() {
    if (raised_) ::setpriority(PRIO_PROCESS, 0, previous_);
  }
  const std::string& text() const { return text_; }

 private:
  static constexpr int kNice = -20;
  int previous_ = 0;
  bool raised_ = false;
  std::string text_;
};

std::string size_name(const char* what, std::size_t size) {
  return std::string(what) + "-" + std::to_string(size) + "b";
}

void host_calls(Planner& p) {
  p.progress("a null system call, the clock, empty polls");
  struct Row {
    Call call;
    const char* name;
    const char* method;
  };
  const Row rows[] = {
      {Call::clock_read, "clock-read",
       "clock_gettime(CLOCK_MONOTONIC), back to back; taken out of every other sample"},
      {Call::getppid, "getppid", "syscall(SYS_getppid)"},
      {Call::recvfrom_empty, "recvfrom-empty", "recvfrom on an empty non-blocking UDP socket"},
      {Call::epoll_wait_empty, "epoll-wait-empty", "epoll_wait(timeout 0) on one empty UDP socket"},
      {Call::epoll_wait_ready, "epoll-wait-ready",
       "epoll_wait(timeout 0) on one UDP socket with a datagram queued"},
      {Call::poll_empty, "poll-empty", "poll(timeout 0) on one empty UDP socket"},
      {Call::xsk_sendto_unbound, "xsk-sendto",
       "sendto(MSG_DONTWAIT) on an unbound AF_XDP socket (ENXIO)"},
  };
  std::vector<Call> calls;
  for (const Row& row : rows)
    calls.push_back(row.call);
  auto results = calls_in_blocks(p.budget(kCall), calls);
  for (std::size_t i = 0; i < calls.size(); ++i)
    p.record(rows[i].name,
             std::string(rows[i].method) +
                 "; a sample is the mean of 16 calls, in blocks of 64 between the other calls'",
             std::move(results[i]));
}

void messages(Planner& p) {
  p.progress("UDP and TCP over loopback, every size and call");
  std::vector<Message> asked;
  for (const std::size_t size : kMessageSizes)
    for (const bool tcp : {false, true})
      for (const MessageApi api : {MessageApi::sendto_recvfrom, MessageApi::sendmsg_recvmsg})
        asked.push_back(Message{tcp, api, size});
  auto results = messages_in_blocks(p.budget(kMessage), asked);
  for (std::size_t i = 0; i < asked.size(); ++i) {
    const Message& m = asked[i];
    const bool plain = m.api == MessageApi::sendto_recvfrom;
    const char* send =
        m.tcp ? (plain ? "tcp-send" : "tcp-sendmsg") : (plain ? "udp-sendto" : "udp-sendmsg");
    const char* receive =
        m.tcp ? (plain ? "tcp-recv" : "tcp-recvmsg") : (plain ? "udp-recvfrom" : "udp-recvmsg");
    const std::string bytes = std::to_string(m.size) + " B";
    const std::string where =
        m.tcp ? " on a TCP connection over 127.0.0.1 (TCP_NODELAY)" : " over 127.0.0.1";
    const std::string send_method =
        std::string(send) + " of " + bytes + where + ", the receive softirq it runs included";
    const std::string receive_method =
        std::string(receive) + " of " + bytes + " already queued" + where;
    if (results[i]) {
      p.record(size_name(send, m.size), send_method, std::move(results[i].value().send));
      p.record(size_name(receive, m.size), receive_method, std::move(results[i].value().receive));
    } else {
      p.record(size_name(send, m.size), send_method, results[i].error());
      p.record(size_name(receive, m.size), receive_method, results[i].error());
    }
  }
}

void threads(Planner& p) {
  p.progress("yields and wake-ups on one CPU");
  double switched = 0;
  if (p.record("yield", "two threads on one CPU calling sched_yield in turn: one yield + switch",
               yield_switch(p.budget(kSwitch), &switched)))
    p.annotate("yield", "the partner's yields per yield", switched);
  const std::string wake =
      "eventfd_write to the wakee back from its blocking eventfd_read, read by the wakee";
  p.record("wake-same-core", wake + "; same CPU, the waker blocking in its own read at once",
           wakeup_latency(p.budget(kSwitch), WakeCore::same, Duration::zero()));
  p.record("wake-same-core-5ms", wake + "; same CPU, after the waker slept 5 ms",
           wakeup_latency(p.budget(kLongIdleWait), WakeCore::same, kLongIdle));
  p.progress("wake-ups on the other CPU, after 2 us and 5 ms idle");
  p.record("wake-other-core-2us",
           wake + "; other CPU, 2 us after the wakee blocked (the waker spinning)",
           wakeup_latency(p.budget(kShortIdleWait), WakeCore::other, kShortIdle));
  p.progress("the waker's IPI to the other, idle CPU");
  if (auto sent = wakeup_send(p.budget(kShortIdleWait), kSendIdle)) {
    p.record("wake-send-other-core",
             "the waker's eventfd_write to a thread blocked on the other CPU, 100 us after it "
             "blocked (the waker spinning): try_to_wake_up and the IPI",
             std::move(sent.value().waking));
    p.record("wake-send-alone", "eventfd_write on an eventfd nobody waits on, beside each of those",
             std::move(sent.value().alone));
    p.record("wake-run-other-core",
             "the woken thread's CLOCK_THREAD_CPUTIME_ID from before its blocking eventfd_read "
             "to after it returns, in the same rounds",
             std::move(sent.value().woken_run));
  } else {
    p.record("wake-send-other-core", "the waker's eventfd_write to the other CPU", sent.error());
    p.record("wake-send-alone", "eventfd_write on an eventfd nobody waits on", sent.error());
    p.record("wake-run-other-core", "the woken thread's CPU time across its read", sent.error());
  }
  p.record("wake-other-core-5ms",
           wake + "; other CPU, idle 5 ms before (the waker sleeping: both CPUs may halt)",
           wakeup_latency(p.budget(kLongIdleWait), WakeCore::other, kLongIdle));
  // Where between the two the wake-up slows: the other CPU after idles in between, one sample of
  // each per round (cpu.idle-halt is the first idle whose median is past half the step).
  p.progress("wake-ups on the other CPU across idle lengths");
  const std::vector<Duration> sweep = detail::idle_sweep();
  auto swept = wakeup_latencies(p.budget(kSweepWait), WakeCore::other, sweep);
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const std::string name = "wake-other-core-" + std::to_string(sweep[i].count() / 1000) + "us";
    const std::string method = wake + "; other CPU, idle " +
                               std::to_string(sweep[i].count() / 1000) +
                               " us before (the idle sweep, one of each per round)";
    if (swept) {
      p.record(name, method, std::move(swept.value()[i]));
    } else {
      p.record(name, method, swept.error());
    }
  }
  p.progress("hrtimer lateness");
  p.record("hrtimer-50us",
           "clock_nanosleep(50 us, relative) returning late, timer slack 1 ns: the expiry's "
           "lateness plus the sleeper's wake-up and switch-in on its idle CPU",
           hrtimer_lateness(p.budget(kShortIdleWait), kTimerTimeout));
  p.progress("the clock-event device: programming it, a timer interrupt");
  auto programming = timer_programming(p.budget(kShortIdleWait));
  const std::string arm = "timerfd_settime on this CPU, one call: ";
  const auto programmed = [&](const std::string& name, const std::string& method,
                              Samples TimerProgramming::*kind) {
    if (programming) {
      p.record(name, arm + method, std::move(programming.value().*kind));
    } else {
      p.record(name, arm + method, programming.error());
    }
  };
  programmed("hrtimer-arm-200us", "arming a disarmed timer 200 us ahead (the CPU's earliest)",
             &TimerProgramming::arm_soon);
  programmed("hrtimer-cancel-200us", "disarming it (the earliest cancelled)",
             &TimerProgramming::cancel_soon);
  programmed("hrtimer-arm-10s", "arming a disarmed timer 10 s ahead (behind the tick)",
             &TimerProgramming::arm_far);
  programmed("hrtimer-cancel-10s", "disarming it", &TimerProgramming::cancel_far);
  auto gaps = timer_interrupt_gaps(p.budget(kShortIdleWait));
  const std::string spin = "the largest gap between two clock reads of a 150 us spin on this CPU";
  if (gaps) {
    p.record("timer-irq-gap", spin + ", a timerfd armed to expire 50 us into it",
             std::move(gaps.value().with_timer));
    p.record("spin-gap", spin + ", no timer armed", std::move(gaps.value().without));
  } else {
    p.record("timer-irq-gap", spin + ", a timerfd armed to expire 50 us into it", gaps.error());
    p.record("spin-gap", spin + ", no timer armed", gaps.error());
  }
  auto own = own_timer_wakeups(p.budget(kShortIdleWait));
  const std::string own_method =
      "this thread's CLOCK_THREAD_CPUTIME_ID across epoll_wait on a timerfd of this CPU";
  if (own) {
    p.record("wake-run-own-timer",
             own_method +
                 " armed 100 us ahead: the call blocks, the CPU idles, the timer's "
                 "interrupt wakes the thread where the idle task ran",
             std::move(own.value().blocked));
    p.record("epoll-timer-ready", own_method + " already expired: the call returns at once",
             std::move(own.value().ready));
  } else {
    p.record("wake-run-own-timer", own_method + " armed 100 us ahead", own.error());
    p.record("epoll-timer-ready", own_method + " already expired", own.error());
  }
}

void noise(Planner& p) {
  p.progress("the host's noise: a spin on every CPU");
  const std::string spin = "a thread pinned on each CPU (at most " + std::to_string(kNoiseCpus) +
                           "), all at once, reading the clock in a loop: ";
  auto gaps = host_noise(p.budget(kNoise));
  const auto record = [&](const std::string& name, const std::string& method,
                          Samples HostNoise::*kind) {
    if (gaps) {
      p.record(name, spin + method, std::move(gaps.value().*kind));
    } else {
      p.record(name, spin + method, gaps.error());
    }
  };
  const std::string floor = std::to_string(kNoiseFloor.count() / 1000);
  const std::string split = std::to_string(kNoiseSplit.count() / 1000);
  record("noise-gap", "a gap between two reads of " + floor + " to " + split + " us",
         &HostNoise::lengths);
  record("noise-gap-long", "a gap between two reads over " + split + " us",
         &HostNoise::long_lengths);
  record("noise-interval", "from one such gap's start to the next one's on its CPU",
         &HostNoise::intervals);
  record("noise-interval-long", "from one such long gap's start to the next one's on its CPU",
         &HostNoise::long_intervals);
  record("noise-spun", "the nanoseconds each CPU spun", &HostNoise::spun);
}

void paths(Planner& p, PathLab* lab, const std::string& why_not) {
  struct Row {
    Path path;
    const char* method;
  };
  const Row rows[] = {
      {Path::tun, "through a tun device whose full queue drops each segment in the driver's xmit"},
      {Path::loopback, "over lo to a socket: netif_rx, the backlog's poll, the stack"},
      {Path::loopback_dropped, "over lo, dropped by a tc ingress filter: the backlog's poll"},
      {Path::veth_dropped,
       "over veth with GRO (NAPI), dropped at the peer's tc ingress: veth_xmit, veth_poll"},
  };
  std::vector<PathLab::Batch> batches;
  std::vector<std::string> methods;
  for (const Row& row : rows)
    for (const std::size_t n : {std::size_t{1}, kSmallBatch, kLargeBatch}) {
      batches.push_back({row.path, n});
      methods.push_back("one UDP sendmsg of " + std::to_string(n) + " x 64 B" +
                        (n > 1 ? " (GSO, segmented in software) " : " ") + row.method);
    }
  Expected<PathLab::PathSamples> sent = Error{"", why_not};
  if (lab) {
    p.progress("tun, loopback and veth paths, " + std::to_string(batches.size()) +
               " batch kinds in blocks (root)");
    sent = lab->send(p.budget(kPaths), batches);
  }
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const std::string name = path_sample(batches[i].path, batches[i].segments);
    if (!sent) {
      p.record(name, methods[i], sent.error());
      continue;
    }
    if (p.record(name, methods[i] + "; in blocks of 32 between the other kinds'",
                 std::move(sent.value().per_batch[i])))
      p.annotate(name, "NET_RX softirqs per received batch", sent->softirqs_per_send);
  }
}

}  // namespace

Report run_plan(const PlanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Report report;
  Header& h = report.header;
  h.cpu_model = cpu_model();
  h.cpus = static_cast<unsigned>(std::max(0L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  utsname names{};
  h.kernel = ::uname(&names) == 0 ? names.release : "unknown";
  h.date = utc_now();
  h.quick = options.quick;
  const std::string load_before = load_average();
  const Priority priority;
  h.nice = priority.text();

  // The plan runs in passes, each with its share of every budget, and pools their samples: a
  // burst of another tenant's load (once, the first 3 s of a run came out 30 % slower, nice
  // -20 or not) then touches a part of each measurement's samples, not the whole of some.
  const int passes = options.quick ? kQuickPasses : kFullPasses;
  Planner p(options, passes);
  std::unique_ptr<PathLab> lab;
  std::string why_not = "not asked for";
  if (options.lab) {
    p.progress("setting up the lab's namespaces (root)");
    auto opened = PathLab::open();
    if (opened)
      lab = std::move(opened.value());
    else
      why_not = opened.error().what();
  }
  h.lab = lab ? "measured" : "skipped: " + why_not;
  for (int pass = 1; pass <= passes; ++pass) {
    p.progress("pass " + std::to_string(pass) + " of " + std::to_string(passes));
    {
      // One CPU for the single-threaded measurements; the wake-ups pin their own threads.
      const CpuPin pin(0);
      host_calls(p);
      messages(p);
      paths(p, lab.get(), why_not);
    }
    threads(p);
    noise(p);
  }
  lab.reset();
  detail::derive_keys(p);
  report.entries = p.entries();
  h.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  h.load = load_before + " -> " + load_average();
  return report;
}

}  // namespace irqmod::rt::calibrate
