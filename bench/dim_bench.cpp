// ns per net_dim step: the cost a driver pays once per NAPI completion.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "irqmod/policy/dim.hpp"

namespace {

using irqmod::at_ns;
namespace dim = irqmod::dim;

// A sample that does not close a window: the common case (63 of every 64 completions).
void BM_dim_step_within_window(benchmark::State& state) {
  dim::NetDim d(dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_eqe));
  d.step(dim::make_sample(at_ns(0), 0, 0, 0), at_ns(0));
  const dim::Sample s = dim::make_sample(at_ns(1000), 1, 8, 12000);
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.step(s, at_ns(1000)));
  }
}
BENCHMARK(BM_dim_step_within_window);

// Every step closes a window and runs a decision, with traffic that keeps changing.
void BM_dim_step_with_decision(benchmark::State& state) {
  dim::NetDim d(dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_eqe));
  std::uint64_t events = 0;
  std::uint64_t packets = 0;
  std::int64_t t = 0;
  std::uint32_t lcg = 1;
  for (auto _ : state) {
    lcg = lcg * 1664525U + 1013904223U;
    events += dim::kNumEvents;
    packets += 64 + (lcg >> 24);
    t += 50'000 + (lcg >> 20);
    const dim::Decision dec =
        d.step(dim::make_sample(at_ns(t), events, packets, packets * 900), at_ns(t));
    if (dec.apply) d.acknowledge();
    benchmark::DoNotOptimize(dec);
  }
}
BENCHMARK(BM_dim_step_with_decision);

}  // namespace
