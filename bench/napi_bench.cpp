// Cost of the NAPI engine's steps: one interrupt-driven cycle (cause, fire, schedule, softirq
// poll, driver completion, re-enable), one busy-poll iteration, one whole busy-poll session with
// its final poll, and the vector alone.
#include <benchmark/benchmark.h>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/driver.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/time.hpp"

namespace {

using irqmod::Duration;
using irqmod::Instant;
using irqmod::ManualClock;
using irqmod::nanoseconds;
using namespace irqmod::napi;

VectorConfig unthrottled() {
  VectorConfig c;
  c.itr_interval = Duration::zero();
  c.sw_itr_interval = Duration::zero();
  return c;
}

// Descriptor lands -> interrupt -> napi_schedule -> softirq poll of 1 -> complete -> re-enable.
void run_interrupt_cycle(benchmark::State& state, const DriverConfig& driver_config) {
  Context context{Config{}};
  Vector vector{unthrottled()};
  ManualClock clock;
  Driver driver{driver_config, clock.now()};
  for (auto _ : state) {
    clock.advance(nanoseconds(100));
    const Instant now = clock.now();
    vector.on_cause(now);
    benchmark::DoNotOptimize(vector.fire(now));
    context.schedule();
    context.softirq_poll_begin();
    const PollResult r = context.softirq_poll_end(now, 1);
    driver.on_rx_cleaned(64, 1);
    benchmark::DoNotOptimize(driver.on_poll(now, r, vector));
  }
}

void BM_napi_interrupt_cycle(benchmark::State& state) {
  run_interrupt_cycle(state, DriverConfig{});
}
BENCHMARK(BM_napi_interrupt_cycle);

// The same cycle with the i40e adaptive ITR in the driver.
void BM_napi_interrupt_cycle_adaptive_itr(benchmark::State& state) {
  DriverConfig c;
  c.adaptive = irqmod::adaptive_itr::Config{};
  run_interrupt_cycle(state, c);
}
BENCHMARK(BM_napi_interrupt_cycle_adaptive_itr);

// One owned busy-poll iteration that finds a packet (napi_complete_done refused).
void BM_napi_busy_poll_iteration(benchmark::State& state) {
  Context context{Config{}};
  Vector vector{unthrottled()};
  ManualClock clock;
  Driver driver{DriverConfig{}, clock.now()};
  context.busy_poll_acquire(false);
  for (auto _ : state) {
    clock.advance(nanoseconds(100));
    context.busy_poll_begin(kBusyPollBudget);
    const PollResult r = context.busy_poll_end(clock.now(), 1);
    benchmark::DoNotOptimize(driver.on_poll(clock.now(), r, vector));
  }
}
BENCHMARK(BM_napi_busy_poll_iteration);

// A whole session: acquire, one iteration, busy_poll_stop, final poll, re-enable with the
// seed-000 software interrupt, and that interrupt's softirq poll.
void BM_napi_busy_poll_session(benchmark::State& state) {
  Context context{Config{}};
  Vector vector{unthrottled()};
  ManualClock clock;
  Driver driver{DriverConfig{}, clock.now()};
  for (auto _ : state) {
    clock.advance(nanoseconds(100));
    const Instant now = clock.now();
    context.busy_poll_acquire(false);
    context.busy_poll_begin(kBusyPollBudget);
    driver.on_poll(now, context.busy_poll_end(now, 1), vector);
    context.busy_poll_stop(now, false);
    context.final_poll_begin();
    driver.on_poll(now, context.final_poll_end(now, 0), vector);
    vector.fire(now);
    context.schedule();
    context.softirq_poll_begin();
    benchmark::DoNotOptimize(driver.on_poll(now, context.softirq_poll_end(now, 0), vector));
  }
}
BENCHMARK(BM_napi_busy_poll_session);

// The vector alone: a throttled cause and its interrupt.
void BM_napi_vector_cause_and_fire(benchmark::State& state) {
  VectorConfig c;
  Vector vector{c};
  ManualClock clock;
  for (auto _ : state) {
    clock.advance(c.itr_interval);
    const Instant now = clock.now();
    vector.on_cause(now);
    benchmark::DoNotOptimize(vector.fire(now));
    vector.enable(now, false);
  }
}
BENCHMARK(BM_napi_vector_cause_and_fire);

}  // namespace
