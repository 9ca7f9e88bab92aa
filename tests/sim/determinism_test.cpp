// Same inputs and seed, same bytes: a small pipeline over every foundation piece (Poisson
// arrivals over a link, engine timers with cancellation, a ring, the histogram, the trace and
// the JSON report) run twice must write identical output, and another seed must not.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "irqmod/sim/engine.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/trace.hpp"
#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {
namespace {

// A toy receive path: a timer polls the ring every 20 us (re-armed, sometimes cancelled and
// re-armed earlier), drains up to 32 frames and records each frame's wait.
std::string run_pipeline(std::uint64_t seed) {
  std::ostringstream trace_text;
  std::ostringstream report_text;
  RunReport report;
  report.scenario = "determinism";
  report.seed = seed;
  report.interrupts = InterruptCounters(1);
  report.cpu = CpuTime(1);
  {
    TraceWriter trace(trace_text, TraceWindow{at_ns(0), at_ns(200'000)});
    Engine engine;
    const SlotId poll = engine.make_slot();
    ArrivalStream rx(Poisson(3'000'000, 64), Link(10'000'000'000), Rng(seed, 1));
    Rng jitter(seed, 2);
    Ring<Packet> ring(64);
    std::uint64_t delivered = 0;
    engine.arm(poll, at_ns(20'000), 1, 0);
    engine.run_until(at_ns(2'000'000), [&](const Event& e) {
      rx.take_until(e.time(), [&](const Packet& p) {
        if (!ring.push(p)) report.drops.add(DropReason::rx_ring_full);
      });
      report.interrupts.count(0);
      trace.instant(1, 0, "poll", "irq", e.time());
      trace.counter(1, "rx ring", "used", e.time(), static_cast<std::int64_t>(ring.size()));
      const std::size_t n = ring.size() < 32 ? ring.size() : 32;
      for (std::size_t i = 0; i < n; ++i) {
        report.latency.record(ns_since_epoch(e.time()) - ring.front().arrival_ns);
        ring.pop();
      }
      delivered += n;
      const Duration work = nanoseconds(static_cast<std::int64_t>(100 * n));
      report.cpu.charge(0, ContextKind::softirq, work);
      trace.slice(1, 0, "softirq", "napi", e.time(), work);
      engine.arm(poll, e.time() + microseconds(20), 1, 0);
      if (jitter.below(4) == 0) {  // sometimes moved earlier: the first arm becomes stale
        engine.cancel(poll);
        engine.arm(poll, e.time() + nanoseconds(static_cast<std::int64_t>(jitter.below(20'000))), 1,
                   0);
      }
    });
    rx.take_until(at_ns(2'000'000), [&](const Packet& p) {
      if (!ring.push(p)) report.drops.add(DropReason::rx_ring_full);
    });
    report.sim_time = milliseconds(2);
    report.events = engine.stats().dispatched;
    report.delivered_packets = delivered;
    report.delivered_bytes = delivered * 64;
    report.conservation = Conservation{rx.taken(), delivered, report.drops.total(), ring.size()};
  }
  EXPECT_TRUE(report.conservation.ok());
  write_json(report_text, report);
  write_text(report_text, report);
  return trace_text.str() + report_text.str();
}

TEST(determinism, the_same_seed_gives_byte_identical_output) {
  const std::string a = run_pipeline(17);
  const std::string b = run_pipeline(17);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.size(), 2'000u);
  EXPECT_NE(a, run_pipeline(18));
}

}  // namespace
}  // namespace irqmod::sim
