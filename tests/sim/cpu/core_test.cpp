// A core's job stack and threads, driven through the engine with small jobs of fixed segments:
// preemption by hardirqs, NET_RX after them, threads sharing the core by slices, a kernel thread
// that yields by itself, need_resched(), the cost model's draws and the CPU time it charges.
#include "sim/cpu/core.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/trace.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

Duration us(std::int64_t n) {
  return microseconds(n);
}
Instant at_us(std::int64_t n) {
  return Instant{microseconds(n)};
}

// A job of fixed segments, all charged to one kind. It records when it started and when each
// segment ended; `on_end` runs at every segment end (a handler raising NET_RX, say).
struct Work {
  explicit Work(std::vector<Duration> segments_, ContextKind charge_ = ContextKind::thread,
                std::string_view label_ = "work")
      : segments(std::move(segments_)), charge(charge_), label(label_) {}

  std::vector<Duration> segments;
  ContextKind charge;
  std::string_view label;
  std::function<void(Core&)> on_end;
  std::size_t done = 0;
  std::vector<Instant> starts;
  std::vector<Instant> ends;

  std::optional<Segment> start(Core& core) {
    starts.push_back(core.now());
    return segment();
  }
  std::optional<Segment> next(Core& core) {
    ends.push_back(core.now());
    ++done;
    if (on_end) on_end(core);
    return segment();
  }
  std::optional<Segment> segment() const {
    if (done == segments.size()) return std::nullopt;
    return Segment{segments[done], charge, label};
  }
};

// A kernel thread's loop (ksoftirqd's shape): `segments` segments, each followed by a look at
// need_resched(); it gives the CPU away there when `yield_on_resched`, and starts over later.
struct KernelLoop {
  KernelLoop(Duration length_, int segments_, bool yield_on_resched_ = false)
      : length(length_), segments(segments_), yield_on_resched(yield_on_resched_) {}

  Duration length;
  int segments;
  bool yield_on_resched;
  bool yielding = false;
  std::vector<Instant> starts;
  std::vector<bool> saw_resched;  // need_resched() at each segment end

  std::optional<Segment> start(Core& core) {
    starts.push_back(core.now());
    yielding = false;
    return Segment{length, ContextKind::ksoftirqd, "kernel"};
  }
  std::optional<Segment> next(Core& core) {
    saw_resched.push_back(core.need_resched());
    if (--segments == 0) return std::nullopt;
    if (yield_on_resched && core.need_resched()) {
      yielding = true;
      return std::nullopt;
    }
    return Segment{length, ContextKind::ksoftirqd, "kernel"};
  }
  bool yields() const { return yielding; }
};

struct OneCore {
  explicit OneCore(Duration slice = milliseconds(1)) : core(world, 0, Rng(1), slice) {
    world.report.cpu = CpuTime(1);
    world.report.cores.resize(1);
  }
  void run_to(Instant t) { world.engine.run_until(t); }
  Duration busy(ContextKind kind) const { return world.report.cpu.busy(0, kind); }

  World world;
  Core core;
};

// One slice of the timeline, merged with the slice before it when both have the same name and
// meet (a segment paused and resumed with nothing in between).
struct Slice {
  std::string name;
  std::string category;
  std::int64_t start_ns = 0;
  std::int64_t length_ns = 0;
  friend bool operator==(const Slice&, const Slice&) = default;
};

std::int64_t ns_of(const nlohmann::json& us_value) {
  return std::llround(us_value.get<double>() * 1000.0);
}

std::vector<Slice> cpu_slices(const std::string& json) {
  std::vector<Slice> slices;
  const nlohmann::json document = nlohmann::json::parse(json);
  for (const auto& e : document.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("pid") != kTraceCpu) continue;
    Slice s{e.at("name"), e.at("cat"), ns_of(e.at("ts")), ns_of(e.at("dur"))};
    if (!slices.empty() && slices.back().name == s.name &&
        slices.back().start_ns + slices.back().length_ns == s.start_ns) {
      slices.back().length_ns += s.length_ns;
    } else {
      slices.push_back(std::move(s));
    }
  }
  return slices;
}

TEST(core, resumes_a_thread_preempted_by_a_hardirq_with_the_time_it_had_left) {
  OneCore c;
  Work thread({us(10)});
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(4));
  Work irq({us(3)}, ContextKind::hardirq);
  c.core.push(job_of(irq), Level::hardirq);
  EXPECT_EQ(c.core.jobs_at(Level::hardirq), 1U);
  c.run_to(at_us(100));
  EXPECT_EQ(irq.starts, std::vector<Instant>{at_us(4)});
  EXPECT_EQ(irq.ends, std::vector<Instant>{at_us(7)});
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(13)});
  EXPECT_EQ(c.busy(ContextKind::thread), us(10));
  EXPECT_EQ(c.busy(ContextKind::hardirq), us(3));
  EXPECT_EQ(c.core.jobs_at(Level::hardirq), 0U);
}

TEST(core, queues_a_second_hardirq_behind_the_running_one) {
  OneCore c;
  Work thread({us(10)});
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(4));
  Work first({us(3)}, ContextKind::hardirq);
  c.core.push(job_of(first), Level::hardirq);
  c.run_to(at_us(5));
  Work second({us(3)}, ContextKind::hardirq);
  c.core.push(job_of(second), Level::hardirq);
  c.run_to(at_us(100));
  EXPECT_EQ(first.ends, std::vector<Instant>{at_us(7)});
  EXPECT_EQ(second.starts, std::vector<Instant>{at_us(7)});
  EXPECT_EQ(second.ends, std::vector<Instant>{at_us(10)});
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(16)});
}

TEST(core, runs_the_softirq_raised_by_a_hardirq_handler_before_the_thread_resumes) {
  OneCore c;
  Work thread({us(20)});
  Work net_rx({us(5)}, ContextKind::softirq);
  c.core.set_softirq_job(job_of(net_rx));
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(2));
  Work irq({us(3)}, ContextKind::hardirq);
  irq.on_end = [](Core& core) { core.raise_softirq(); };
  c.core.push(job_of(irq), Level::hardirq);
  c.run_to(at_us(100));
  EXPECT_EQ(net_rx.starts, std::vector<Instant>{at_us(5)});
  EXPECT_EQ(net_rx.ends, std::vector<Instant>{at_us(10)});
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(28)});
  EXPECT_EQ(c.busy(ContextKind::softirq), us(5));
  EXPECT_FALSE(c.core.softirq_pending());
}

TEST(core, starts_a_softirq_raised_during_a_hardirq_only_when_the_hardirq_ends) {
  OneCore c;
  Work thread({us(20)});
  Work net_rx({us(5)}, ContextKind::softirq);
  c.core.set_softirq_job(job_of(net_rx));
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(2));
  Work irq({us(3)}, ContextKind::hardirq);
  c.core.push(job_of(irq), Level::hardirq);
  c.run_to(at_us(3));
  c.core.raise_softirq();
  c.run_to(at_us(4));
  EXPECT_TRUE(c.core.softirq_pending());
  EXPECT_TRUE(net_rx.starts.empty());
  c.run_to(at_us(100));
  EXPECT_EQ(net_rx.starts, std::vector<Instant>{at_us(5)});
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(28)});
  EXPECT_FALSE(c.core.softirq_pending());
}

// Thread A charges `thread`, thread B `busy_poll`, so that each one's CPU time shows apart.
struct TwoThreads {
  TwoThreads() : trace(out) {
    c.world.trace = &trace;
    ta = c.core.add_thread(job_of(a), false);
    tb = c.core.add_thread(job_of(b), false);
  }
  // The timeline's turns: the merged slices that are not idle.
  std::vector<Slice> turns() {
    c.core.finish();
    trace.close();
    std::vector<Slice> result;
    for (Slice& s : cpu_slices(out.str()))
      if (s.category != "idle") result.push_back(std::move(s));
    return result;
  }

  OneCore c;  // 1 ms slices
  std::ostringstream out;
  TraceWriter trace;
  Work a{{milliseconds(5)}, ContextKind::thread, "A"};
  Work b{{milliseconds(5)}, ContextKind::busy_poll, "B"};
  std::uint32_t ta = 0;
  std::uint32_t tb = 0;
};

TEST(core, shares_the_core_between_two_threads_in_whole_slices_switched_at_slice_ends) {
  TwoThreads t;
  t.c.core.wake(t.ta);
  t.c.core.wake(t.tb);
  t.c.run_to(at_us(900));
  EXPECT_TRUE(t.b.starts.empty());
  t.c.run_to(at_us(20'000));
  EXPECT_EQ(t.b.starts, std::vector<Instant>{at_us(1000)});
  EXPECT_EQ(t.a.ends, std::vector<Instant>{at_us(9000)});
  EXPECT_EQ(t.b.ends, std::vector<Instant>{at_us(10'000)});
  EXPECT_EQ(t.c.busy(ContextKind::thread), milliseconds(5));
  EXPECT_EQ(t.c.busy(ContextKind::busy_poll), milliseconds(5));
  // RUN_TO_PARITY protects only the slice a thread was picked for: at each slice end the
  // earliest eligible deadline runs (ties: the lower thread), so the turns are one slice each.
  std::vector<Slice> expected;
  for (std::int64_t i = 0; i < 10; ++i) {
    expected.push_back(i % 2 == 0 ? Slice{"A", "thread", i * 1'000'000, 1'000'000}
                                  : Slice{"B", "busy_poll", i * 1'000'000, 1'000'000});
  }
  EXPECT_EQ(t.turns(), expected);
  EXPECT_FALSE(t.c.core.runnable(t.ta));
  EXPECT_FALSE(t.c.core.runnable(t.tb));
}

// The running thread's time so far must count before the woken one is placed (Linux's
// enqueue_entity calls update_curr() before place_entity()); otherwise the running thread looks
// ahead of the average, is not eligible, and loses the CPU at once: B would start at 100 us
// instead of at the end of A's slice (found by this test, fixed in Core::wake).
TEST(core, lets_a_thread_woken_while_another_runs_wait_for_the_end_of_the_slice) {
  TwoThreads t;
  t.c.core.wake(t.ta);
  t.c.run_to(at_us(100));
  t.c.core.wake(t.tb);
  EXPECT_TRUE(t.b.starts.empty());
  EXPECT_FALSE(t.c.core.need_resched());
  t.c.run_to(at_us(20'000));
  EXPECT_EQ(t.b.starts, std::vector<Instant>{at_us(1000)});
  EXPECT_EQ(t.a.ends, std::vector<Instant>{at_us(9000)});
  EXPECT_EQ(t.b.ends, std::vector<Instant>{at_us(10'000)});
}

TEST(core, does_not_switch_out_a_kernel_thread_that_does_not_yield) {
  OneCore c;
  KernelLoop k(us(300), 10);
  Work app({milliseconds(1)});
  c.core.wake(c.core.add_thread(job_of(k), true));
  c.core.wake(c.core.add_thread(job_of(app), false));
  c.run_to(at_us(10'000));
  // The slice ended at 1 ms: need_resched() from then on, but the loop ran its 3 ms.
  ASSERT_EQ(k.saw_resched.size(), 10U);
  EXPECT_FALSE(k.saw_resched[2]);  // 900 us
  EXPECT_TRUE(k.saw_resched[3]);   // 1200 us
  EXPECT_EQ(app.starts, std::vector<Instant>{at_us(3000)});
  EXPECT_EQ(c.busy(ContextKind::ksoftirqd), us(3000));
  EXPECT_EQ(c.busy(ContextKind::thread), milliseconds(1));
}

TEST(core, switches_a_kernel_thread_out_when_it_yields_and_keeps_it_runnable) {
  OneCore c;
  KernelLoop k(us(300), 10, true);
  Work app({milliseconds(1)});
  const std::uint32_t tk = c.core.add_thread(job_of(k), true);
  c.core.wake(tk);
  c.core.wake(c.core.add_thread(job_of(app), false));
  c.run_to(at_us(1100));
  EXPECT_TRUE(c.core.need_resched());
  EXPECT_TRUE(app.starts.empty());  // past the slice end, before the loop looked
  c.run_to(at_us(1200));
  EXPECT_EQ(app.starts, std::vector<Instant>{at_us(1200)});
  EXPECT_TRUE(c.core.runnable(tk));
  c.run_to(at_us(10'000));
  // It starts again when the application blocks, and finishes the six segments it had left.
  EXPECT_EQ(k.starts, (std::vector<Instant>{at_us(0), at_us(2200)}));
  EXPECT_EQ(c.busy(ContextKind::ksoftirqd), us(3000));
  EXPECT_FALSE(c.core.runnable(tk));
}

TEST(core, needs_a_resched_after_waking_a_thread_under_a_running_softirq_until_it_runs) {
  OneCore c;
  Work net_rx({us(10)}, ContextKind::softirq);
  Work thread({us(5)});
  const std::uint32_t t = c.core.add_thread(job_of(thread), false);
  c.core.push(job_of(net_rx), Level::softirq);
  c.run_to(at_us(2));
  EXPECT_FALSE(c.core.need_resched());
  c.core.wake(t);
  EXPECT_TRUE(c.core.need_resched());
  EXPECT_TRUE(thread.starts.empty());
  c.run_to(at_us(11));
  EXPECT_EQ(thread.starts, std::vector<Instant>{at_us(10)});
  EXPECT_FALSE(c.core.need_resched());
}

TEST(core, cost_of_a_constant_leaves_the_cores_random_stream_alone) {
  World world;
  Core a(world, 0, Rng(5, 9), milliseconds(1));
  Core b(world, 1, Rng(5, 9), milliseconds(1));
  const Distribution constant = Distribution::constant_ns(700);
  const Distribution uniform{DistributionKind::uniform, 100, 100'000, 0};
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(a.cost(constant, 3), nanoseconds(2100));
    EXPECT_EQ(a.cost(uniform), b.cost(uniform)) << "draw " << i;
  }
}

TEST(core, cost_of_a_distribution_varies_and_draws_once_per_operation) {
  World world;
  Core a(world, 0, Rng(5, 9), milliseconds(1));
  Core b(world, 1, Rng(5, 9), milliseconds(1));
  const Distribution uniform{DistributionKind::uniform, 100, 100'000, 0};
  std::set<std::int64_t> seen;
  for (int i = 0; i < 50; ++i) {
    const Duration four = a.cost(uniform, 4);
    Duration sum{};
    for (int j = 0; j < 4; ++j) {
      const Duration one = b.cost(uniform);
      EXPECT_GE(one, nanoseconds(100));
      EXPECT_LE(one, nanoseconds(100'000));
      seen.insert(one.count());
      sum += one;
    }
    EXPECT_EQ(four, sum) << "batch " << i;
  }
  EXPECT_GT(seen.size(), 150U);
}

TEST(core, charges_no_idle_time_and_accounts_for_the_whole_run) {
  OneCore c;
  std::ostringstream out;
  TraceWriter trace(out);
  c.world.trace = &trace;
  Work thread({us(30)});
  const std::uint32_t t = c.core.add_thread(job_of(thread), false);
  c.run_to(at_us(10));
  c.core.wake(t);
  c.run_to(at_us(50));
  Work irq({us(5)}, ContextKind::hardirq);
  c.core.push(job_of(irq), Level::hardirq);
  c.run_to(at_us(100));
  c.core.finish();
  trace.close();
  EXPECT_EQ(c.world.report.cpu.busy(0), us(35));
  std::int64_t idle = 0;
  std::int64_t charged = 0;
  for (const Slice& s : cpu_slices(out.str()))
    (s.category == "idle" ? idle : charged) += s.length_ns;
  EXPECT_EQ(idle, us(65).count());  // 0-10, 40-50, 55-100
  EXPECT_EQ(charged, c.world.report.cpu.busy(0).count());
  EXPECT_EQ(idle + charged, us(100).count());
}

TEST(core, counts_apart_the_interrupts_that_run_with_no_thread_on_the_core) {
  // A hardirq and the softirq it raises on the idle core are the idle task's time (over_idle);
  // the same over a running thread are the thread's.
  OneCore c;
  Work softirq({us(2)}, ContextKind::softirq);
  c.core.set_softirq_job(job_of(softirq));
  Work idle_irq({us(3)}, ContextKind::hardirq);
  idle_irq.on_end = [](Core& core) { core.raise_softirq(); };
  c.core.push(job_of(idle_irq), Level::hardirq);
  c.run_to(at_us(10));
  EXPECT_EQ(c.world.report.cpu.over_idle(0), us(5));
  Work thread({us(20)});
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(15));
  Work busy_irq({us(4)}, ContextKind::hardirq);
  c.core.push(job_of(busy_irq), Level::hardirq);
  c.run_to(at_us(100));
  EXPECT_EQ(c.world.report.cpu.busy(0, ContextKind::hardirq), us(7));
  EXPECT_EQ(c.world.report.cpu.over_idle(0), us(5));
}

// The host's noise (NoiseSource): every 100 us it takes the core for 7 us when something runs
// there: the running job and everything under it wait, the time charged as what was interrupted.
std::array<NoiseSource, 2> every_100us_for_7us() {
  return {NoiseSource{Distribution::constant_ns(100'000), Distribution::constant_ns(7'000)},
          NoiseSource{}};
}

TEST(core_noise, stops_a_running_thread_and_the_hardirq_over_it_and_is_charged_as_them) {
  OneCore c;
  c.core.set_noise(every_100us_for_7us(), Rng(1, 2));
  Work thread({us(150)});
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(195));
  Work irq({us(10)}, ContextKind::hardirq);
  c.core.push(job_of(irq), Level::hardirq);  // at 195: the noise at 200 stops it too
  c.run_to(at_us(1000));
  // The thread: 150 us of work, the noise at 100 inside it: ends at 157.
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(157)});
  // The hardirq from 195: 5 us, the noise 200-207, 5 us more.
  EXPECT_EQ(irq.ends, std::vector<Instant>{at_us(212)});
  EXPECT_EQ(c.busy(ContextKind::thread), us(157));
  EXPECT_EQ(c.busy(ContextKind::hardirq), us(17));
}

TEST(core_noise, charges_an_idle_core_nothing_but_holds_what_comes_meanwhile) {
  OneCore idle;
  idle.core.set_noise(every_100us_for_7us(), Rng(1, 2));
  idle.run_to(at_us(1000));
  EXPECT_EQ(idle.world.report.cpu.busy(0), Duration::zero());
  EXPECT_EQ(idle.world.report.cpu.over_idle(0), Duration::zero());
  // An interrupt at 1003, inside the noise of 1000-1007, runs at its end; a thread woken at
  // 1104, inside the next one, too.
  Work irq({us(2)}, ContextKind::hardirq);
  idle.run_to(at_us(1003));
  idle.core.push(job_of(irq), Level::hardirq);
  idle.run_to(at_us(1104));
  Work thread({us(5)});
  idle.core.wake(idle.core.add_thread(job_of(thread), false));
  idle.run_to(at_us(2000));
  EXPECT_EQ(irq.starts, std::vector<Instant>{at_us(1007)});
  EXPECT_EQ(thread.starts, std::vector<Instant>{at_us(1107)});
  EXPECT_EQ(idle.world.report.cpu.busy(0), us(7));
}

TEST(core_noise, no_source_is_no_noise) {
  OneCore quiet;
  quiet.core.set_noise({NoiseSource{}, NoiseSource{}}, Rng(1, 2));
  Work thread({us(150)});
  quiet.core.wake(quiet.core.add_thread(job_of(thread), false));
  quiet.run_to(at_us(1000));
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(150)});
}

TEST(core_noise, a_second_source_adds_its_events_and_overlapping_events_add_up) {
  OneCore c;
  // Both sources at 100 us: the two events come together and stop the thread 7 + 3 us.
  c.core.set_noise(
      {NoiseSource{Distribution::constant_ns(100'000), Distribution::constant_ns(7'000)},
       NoiseSource{Distribution::constant_ns(100'000), Distribution::constant_ns(3'000)}},
      Rng(1, 2));
  Work thread({us(150)});
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(1000));
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(160)});
}

TEST(core_noise, random_events_come_at_the_intervals_mean_rate) {
  OneCore c;
  c.core.set_noise({NoiseSource{Distribution{DistributionKind::exponential, 0, 100'000, 0},
                                Distribution::constant_ns(1'000)},
                    NoiseSource{}},
                   Rng(1, 2));
  Work thread({us(1'000'000)});
  c.core.wake(c.core.add_thread(job_of(thread), false));
  c.run_to(at_us(2'000'000));
  // 1 s of work with ~1% noise (1 us every 100 us): the thread ends ~10 ms late.
  ASSERT_EQ(thread.ends.size(), 1U);
  const double late_us = static_cast<double>((thread.ends[0] - at_us(1'000'000)).count()) / 1e3;
  EXPECT_GT(late_us, 9'000.0);
  EXPECT_LT(late_us, 11'200.0);
}

TEST(core, finish_charges_a_segment_still_running_up_to_the_end_of_the_run) {
  OneCore c;
  std::ostringstream out;
  TraceWriter trace(out);
  c.world.trace = &trace;
  Work first({us(30)});
  Work second({us(200)});
  const std::uint32_t t1 = c.core.add_thread(job_of(first), false);
  const std::uint32_t t2 = c.core.add_thread(job_of(second), false);
  c.run_to(at_us(10));
  c.core.wake(t1);
  c.run_to(at_us(60));
  c.core.wake(t2);
  c.run_to(at_us(100));
  c.core.finish();
  trace.close();
  EXPECT_EQ(c.busy(ContextKind::thread), us(70));
  std::int64_t idle = 0;
  for (const Slice& s : cpu_slices(out.str()))
    if (s.category == "idle") idle += s.length_ns;
  EXPECT_EQ(idle, us(30).count());  // 0-10, 40-60
  EXPECT_EQ(idle + c.world.report.cpu.busy(0).count(), us(100).count());
}

// ---- the waker's IPI (cpu.wakeup-ipi)
// ------------------------------------------------------------

struct TwoCores {
  TwoCores() : a(world, 0, Rng(1), milliseconds(1)), b(world, 1, Rng(2), milliseconds(1)) {
    world.report.cpu = CpuTime(2);
    world.report.cores.resize(2);
    a.set_wakeup_ipi(Distribution::constant_ns(8000));
    b.set_wakeup_ipi(Distribution::constant_ns(8000));
  }
  void run_to(Instant t) { world.engine.run_until(t); }
  Duration busy(std::uint32_t core) const { return world.report.cpu.busy(core); }

  World world;
  Core a;
  Core b;
};

// A softirq on core a, 2 us then 3 us, whose first segment's end wakes a 5 us thread of core b
// (it delivers to b's socket); pushed when made.
struct SoftirqWakesB {
  explicit SoftirqWakesB(TwoCores& c) {
    const std::uint32_t t = c.b.add_thread(job_of(sleeper), false);
    softirq.on_end = [this, &c, t](Core&) {
      if (softirq.done == 1) c.b.wake(t);
    };
    c.a.push(job_of(softirq), Level::softirq);
  }
  Work sleeper{{us(5)}};
  Work softirq{{us(2), us(3)}, ContextKind::softirq};
};

TEST(core_ipi, a_softirq_waking_a_thread_on_an_idle_core_pays_the_ipi_before_it_goes_on) {
  TwoCores c;
  SoftirqWakesB w(c);
  c.run_to(at_us(100));
  // a: 2 us, the wake-up and its 8 us IPI, then the second 3 us segment.
  EXPECT_EQ(w.softirq.ends, (std::vector<Instant>{at_us(2), at_us(13)}));
  EXPECT_EQ(c.world.report.cpu.busy(0, ContextKind::softirq), us(13));
  // b's thread runs at once (no idle exit set), and b pays nothing.
  EXPECT_EQ(w.sleeper.starts, std::vector<Instant>{at_us(2)});
  EXPECT_EQ(c.busy(1), us(5));
}

TEST(core_ipi, a_core_running_interrupt_work_over_its_idle_task_is_sent_the_ipi_too) {
  TwoCores c;
  // b runs a softirq with no thread on it (a NAPI timer's poll over its idle task): nr_running 0.
  Work b_softirq({us(20)}, ContextKind::softirq);
  c.b.push(job_of(b_softirq), Level::softirq);
  SoftirqWakesB w(c);
  c.run_to(at_us(100));
  // a pays the 8 us IPI as for a halted b; b's thread runs when its softirq is done.
  EXPECT_EQ(w.softirq.ends, (std::vector<Instant>{at_us(2), at_us(13)}));
  EXPECT_EQ(w.sleeper.starts, std::vector<Instant>{at_us(20)});
  EXPECT_EQ(c.busy(1), us(25));
}

TEST(core_ipi, a_job_that_ends_with_the_wake_up_still_pays_the_ipi_as_its_own_segment) {
  TwoCores c;
  Work sleeper({us(5)});
  const std::uint32_t t = c.b.add_thread(job_of(sleeper), false);
  Work softirq({us(2)}, ContextKind::softirq);
  softirq.on_end = [&](Core&) { c.b.wake(t); };
  Work thread({us(4)});
  c.a.wake(c.a.add_thread(job_of(thread), false));
  c.a.push(job_of(softirq), Level::softirq);
  c.run_to(at_us(100));
  // The softirq ran on top of the thread: 2 us, then the IPI's 8 us at softirq level, then the
  // thread's 4 us.
  EXPECT_EQ(c.world.report.cpu.busy(0, ContextKind::softirq), us(10));
  EXPECT_EQ(thread.ends, std::vector<Instant>{at_us(14)});
}

TEST(core_ipi, waking_a_busy_core_without_preempting_it_sends_no_ipi) {
  TwoCores c;
  Work running({us(50)});
  c.b.wake(c.b.add_thread(job_of(running), false));
  c.run_to(at_us(1));
  SoftirqWakesB w(c);
  c.run_to(at_us(40));
  EXPECT_EQ(w.softirq.ends, (std::vector<Instant>{at_us(3), at_us(6)}));
}

TEST(core_ipi, a_wake_up_from_no_core_and_a_cores_own_wake_up_send_none) {
  TwoCores c;
  Work sleeper({us(5)});
  const std::uint32_t t = c.a.add_thread(job_of(sleeper), false);
  c.a.wake(t);  // a device's or a timer's event: no core is acting
  c.run_to(at_us(100));
  EXPECT_EQ(c.busy(0), us(5));
  EXPECT_EQ(c.busy(1), Duration::zero());
  Work other({us(5)});
  const std::uint32_t u = c.a.add_thread(job_of(other), false);
  Work softirq({us(2), us(3)}, ContextKind::softirq);
  softirq.on_end = [&](Core&) {
    if (softirq.done == 1) c.a.wake(u);  // its own core's thread
  };
  c.a.push(job_of(softirq), Level::softirq);
  c.run_to(at_us(200));
  EXPECT_EQ(softirq.ends, (std::vector<Instant>{at_us(102), at_us(105)}));
}

// ---- the waker's try_to_wake_up (cpu.wakeup, Core::set_waker_wakeup)
// ------------------------------------------------------------

TEST(core_waker, waking_a_thread_of_an_idle_core_costs_the_waker_try_to_wake_up_and_the_ipi) {
  TwoCores c;
  c.a.set_waker_wakeup(Distribution::constant_ns(1000));
  c.b.set_waker_wakeup(Distribution::constant_ns(1000));
  SoftirqWakesB w(c);
  c.run_to(at_us(100));
  // a: 2 us, the wake-up's 1 us try_to_wake_up and 8 us IPI, then 3 us; b pays nothing more.
  EXPECT_EQ(w.softirq.ends, (std::vector<Instant>{at_us(2), at_us(14)}));
  EXPECT_EQ(c.busy(1), us(5));
}

TEST(core_waker, a_thread_already_runnable_costs_its_waker_nothing) {
  TwoCores c;
  c.b.set_waker_wakeup(Distribution::constant_ns(1000));
  Work running({us(50)});
  c.b.wake(c.b.add_thread(job_of(running), false));
  c.run_to(at_us(1));
  Work sleeper({us(5)});
  const std::uint32_t t = c.b.add_thread(job_of(sleeper), false);
  Work softirq({us(2), us(3), us(1)}, ContextKind::softirq);
  softirq.on_end = [&](Core&) {
    if (softirq.done <= 2) c.b.wake(t);  // asleep the first time, waiting to run the second
  };
  c.a.push(job_of(softirq), Level::softirq);
  c.run_to(at_us(40));
  // b is busy: no IPI. The first wake-up costs a 1 us, the second finds it runnable.
  EXPECT_EQ(softirq.ends, (std::vector<Instant>{at_us(3), at_us(7), at_us(8)}));
}

TEST(core_waker, a_thread_woken_on_its_way_to_sleep_costs_its_waker_once) {
  TwoCores c;
  c.b.set_waker_wakeup(Distribution::constant_ns(1000));
  Work sleeper({us(4)});
  sleeper.on_end = [&](Core&) { c.b.stall(us(5)); };  // its system call's tail: 4-9 us
  const std::uint32_t t = c.b.add_thread(job_of(sleeper), false);
  c.b.wake(t);
  Work softirq({us(6), us(1), us(3)}, ContextKind::softirq);
  softirq.on_end = [&](Core&) {
    if (softirq.done <= 2) c.b.wake(t);  // at 6 and at 8, inside the tail
  };
  c.a.push(job_of(softirq), Level::softirq);
  c.run_to(at_us(100));
  // ttwu_runnable at 6 costs a 1 us; at 8 the thread is already set running: nothing.
  EXPECT_EQ(softirq.ends, (std::vector<Instant>{at_us(6), at_us(8), at_us(11)}));
}

TEST(core_waker, a_cores_own_wake_up_costs_no_waker_share) {
  TwoCores c;
  c.a.set_waker_wakeup(Distribution::constant_ns(1000));
  Work sleeper({us(5)});
  const std::uint32_t t = c.a.add_thread(job_of(sleeper), false);
  Work softirq({us(2), us(3)}, ContextKind::softirq);
  softirq.on_end = [&](Core&) {
    if (softirq.done == 1) c.a.wake(t);
  };
  c.a.push(job_of(softirq), Level::softirq);
  c.run_to(at_us(100));
  EXPECT_EQ(softirq.ends, (std::vector<Instant>{at_us(2), at_us(5)}));
}

}  // namespace
}  // namespace irqmod::sim
