// Cost of one adaptive-poll decision (on_idle, or on_work when work arrived) in a simulated loop.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "irqmod/policy/adaptive_poll.hpp"
#include "irqmod/time.hpp"

namespace {

using irqmod::Duration;
using irqmod::ManualClock;
using irqmod::microseconds;
using irqmod::nanoseconds;
using namespace irqmod::adaptive_poll;

// One poll per iteration, 500 ns apart; work arrives every `gap`. Blocks skip to the arrival.
void run_decisions(benchmark::State& state, Duration gap) {
  AdaptivePoller p{Config{}};
  ManualClock clock;
  auto next = clock.now() + gap;
  for (auto _ : state) {
    const auto now = clock.now();
    if (now >= next) {
      p.on_work(now, 1);
      next += gap;
      clock.advance(nanoseconds(500));
      continue;
    }
    const Action a = p.on_idle(now);
    benchmark::DoNotOptimize(a);
    if (a.kind == ActionKind::block) {
      InterruptEntry e = p.try_enter_interrupt_mode(now);
      if (p.recheck(e, false)) clock.advance_to(next);
      p.exit_interrupt_mode(e, clock.now());
    } else if (a.kind == ActionKind::sleep_until && a.until > now) {
      clock.advance_to(a.until);
    } else {
      clock.advance(nanoseconds(500));
    }
  }
  state.counters["blocks"] = static_cast<double>(p.counters().blocks);
  state.counters["sleeps"] = static_cast<double>(p.counters().sleeps);
}

// Gaps of 2 µs: spinning.
void BM_adaptive_poll_burst(benchmark::State& state) {
  run_decisions(state, microseconds(2));
}
BENCHMARK(BM_adaptive_poll_burst);

// Gaps of 100 µs: hybrid sleep then spin.
void BM_adaptive_poll_periodic(benchmark::State& state) {
  run_decisions(state, microseconds(100));
}
BENCHMARK(BM_adaptive_poll_periodic);

// Gaps of 5 ms: block through interrupt mode.
void BM_adaptive_poll_long_gap(benchmark::State& state) {
  run_decisions(state, irqmod::milliseconds(5));
}
BENCHMARK(BM_adaptive_poll_long_gap);

}  // namespace
