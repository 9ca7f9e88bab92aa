// The simulator's foundations: event engine throughput against a bare 4-ary heap doing the same
// hold loop, and the batched traffic + link generator at 10 GbE line rate.
//
// Goals (printed, not asserted): the engine's events/s at least half the bare heap's, measured in
// the same run (BM_sim_engine_vs_bare_heap's "ratio" counter); one simulated second of 64 B line
// rate at 10 Gbit/s, 14.88 M frames, in at most one second of wall time on one core
// (BM_sim_line_rate_one_second's "wall_s_per_sim_s" counter).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "irqmod/sim/engine.hpp"
#include "irqmod/sim/heap.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {
namespace {

// The hold model's increments: exponential with a 1 us mean, drawn once so both loops pay the
// same (nothing) for them. 4096 of them, cycled.
const std::vector<std::int64_t>& increments() {
  static const std::vector<std::int64_t> table = [] {
    Rng rng(12345);
    std::vector<std::int64_t> t(4096);
    for (auto& x : t)
      x = static_cast<std::int64_t>(rng.exponential(1000.0)) + 1;
    return t;
  }();
  return table;
}
constexpr std::size_t kIncrementMask = 4095;

// A bare hold loop: pop the earliest (time, seq), push one later. No slots, no dispatch.
struct BareEntry {
  std::int64_t time;
  std::uint64_t seq;
};
struct BareBefore {
  bool operator()(const BareEntry& a, const BareEntry& b) const {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  }
};

class BareHold {
 public:
  explicit BareHold(std::size_t pending) : heap_(pending + 1) {
    const auto& inc = increments();
    for (std::size_t i = 0; i < pending; ++i)
      heap_.push({inc[i & kIncrementMask], seq_++});
  }
  std::int64_t run(std::size_t events) {
    const auto& inc = increments();
    for (std::size_t n = 0; n < events; ++n) {
      const BareEntry top = heap_.top();
      heap_.pop();
      heap_.push({top.time + inc[i_++ & kIncrementMask], seq_++});
    }
    return heap_.top().time;
  }

 private:
  QuaternaryHeap<BareEntry, BareBefore> heap_;
  std::uint64_t seq_ = 0;
  std::size_t i_ = 0;
};

// The same hold loop through the engine as the simulator runs it: each event goes to its
// target endpoint (a function pointer and a component, an indirect call), whose handler
// schedules the successor.
class EngineHold {
 public:
  explicit EngineHold(std::size_t pending) : engine_(pending + 1) {
    self_ = engine_.bind<&EngineHold::on_event>(*this);
    const auto& inc = increments();
    for (std::size_t i = 0; i < pending; ++i)
      engine_.schedule(at_ns(inc[i & kIncrementMask]), self_, 1);
  }
  std::uint64_t run(std::size_t events) {
    events_ = events;
    n_ = 0;
    return engine_.run_until(Instant::max() - seconds(1));
  }

 private:
  void on_event(const Event& e) {
    engine_.schedule(e.time() + nanoseconds(increments()[i_++ & kIncrementMask]), self_, e.kind());
    if (++n_ == events_) engine_.stop();
  }

  Engine engine_;
  EndpointId self_{};
  std::size_t i_ = 0;
  std::size_t n_ = 0;
  std::size_t events_ = 0;
};

constexpr std::size_t kBatch = 1 << 16;

void BM_sim_bare_heap_hold(benchmark::State& state) {
  BareHold hold(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(hold.run(kBatch));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}
BENCHMARK(BM_sim_bare_heap_hold)->Arg(64)->Arg(4096)->Arg(65536);

void BM_sim_engine_hold(benchmark::State& state) {
  EngineHold hold(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(hold.run(kBatch));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}
BENCHMARK(BM_sim_engine_hold)->Arg(64)->Arg(4096)->Arg(65536);

// Both loops alternately in one benchmark, so the ratio compares the same moments of the machine.
void BM_sim_engine_vs_bare_heap(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  BareHold bare(pending);
  EngineHold engine(pending);
  double bare_s = 0;
  double engine_s = 0;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(bare.run(kBatch));
    const auto t1 = Clock::now();
    benchmark::DoNotOptimize(engine.run(kBatch));
    const auto t2 = Clock::now();
    bare_s += std::chrono::duration<double>(t1 - t0).count();
    engine_s += std::chrono::duration<double>(t2 - t1).count();
  }
  const double events = static_cast<double>(state.iterations()) * kBatch;
  state.counters["bare_Mev_s"] = events / bare_s / 1e6;
  state.counters["engine_Mev_s"] = events / engine_s / 1e6;
  state.counters["ratio"] = bare_s / engine_s;  // engine events/s over bare events/s; goal >= 0.8
}
BENCHMARK(BM_sim_engine_vs_bare_heap)->Arg(64)->Arg(4096);

constexpr std::uint64_t k10G = 10'000'000'000;

// Arrivals alone: 64 B back to back at 10 Gbit/s, landed in a 512-descriptor ring in 10 us
// batches and drained at once (no drops), to show the per-frame cost of the generator + link.
void BM_sim_arrivals_line_rate(benchmark::State& state) {
  ArrivalStream stream(ConstantRate(Spacing::fixed(0), 64), Link(k10G), Rng(1));
  Ring<Packet> ring(512);
  std::int64_t now_ns = 0;
  std::uint64_t frames = 0;
  for (auto _ : state) {
    now_ns += 10'000;
    frames += stream.take_until(at_ns(now_ns), [&](const Packet& p) { ring.push(p); });
    benchmark::DoNotOptimize(ring.front());
    ring.clear();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(frames));
}
BENCHMARK(BM_sim_arrivals_line_rate);

// One simulated second of 10 GbE 64 B line rate through the engine: a poll event every 10 us
// (100 000 events/s) lands the arrivals since the last one in a 512-descriptor ring and drains
// up to 256 of them (NAPI-sized work), so the ring overflows and drops are counted, as a real NIC
// would at line rate with slow polling. The books must balance at the end.
void BM_sim_line_rate_one_second(benchmark::State& state) {
  std::uint64_t frames = 0;
  double wall_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    Engine engine(64);
    ArrivalStream stream(ConstantRate(Spacing::fixed(0), 64), Link(k10G), Rng(1));
    Ring<Packet> ring(512);
    std::uint64_t delivered = 0;
    std::uint64_t dropped = 0;
    engine.schedule(at_ns(10'000), 1, 0);
    engine.run_until(at_ns(1'000'000'000), [&](const Event& e) {
      stream.take_until(e.time(), [&](const Packet& p) {
        if (!ring.push(p)) ++dropped;
      });
      const std::size_t n = ring.size() < 256 ? ring.size() : 256;
      ring.pop(n);
      delivered += n;
      engine.schedule(e.time() + nanoseconds(10'000), 1, 0);
    });
    stream.take_until(at_ns(1'000'000'000), [&](const Packet& p) {
      if (!ring.push(p)) ++dropped;
    });
    if (stream.taken() != delivered + dropped + ring.size()) {
      state.SkipWithError("conservation broken");
    }
    frames += stream.taken();
    benchmark::DoNotOptimize(delivered);
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(frames));
  state.counters["frames_per_sim_s"] =
      static_cast<double>(frames) / static_cast<double>(state.iterations());
  state.counters["wall_s_per_sim_s"] = wall_s / static_cast<double>(state.iterations());
}
BENCHMARK(BM_sim_line_rate_one_second)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace irqmod::sim
