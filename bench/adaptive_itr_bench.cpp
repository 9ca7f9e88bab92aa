// ns per i40e adaptive ITR decision: the work i40e_update_enable_itr adds to every NAPI
// completion.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "irqmod/policy/adaptive_itr.hpp"

namespace {

using irqmod::Instant;
using irqmod::microseconds;
namespace adaptive_itr = irqmod::adaptive_itr;

// sockperf-like ping-pong: one small packet each way per interrupt (latency mode, settled).
void BM_adaptive_itr_ping_pong(benchmark::State& state) {
  adaptive_itr::AdaptiveItr a(adaptive_itr::Config{}, irqmod::at_ns(0));
  Instant t = irqmod::at_ns(0);
  for (auto _ : state) {
    t += microseconds(25);
    a.on_rx_cleaned(1000, 1);
    a.on_tx_cleaned(1000, 1);
    benchmark::DoNotOptimize(a.on_poll_complete(t, true));
  }
}
BENCHMARK(BM_adaptive_itr_ping_pong);

// A bulk stream with a varying number of full frames per interrupt: the size formula runs on
// every measured interrupt.
void BM_adaptive_itr_bulk_stream(benchmark::State& state) {
  adaptive_itr::AdaptiveItr a(adaptive_itr::Config{}, irqmod::at_ns(0));
  Instant t = irqmod::at_ns(0);
  std::uint32_t lcg = 1;
  for (auto _ : state) {
    lcg = lcg * 1664525U + 1013904223U;
    const std::uint32_t packets = 200 + (lcg >> 24);
    t += microseconds(100);
    a.on_rx_cleaned(packets * 1500, packets);
    a.on_tx_cleaned(packets / 2 * 66, packets / 2);
    benchmark::DoNotOptimize(a.on_poll_complete(t, true));
  }
}
BENCHMARK(BM_adaptive_itr_bulk_stream);

// Busy polling: every other poll is refused by napi_complete_done, the next one forces a
// software interrupt (seed 000's fix).
void BM_adaptive_itr_busy_poll_exit(benchmark::State& state) {
  adaptive_itr::AdaptiveItr a(adaptive_itr::Config{}, irqmod::at_ns(0));
  Instant t = irqmod::at_ns(0);
  bool completed = false;
  for (auto _ : state) {
    t += microseconds(10);
    completed = !completed;
    a.on_rx_cleaned(1000, 1);
    benchmark::DoNotOptimize(a.on_poll_complete(t, completed));
  }
}
BENCHMARK(BM_adaptive_itr_busy_poll_exit);

}  // namespace
