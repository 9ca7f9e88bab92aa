// Cost of one coalescing decision (on_completion + due) and of one rate-band sample.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "irqmod/policy/coalesce.hpp"
#include "irqmod/time.hpp"

namespace {

using irqmod::Instant;
using irqmod::ManualClock;
using irqmod::nanoseconds;
using irqmod::coalesce::Coalescer;
using irqmod::coalesce::Direction;
using irqmod::coalesce::Settings;

// One completion every 100 ns (10 Mpps), interrupting when due and re-enabling at once.
void run_decisions(benchmark::State& state, const Settings& settings) {
  Coalescer c(settings, Direction::rx);
  ManualClock clock;
  for (auto _ : state) {
    clock.advance(nanoseconds(100));
    const Instant now = clock.now();
    c.on_completion(now);
    const bool due = c.due(now);
    benchmark::DoNotOptimize(due);
    if (due) {
      c.on_interrupt(now);
      c.on_irq_enabled(now);
    }
  }
  state.counters["interrupts"] = static_cast<double>(c.interrupts());
}

// rx-usecs 50 rx-frames 64: both criteria live.
void BM_coalesce_decision_usecs_and_frames(benchmark::State& state) {
  Settings s;
  s.rx.normal = {50, 64};
  run_decisions(state, s);
}
BENCHMARK(BM_coalesce_decision_usecs_and_frames);

// rx-usecs 0 rx-frames 1: an interrupt per completion.
void BM_coalesce_decision_no_coalescing(benchmark::State& state) {
  Settings s;
  run_decisions(state, s);
}
BENCHMARK(BM_coalesce_decision_no_coalescing);

// The decision while servicing, with the -irq pair set (the interrupt is never re-enabled).
void BM_coalesce_decision_servicing_irq_pair(benchmark::State& state) {
  Settings s;
  s.rx.normal = {50, 64};
  s.rx.irq = {10, 8};
  Coalescer c(s, Direction::rx);
  ManualClock clock;
  c.on_interrupt(clock.now());
  for (auto _ : state) {
    clock.advance(nanoseconds(100));
    const Instant now = clock.now();
    c.on_completion(now);
    const bool due = c.due(now);
    benchmark::DoNotOptimize(due);
    if (due) c.on_interrupt(now);
  }
}
BENCHMARK(BM_coalesce_decision_servicing_irq_pair);

// One band sample; the rate alternates low / normal / high so the band changes every time.
void BM_coalesce_band_sample(benchmark::State& state) {
  Settings s;
  s.rx.normal = {50, 32};
  s.rx.low = {5, 1};
  s.rx.high = {200, 128};
  s.rx.adaptive = true;
  s.pkt_rate_low = 10'000;
  s.pkt_rate_high = 100'000;
  s.sample_interval = 1;
  Coalescer c(s, Direction::rx);
  ManualClock clock;
  constexpr std::uint64_t kPacketsPerSample[] = {1'000, 50'000, 1'000'000};
  std::uint64_t packets = 0;
  std::uint64_t i = 0;
  c.on_sample(clock.now(), packets);
  for (auto _ : state) {
    clock.advance(irqmod::seconds(1));
    packets += kPacketsPerSample[i++ % 3];
    benchmark::DoNotOptimize(c.on_sample(clock.now(), packets));
  }
  state.counters["band_changes"] = static_cast<double>(c.band_changes());
}
BENCHMARK(BM_coalesce_band_sample);

}  // namespace
