// The host costs `irqmod calibrate` measures, as Google Benchmarks: every benchmark calls the
// same measurement function (irqmod/rt/calibrate.hpp) the command does, with a small budget per
// iteration, so the two cannot drift apart. docs/calibration.md ("irqmod calibrate") says what
// each one times and which simulator key it becomes.
//
// Manual time: one iteration (kIterations per run) runs the measurement for kBlock samples (or
// kBlockTime) and its Time is the block's MEDIAN nanoseconds per operation, with the clock read's
// cost taken out (calibrate.hpp); the counters p10_ns and p90_ns are the block's spread, averaged
// over the iterations. With --benchmark_repetitions the aggregates then give the median of block
// medians. The kernel-path benchmarks need root (they make the lab's namespaces) and skip
// without it, as the other-CPU wake-up skips on one CPU.
#include <benchmark/benchmark.h>

#include <functional>
#include <string>

#include "irqmod/rt/calibrate.hpp"
#include "irqmod/rt/calibrate_report.hpp"

namespace {

namespace calibrate = irqmod::rt::calibrate;
using calibrate::Budget;
using calibrate::Samples;

constexpr std::size_t kBlock = 200;
constexpr irqmod::Duration kBlockTime = irqmod::milliseconds(50);
constexpr Budget kBudget{kBlock, kBlockTime};
// A fixed count of blocks per run: the manual time of an iteration is one operation's median,
// far below the block's real time, so Google Benchmark's own stopping rule would run ~10^5
// blocks to fill even --benchmark_min_time=0.01.
constexpr benchmark::IterationCount kIterations = 3;

// Runs `measure` once per iteration and reports its median; `pin` keeps the benchmark thread on
// one CPU for the measurements that run on the calling thread alone.
void report(benchmark::State& state, const std::function<irqmod::Expected<Samples>()>& measure,
            bool pin = true) {
  const std::optional<calibrate::CpuPin> pinned =
      pin ? std::optional<calibrate::CpuPin>(std::in_place, 0) : std::nullopt;
  double p10 = 0;
  double p90 = 0;
  for (auto _ : state) {
    const auto samples = measure();
    if (!samples) {
      state.SkipWithError(samples.error().what().c_str());
      return;
    }
    const calibrate::Summary s = calibrate::summarise(samples.value());
    state.SetIterationTime(s.p50 * 1e-9);
    p10 += s.p10;
    p90 += s.p90;
  }
  const auto iterations = static_cast<double>(state.iterations());
  if (iterations > 0) {
    state.counters["p10_ns"] = p10 / iterations;
    state.counters["p90_ns"] = p90 / iterations;
  }
}

// ---- one thread ---------------------------------------------------------------------------

void BM_host_clock_gettime_monotonic(benchmark::State& state) {
  report(state, [] { return calibrate::clock_read(kBudget); });
}
BENCHMARK(BM_host_clock_gettime_monotonic)->UseManualTime()->Iterations(kIterations);

// cpu.syscall.
void BM_host_syscall_getppid(benchmark::State& state) {
  report(state, [] { return calibrate::null_syscall(kBudget); });
}
BENCHMARK(BM_host_syscall_getppid)->UseManualTime()->Iterations(kIterations);

// cpu.busy-poll-iteration.
void BM_host_udp_recv_empty(benchmark::State& state) {
  report(state, [] { return calibrate::udp_recv_empty(kBudget); });
}
BENCHMARK(BM_host_udp_recv_empty)->UseManualTime()->Iterations(kIterations);

// cpu.epoll-empty and cpu.epoll-wait, less cpu.syscall.
void BM_host_epoll_wait_empty(benchmark::State& state) {
  report(state, [] { return calibrate::epoll_wait_empty(kBudget); });
}
BENCHMARK(BM_host_epoll_wait_empty)->UseManualTime()->Iterations(kIterations);

void BM_host_epoll_wait_ready(benchmark::State& state) {
  report(state, [] { return calibrate::epoll_wait_ready(kBudget); });
}
BENCHMARK(BM_host_epoll_wait_ready)->UseManualTime()->Iterations(kIterations);

// cpu.poll-call, less cpu.syscall.
void BM_host_poll_one_socket(benchmark::State& state) {
  report(state, [] { return calibrate::poll_one_socket(kBudget); });
}
BENCHMARK(BM_host_poll_one_socket)->UseManualTime()->Iterations(kIterations);

// cpu.socket-call, less cpu.syscall; skipped where AF_XDP sockets cannot be made.
void BM_host_xsk_sendto_unbound(benchmark::State& state) {
  report(state, [] { return calibrate::xsk_sendto_unbound(kBudget); });
}
BENCHMARK(BM_host_xsk_sendto_unbound)->UseManualTime()->Iterations(kIterations);

// ---- messages over loopback: Arg = bytes ----------------------------------------------------

// The send alone (the receive softirq it runs included) or the receive alone of a queued
// message; UDP with sendto/recvfrom or sendmsg/recvmsg, TCP with send/recv.
void run_message(benchmark::State& state, bool tcp, calibrate::MessageApi api, bool send) {
  const auto size = static_cast<std::size_t>(state.range(0));
  report(state, [&]() -> irqmod::Expected<Samples> {
    auto pair = tcp ? calibrate::tcp_loopback(kBudget, size, api)
                    : calibrate::udp_loopback(kBudget, size, api);
    if (!pair) return pair.error();
    return send ? pair.value().send : pair.value().receive;
  });
}

void BM_host_udp_loopback_sendto(benchmark::State& state) {
  run_message(state, false, calibrate::MessageApi::sendto_recvfrom, true);
}
void BM_host_udp_loopback_recvfrom(benchmark::State& state) {
  run_message(state, false, calibrate::MessageApi::sendto_recvfrom, false);
}
void BM_host_udp_loopback_sendmsg(benchmark::State& state) {
  run_message(state, false, calibrate::MessageApi::sendmsg_recvmsg, true);
}
void BM_host_udp_loopback_recvmsg(benchmark::State& state) {
  run_message(state, false, calibrate::MessageApi::sendmsg_recvmsg, false);
}
void BM_host_tcp_loopback_send(benchmark::State& state) {
  run_message(state, true, calibrate::MessageApi::sendto_recvfrom, true);
}
void BM_host_tcp_loopback_recv(benchmark::State& state) {
  run_message(state, true, calibrate::MessageApi::sendto_recvfrom, false);
}
BENCHMARK(BM_host_udp_loopback_sendto)
    ->Arg(64)
    ->Arg(1472)
    ->Arg(16384)
    ->UseManualTime()
    ->Iterations(kIterations);
BENCHMARK(BM_host_udp_loopback_recvfrom)
    ->Arg(64)
    ->Arg(1472)
    ->Arg(16384)
    ->UseManualTime()
    ->Iterations(kIterations);
BENCHMARK(BM_host_udp_loopback_sendmsg)
    ->Arg(64)
    ->Arg(16384)
    ->UseManualTime()
    ->Iterations(kIterations);
BENCHMARK(BM_host_udp_loopback_recvmsg)
    ->Arg(64)
    ->Arg(16384)
    ->UseManualTime()
    ->Iterations(kIterations);
BENCHMARK(BM_host_tcp_loopback_send)->Arg(64)->Arg(16384)->UseManualTime()->Iterations(kIterations);
BENCHMARK(BM_host_tcp_loopback_recv)->Arg(64)->Arg(16384)->UseManualTime()->Iterations(kIterations);

// ---- threads --------------------------------------------------------------------------------

// cpu.context-switch, less cpu.syscall.
void BM_host_yield_switch_same_core(benchmark::State& state) {
  report(
      state, [] { return calibrate::yield_switch(kBudget); }, false);
}
BENCHMARK(BM_host_yield_switch_same_core)->UseManualTime()->Iterations(kIterations);

// cpu.wakeup (same CPU), cpu.wakeup-remote (other CPU, 10 us idle): the latency from the
// eventfd write to the wakee running.
void BM_host_eventfd_wakeup_same_core(benchmark::State& state) {
  report(
      state,
      [] {
        return calibrate::wakeup_latency(kBudget, calibrate::WakeCore::same, irqmod::Duration{});
      },
      false);
}
BENCHMARK(BM_host_eventfd_wakeup_same_core)->UseManualTime()->Iterations(kIterations);

void BM_host_eventfd_wakeup_other_core_after_10us(benchmark::State& state) {
  report(
      state,
      [] {
        return calibrate::wakeup_latency(kBudget, calibrate::WakeCore::other,
                                         irqmod::microseconds(10));
      },
      false);
}
BENCHMARK(BM_host_eventfd_wakeup_other_core_after_10us)->UseManualTime()->Iterations(kIterations);

// cpu.wakeup-idle: after 5 ms idle (less the 10 us case). 10 samples per block: 50 ms.
void BM_host_eventfd_wakeup_other_core_after_5ms(benchmark::State& state) {
  report(
      state,
      [] {
        return calibrate::wakeup_latency(Budget{10, kBlockTime}, calibrate::WakeCore::other,
                                         irqmod::milliseconds(5));
      },
      false);
}
BENCHMARK(BM_host_eventfd_wakeup_other_core_after_5ms)->UseManualTime()->Iterations(kIterations);

// cpu.hrtimer-late: how late a 50 us clock_nanosleep returns.
void BM_host_hrtimer_lateness_50us(benchmark::State& state) {
  report(state, [] { return calibrate::hrtimer_lateness(kBudget, irqmod::microseconds(50)); });
}
BENCHMARK(BM_host_hrtimer_lateness_50us)->UseManualTime()->Iterations(kIterations);

// The clock-event device's measurements: one kind of a measurement's samples.
template <typename Result>
void report_kind(benchmark::State& state, irqmod::Expected<Result> (*measure)(const Budget&),
                 Samples Result::*kind) {
  report(state, [measure, kind]() -> irqmod::Expected<Samples> {
    auto result = measure(kBudget);
    if (!result) return result.error();
    return std::move(result.value().*kind);
  });
}

// cpu.hrtimer-arm: timerfd_settime arming a timer 200 us ahead (the CPU's earliest), less one
// 10 s ahead, behind the tick.
void BM_host_hrtimer_arm_200us(benchmark::State& state) {
  report_kind(state, calibrate::timer_programming, &calibrate::TimerProgramming::arm_soon);
}
void BM_host_hrtimer_arm_10s(benchmark::State& state) {
  report_kind(state, calibrate::timer_programming, &calibrate::TimerProgramming::arm_far);
}
BENCHMARK(BM_host_hrtimer_arm_200us)->UseManualTime()->Iterations(kIterations);
BENCHMARK(BM_host_hrtimer_arm_10s)->UseManualTime()->Iterations(kIterations);

// cpu.timer-irq: the largest gap of a 150 us spin across a timerfd's expiry, less the largest
// without a timer.
void BM_host_timer_interrupt_gap(benchmark::State& state) {
  report_kind(state, calibrate::timer_interrupt_gaps, &calibrate::TimerInterruptGaps::with_timer);
}
void BM_host_spin_gap(benchmark::State& state) {
  report_kind(state, calibrate::timer_interrupt_gaps, &calibrate::TimerInterruptGaps::without);
}
BENCHMARK(BM_host_timer_interrupt_gap)->UseManualTime()->Iterations(kIterations);
BENCHMARK(BM_host_spin_gap)->UseManualTime()->Iterations(kIterations);

// ---- kernel paths (root): Arg = segments of 64 B in one GSO sendmsg ------------------------

// One kind of batch through `path`, in a lab made for the benchmark's run (irqmod calibrate
// sends every kind round-robin in one lab; here one kind is timed alone).
void run_path(benchmark::State& state, calibrate::Path path) {
  auto lab = calibrate::PathLab::open();
  if (!lab) {
    state.SkipWithError(lab.error().what().c_str());
    return;
  }
  const calibrate::PathLab::Batch batch{path, static_cast<std::size_t>(state.range(0))};
  report(state, [&]() -> irqmod::Expected<Samples> {
    auto sent = lab.value()->send(kBudget, {batch});
    if (!sent) return sent.error();
    return std::move(sent.value().per_batch[0]);
  });
}

void BM_host_path_tun(benchmark::State& state) {
  run_path(state, calibrate::Path::tun);
}
void BM_host_path_loopback(benchmark::State& state) {
  run_path(state, calibrate::Path::loopback);
}
void BM_host_path_loopback_dropped(benchmark::State& state) {
  run_path(state, calibrate::Path::loopback_dropped);
}
void BM_host_path_veth_dropped(benchmark::State& state) {
  run_path(state, calibrate::Path::veth_dropped);
}
BENCHMARK(BM_host_path_tun)->Arg(1)->Arg(4)->Arg(32)->UseManualTime()->Iterations(kIterations);
BENCHMARK(BM_host_path_loopback)->Arg(4)->Arg(32)->UseManualTime()->Iterations(kIterations);
BENCHMARK(BM_host_path_loopback_dropped)->Arg(4)->Arg(32)->UseManualTime()->Iterations(kIterations);
BENCHMARK(BM_host_path_veth_dropped)->Arg(4)->Arg(32)->UseManualTime()->Iterations(kIterations);

}  // namespace
