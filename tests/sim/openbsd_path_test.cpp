// OpenBSD's receive path (seed 004): MCLGETI's watermark and its livelock check against the
// softclock (nic.refill = "mclgeti", nic.mclgeti-lwm, nic.mclgeti-hwm, cpu.hz), softnet without
// ksoftirqd (napi.ksoftirqd), the per-core receive backlog (napi.rx-backlog,
// napi.netdev_max_backlog), the poll in the interrupt handler (napi.poll-in-irq), held LLI causes
// (nic.lli-hold), ksoftirqd keeping bottom halves off during its pass, and the checks that refuse
// the keys where they would do nothing. Costs are round numbers written here, so that the tests
// do not depend on a platform preset (one test only loads xeon-e5504-openbsd).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/sim/random.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/scheduler.hpp"
#include "sim/load_helpers.hpp"
#include "sim/nic/mclgeti.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

Instant at_us(std::int64_t n) {
  return Instant{microseconds(n)};
}

Scenario load(const std::string& text, std::vector<std::string> sets = {}) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

std::string load_error(const std::string& text, const std::vector<std::string>& sets = {}) {
  LoadResult r = load_scenario_text(text, "test.toml", test::costs_only(text, sets));
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().what();
}

RunReport run(const Scenario& s) {
  auto r = simulate(s, RunOptions{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

double ns(Duration d) {
  return static_cast<double>(d.count());
}

// A cost model of round numbers (ns), only for these tests: the lines of a [cpu] table.
constexpr const char* kCosts = R"(
irq-entry = 1000
irq-handler = 300
napi-poll = 500
rx-packet = 700
rx-refill = 100
tx-clean = 100
forward = 800
app-message = 200
syscall = 150
wakeup = 2000
context-switch = 1500
)";

// ---- MCLGETI on its own: a clock core and the calls rxeof / rxfill make ----------------------

// A hardirq that keeps the core for `length` (a storm, as far as the softclock can tell).
struct Busy {
  Duration length;
  std::optional<Segment> start(Core&) { return Segment{length, ContextKind::hardirq, "busy"}; }
  std::optional<Segment> next(Core&) { return std::nullopt; }
};

struct ClockCore {
  explicit ClockCore(Mclgeti::Settings settings) : core(world, 0, Rng(1), kernel_slice(1)) {
    world.report.cpu = CpuTime(1);
    world.report.cores.resize(1);
    mclgeti.emplace(world, core, settings);
  }
  void run_to(Instant t) { world.engine.run_until(t); }
  // rxfill on a ring that gave all its clusters back (rxeof took every frame): clusters given.
  std::uint32_t refill_dry_ring() {
    mclgeti->release(mclgeti->alive());
    return fill();
  }
  // rxfill: clusters until MCLGETI refuses one.
  std::uint32_t fill() {
    std::uint32_t given = 0;
    while (given < 1000 && mclgeti->allocate())
      ++given;
    return given;
  }

  World world;
  Core core;
  std::optional<Mclgeti> mclgeti;
  Busy busy{};
};

TEST(mclgeti, the_watermark_starts_at_four_or_the_low_water_mark_and_no_cluster_goes_beyond_it) {
  ClockCore low(Mclgeti::Settings{1, 64, 1000});
  EXPECT_EQ(low.mclgeti->cwm(), 4u);  // MAX(4, mcl_lwm)
  EXPECT_EQ(low.fill(), 4u);          // tick 0: no growth yet
  EXPECT_EQ(low.mclgeti->alive(), 4u);
  EXPECT_FALSE(low.mclgeti->allocate());
  low.mclgeti->release(1);
  EXPECT_TRUE(low.mclgeti->allocate());  // one back, one more
  EXPECT_FALSE(low.mclgeti->allocate());

  ClockCore high(Mclgeti::Settings{10, 64, 1000});
  EXPECT_EQ(high.mclgeti->cwm(), 10u);
  EXPECT_EQ(high.fill(), 10u);
  const MclgetiCounters c = high.mclgeti->counters();
  EXPECT_EQ(c.cwm_min, 10u);
  EXPECT_EQ(c.cwm_max, 10u);
  EXPECT_EQ(c.livelocks, 0u);
}

TEST(mclgeti, a_dry_ring_grows_the_watermark_once_a_tick_up_to_the_high_water_mark) {
  ClockCore c(Mclgeti::Settings{4, 7, 1000});
  EXPECT_EQ(c.fill(), 4u);
  c.run_to(at_us(1'500));  // tick 1
  EXPECT_EQ(c.refill_dry_ring(), 5u);
  EXPECT_EQ(c.refill_dry_ring(), 5u);  // the same tick: no second growth
  c.run_to(at_us(2'500));
  EXPECT_EQ(c.refill_dry_ring(), 6u);
  // A ring that still holds more than 4 clusters is not running dry: no growth.
  c.run_to(at_us(3'500));
  c.mclgeti->release(1);
  EXPECT_EQ(c.fill(), 1u);
  EXPECT_EQ(c.mclgeti->cwm(), 6u);
  c.run_to(at_us(4'500));
  EXPECT_EQ(c.refill_dry_ring(), 7u);
  c.run_to(at_us(5'500));
  EXPECT_EQ(c.refill_dry_ring(), 7u);  // hwm
  const MclgetiCounters counters = c.mclgeti->counters();
  EXPECT_EQ(counters.cwm_min, 4u);
  EXPECT_EQ(counters.cwm_max, 7u);
  EXPECT_EQ(counters.cwm_end, 7u);
  EXPECT_EQ(counters.livelocks, 0u);  // the idle core ran the softclock every tick
}

TEST(mclgeti, the_tick_is_one_over_cpu_hz) {
  ClockCore slow(Mclgeti::Settings{4, 64, 100});
  slow.fill();
  slow.run_to(at_us(9'500));  // still tick 0 at HZ = 100
  EXPECT_EQ(slow.refill_dry_ring(), 4u);
  slow.run_to(at_us(10'500));
  EXPECT_EQ(slow.refill_dry_ring(), 5u);

  ClockCore fast(Mclgeti::Settings{4, 64, 1000});
  fast.fill();
  for (std::int64_t tick = 1; tick <= 9; ++tick) {
    fast.run_to(at_us(tick * 1'000 + 500));
    fast.refill_dry_ring();
  }
  EXPECT_EQ(fast.mclgeti->cwm(), 13u);  // nine ticks in the same 9.5 ms
}

// The softclock runs at each tick while the core is idle; a 10 ms hardirq starves it. Every
// second tick without it is a livelock: the watermark drops by max(cwm / 8, 2), not below lwm,
// and may grow again only 4 ticks after the last one.
TEST(mclgeti, a_starved_softclock_is_a_livelock_that_cuts_the_watermark_down_to_lwm) {
  ClockCore c(Mclgeti::Settings{4, 64, 1000});
  c.fill();
  for (std::int64_t tick = 1; tick <= 16; ++tick) {
    c.run_to(at_us(tick * 1'000 + 500));
    c.refill_dry_ring();
  }
  ASSERT_EQ(c.mclgeti->cwm(), 20u);
  c.busy.length = milliseconds(10);  // 16.5 ms to 26.5 ms
  c.core.push(job_of(c.busy), Level::hardirq);
  // Tick 17 is one after the softclock's last run: not yet a livelock, and the ring is dry.
  const std::vector<std::uint32_t> expected = {21, 19, 19, 17, 17, 15, 15, 13};  // ticks 17..24
  for (std::int64_t tick = 17; tick <= 24; ++tick) {
    c.run_to(at_us(tick * 1'000 + 500));
    c.refill_dry_ring();
    EXPECT_EQ(c.mclgeti->cwm(), expected[static_cast<std::size_t>(tick - 17)]) << "tick " << tick;
  }
  EXPECT_EQ(c.mclgeti->livelocks(), 4u);  // ticks 18, 20, 22, 24
  // The storm is over at 26.5 ms and the softclock runs again: growth waits until tick 29.
  for (std::int64_t tick = 25; tick <= 28; ++tick) {
    c.run_to(at_us(tick * 1'000 + 500));
    c.refill_dry_ring();
  }
  EXPECT_EQ(c.mclgeti->cwm(), 13u);
  EXPECT_EQ(c.mclgeti->livelocks(), 4u);
  c.run_to(at_us(29'500));
  c.refill_dry_ring();
  EXPECT_EQ(c.mclgeti->cwm(), 14u);
  const MclgetiCounters counters = c.mclgeti->counters();
  EXPECT_EQ(counters.cwm_min, 4u);
  EXPECT_EQ(counters.cwm_max, 21u);
  EXPECT_EQ(counters.cwm_end, 14u);

  // The same storm with lwm = 15: the watermark stops there.
  ClockCore floor(Mclgeti::Settings{15, 64, 1000});
  floor.fill();
  for (std::int64_t tick = 1; tick <= 5; ++tick) {
    floor.run_to(at_us(tick * 1'000 + 500));
    floor.refill_dry_ring();
  }
  ASSERT_EQ(floor.mclgeti->cwm(), 20u);
  floor.busy.length = milliseconds(10);
  floor.core.push(job_of(floor.busy), Level::hardirq);
  for (std::int64_t tick = 6; tick <= 14; ++tick) {  // 21 at tick 6, livelocks at 7, 9, 11, 13
    floor.run_to(at_us(tick * 1'000 + 500));
    floor.refill_dry_ring();
  }
  EXPECT_EQ(floor.mclgeti->livelocks(), 4u);
  EXPECT_EQ(floor.mclgeti->cwm(), 15u);
  EXPECT_EQ(floor.mclgeti->counters().cwm_min, 15u);
}

// ---- MCLGETI in whole runs -------------------------------------------------------------------

// 200 kpps into a 64-descriptor ring polled every 100 us (about 20 frames a poll): with a
// watermark of 4 the ring runs dry at every poll.
std::string mclgeti_rx(const std::string& nic = "refill = \"mclgeti\"\n") {
  return std::string(R"(
[scenario]
duration = "20ms"
[traffic]
kind = "constant"
rate = 200000
size = 64
[nic]
rx-ring = 64
moderation = "coalesce"
rx-usecs = 100
)") + nic +
         "[cpu]\ncores = 2\napp-core = 1\n" + kCosts;
}

TEST(mclgeti, a_dry_ring_drops_for_want_of_clusters_while_its_watermark_grows_once_a_tick) {
  const RunReport r = run(load(mclgeti_rx(), {"cpu.hz=1000"}));
  ASSERT_TRUE(r.mclgeti.has_value());
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_EQ(r.mclgeti->livelocks, 0u);
  EXPECT_EQ(r.mclgeti->cwm_min, 4u);
  EXPECT_GT(r.mclgeti->cwm_max, 10u);
  EXPECT_LE(r.mclgeti->cwm_max, 4u + 20u);  // at most one a tick: 20 ticks of 1 ms
  EXPECT_EQ(r.mclgeti->cwm_end, r.mclgeti->cwm_max);
  EXPECT_GT(r.mclgeti->cwm_mean(r.sim_time), static_cast<double>(r.mclgeti->cwm_min));
  EXPECT_LT(r.mclgeti->cwm_mean(r.sim_time), static_cast<double>(r.mclgeti->cwm_max));
  EXPECT_GT(r.drops.count(DropReason::rx_no_buffer), 0u);
  EXPECT_EQ(r.drops.count(DropReason::rx_no_buffer), r.drops.total());
  // The same ring refilled by the CPU without a watermark keeps every frame.
  const RunReport cpu = run(load(mclgeti_rx("refill = \"cpu\"\n")));
  EXPECT_FALSE(cpu.mclgeti.has_value());
  EXPECT_EQ(cpu.drops.total(), 0u);
  EXPECT_EQ(cpu.conservation.entered, r.conservation.entered);
}

TEST(mclgeti, a_higher_hz_grows_the_watermark_faster_and_drops_less) {
  const RunReport hz100 = run(load(mclgeti_rx(), {"cpu.hz=100"}));
  const RunReport hz1000 = run(load(mclgeti_rx(), {"cpu.hz=1000"}));
  const RunReport hz10000 = run(load(mclgeti_rx(), {"cpu.hz=10000"}));
  EXPECT_LE(hz100.mclgeti->cwm_max, 4u + 2u);  // ticks at 10 and 20 ms
  EXPECT_GT(hz1000.mclgeti->cwm_max, hz100.mclgeti->cwm_max);
  EXPECT_GT(hz10000.mclgeti->cwm_mean(hz10000.sim_time), hz1000.mclgeti->cwm_mean(hz1000.sim_time));
  EXPECT_GT(hz1000.mclgeti->cwm_mean(hz1000.sim_time), hz100.mclgeti->cwm_mean(hz100.sim_time));
  EXPECT_LT(hz10000.drops.total(), hz1000.drops.total());
  EXPECT_LT(hz1000.drops.total(), hz100.drops.total());
  for (const RunReport* r : {&hz100, &hz1000, &hz10000})
    EXPECT_TRUE(r->conservation.ok());
}

TEST(mclgeti, the_high_water_mark_caps_the_watermark) {
  const RunReport capped = run(load(mclgeti_rx(), {"cpu.hz=1000", "nic.mclgeti-hwm=10"}));
  const RunReport ring = run(load(mclgeti_rx(), {"cpu.hz=1000"}));
  EXPECT_EQ(capped.mclgeti->cwm_max, 10u);
  EXPECT_EQ(capped.mclgeti->cwm_end, 10u);
  EXPECT_GT(ring.mclgeti->cwm_max, 10u);
  EXPECT_GT(capped.drops.count(DropReason::rx_no_buffer),
            ring.drops.count(DropReason::rx_no_buffer));
  EXPECT_TRUE(capped.conservation.ok());
}

TEST(mclgeti, a_fixed_watermark_bounds_what_every_poll_finds_on_the_ring) {
  // lwm = hwm = 8: the watermark starts at 8 and stays there.
  const RunReport r =
      run(load(mclgeti_rx(), {"nic.mclgeti-lwm=8", "nic.mclgeti-hwm=8", "cpu.hz=1000"}));
  EXPECT_EQ(r.mclgeti->cwm_min, 8u);
  EXPECT_EQ(r.mclgeti->cwm_max, 8u);
  EXPECT_EQ(r.mclgeti->cwm_end, 8u);
  EXPECT_NEAR(r.mclgeti->cwm_mean(r.sim_time), 8.0, 1e-9);
  ASSERT_EQ(r.queues.size(), 1u);
  // The ring never holds more frames than the watermark: no poll cleans more than 8.
  EXPECT_GT(r.cores[0].polls, 0u);
  EXPECT_LE(r.queues[0].rx_cleaned, 8u * r.cores[0].polls);
  EXPECT_GT(r.queues[0].rx_cleaned, 6u * r.cores[0].polls);  // and most find it full
  EXPECT_GT(r.drops.count(DropReason::rx_no_buffer), r.conservation.entered / 3);
  // A watermark twice as high drops fewer.
  const RunReport wider =
      run(load(mclgeti_rx(), {"nic.mclgeti-lwm=16", "nic.mclgeti-hwm=16", "cpu.hz=1000"}));
  EXPECT_EQ(wider.mclgeti->cwm_max, 16u);
  EXPECT_LT(wider.drops.total(), r.drops.total());
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_TRUE(wider.conservation.ok());
}

// One watermark per interface, and OpenBSD 5.x's ix had one queue: several rings under MCLGETI
// are refused (a second ring used to get no cluster from the initial fill and drop everything).
TEST(mclgeti, several_rx_queues_are_refused) {
  EXPECT_EQ(load_error(mclgeti_rx(), {"nic.queues=2"}),
            "test.toml: nic.queues: MCLGETI's watermark belongs to the interface, and how several "
            "rings would share it is not modelled (OpenBSD 5.x's ix used one queue); allowed: 1 "
            "with nic.refill = \"mclgeti\"");
}

// A failed allocation that leaves the ring without any buffer: no frame lands, no interrupt
// comes, so the driver's refill timeout tries again at the next tick (ixgbe_rxrefill). Without it
// the queue was dead for the rest of the run (4 frames of 4 000 delivered with 30 % failures).
TEST(mclgeti, a_failed_allocation_on_an_empty_ring_is_tried_again_at_the_next_tick) {
  // Measured over the last 10 ms: the queue still works long after its first failures.
  const std::vector<std::string> later{"cpu.hz=1000", "scenario.warmup=10ms"};
  const RunReport ok = run(load(mclgeti_rx(), later));
  std::vector<std::string> failing_sets = later;
  failing_sets.push_back("nic.alloc-fail-ppm=300000");
  const RunReport failing = run(load(mclgeti_rx(), failing_sets));
  EXPECT_TRUE(failing.conservation.ok());
  EXPECT_GE(failing.delivered_packets, 10u);  // a frame a tick at least: the ring is not dead
  EXPECT_LT(failing.delivered_packets, ok.delivered_packets);
}

// 1 Mpps at a poll weight of one frame: every poll uses its weight and NET_RX never ends. Without
// ksoftirqd it keeps the core at softirq level and the softclock (a thread) never runs.
std::string softnet_storm() {
  return std::string(R"(
[scenario]
duration = "20ms"
[traffic]
kind = "constant"
rate = 1000000
size = 64
[nic]
rx-ring = 64
refill = "mclgeti"
moderation = "none"
rx-usecs = 0
rx-frames = 1
[napi]
weight = 1
ksoftirqd = false
[cpu]
cores = 2
app-core = 1
hz = 1000
)") + kCosts;
}

TEST(mclgeti, a_softirq_that_starves_the_softclock_livelocks_and_the_watermark_falls_to_lwm) {
  const RunReport storm = run(load(softnet_storm()));
  ASSERT_TRUE(storm.mclgeti.has_value());
  EXPECT_GT(storm.cpu.busy(0, ContextKind::softirq), milliseconds(19));
  // A livelock every second tick once the softclock stopped: ticks 2, 4, ... of 20.
  EXPECT_GE(storm.mclgeti->livelocks, 8u);
  EXPECT_LE(storm.mclgeti->livelocks, 10u);
  EXPECT_GT(storm.mclgeti->cwm_max, storm.mclgeti->cwm_end);  // it grew, then fell
  EXPECT_EQ(storm.mclgeti->cwm_end, 4u);
  EXPECT_TRUE(storm.conservation.ok());
  // lwm floors it.
  const RunReport floored = run(load(softnet_storm(), {"nic.mclgeti-lwm=6"}));
  EXPECT_GT(floored.mclgeti->livelocks, 0u);
  EXPECT_EQ(floored.mclgeti->cwm_min, 6u);
  EXPECT_EQ(floored.mclgeti->cwm_end, 6u);
  // The same storm with HZ = 100: a tick is 10 ms, at most one livelock in 20 ms.
  const RunReport slow = run(load(softnet_storm(), {"cpu.hz=100"}));
  EXPECT_LE(slow.mclgeti->livelocks, 1u);
  // With ksoftirqd the scheduler lets the softclock run between passes: no livelock.
  const RunReport threaded = run(load(softnet_storm(), {"napi.ksoftirqd=true"}));
  EXPECT_EQ(threaded.mclgeti->livelocks, 0u);
  EXPECT_GT(threaded.mclgeti->cwm_end, 4u);
  // A light load leaves the core idle between polls: no livelock either.
  const RunReport light = run(load(softnet_storm(), {"traffic.rate=100000"}));
  EXPECT_EQ(light.mclgeti->livelocks, 0u);
  EXPECT_EQ(light.drops.total(), 0u);
}

// ---- softnet without ksoftirqd (napi.ksoftirqd) ----------------------------------------------

// 1 Mpps at 1.5 us a frame, the application on the interrupted core: an overload.
std::string overload(const std::string& napi) {
  return std::string(R"(
[scenario]
duration = "10ms"
[traffic]
kind = "constant"
rate = 1000000
size = 64
[nic]
moderation = "coalesce"
rx-usecs = 20
[napi]
)") + napi +
         "\n[cpu]\n" + kCosts;
}

TEST(softnet, without_ksoftirqd_an_overloaded_core_stays_in_softirq_and_its_thread_starves) {
  const RunReport linux_like = run(load(overload("ksoftirqd = true"), {"cpu.rx-packet=1500"}));
  const RunReport bsd = run(load(overload("ksoftirqd = false"), {"cpu.rx-packet=1500"}));
  // Linux hands NET_RX to ksoftirqd, which shares the core with the application.
  EXPECT_GT(linux_like.cpu.busy(0, ContextKind::ksoftirqd), milliseconds(3));
  EXPECT_GT(linux_like.cpu.busy(0, ContextKind::thread), milliseconds(1));
  EXPECT_GT(linux_like.delivered_packets, 1000u);
  // Softnet runs until its work is done: no ksoftirqd time, nothing left for the thread.
  EXPECT_EQ(bsd.cpu.busy(0, ContextKind::ksoftirqd), Duration::zero());
  EXPECT_GT(bsd.cpu.busy(0, ContextKind::softirq), milliseconds(9));
  EXPECT_LT(bsd.cpu.busy(0, ContextKind::thread), microseconds(100));
  EXPECT_LT(bsd.delivered_packets, linux_like.delivered_packets / 10);
  EXPECT_TRUE(linux_like.conservation.ok());
  EXPECT_TRUE(bsd.conservation.ok());
}

TEST(softnet, below_overload_the_choice_of_ksoftirqd_changes_nothing) {
  const RunReport on =
      run(load(overload("ksoftirqd = true"), {"cpu.rx-packet=1500", "traffic.rate=200000"}));
  const RunReport off =
      run(load(overload("ksoftirqd = false"), {"cpu.rx-packet=1500", "traffic.rate=200000"}));
  EXPECT_EQ(on.cpu.busy(0, ContextKind::ksoftirqd), Duration::zero());
  EXPECT_EQ(on.cpu.busy(0), off.cpu.busy(0));
  EXPECT_EQ(on.delivered_packets, off.delivered_packets);
}

// Two vectors on one core, a weight of 4 frames and an overload: ksoftirqd runs passes while
// the other vector interrupts. The interrupt leaves NET_RX pending for ksoftirqd's loop instead
// of starting it on top of the pass (which crashed in NetRx::after_poll before the fix).
TEST(softnet, ksoftirqd_keeps_bottom_halves_off_while_another_vector_interrupts_its_pass) {
  const RunReport r = run(load(std::string(R"(
[scenario]
duration = "10ms"
[traffic]
kind = "constant"
rate = 1000000
size = 64
flows = 8
[nic]
queues = 2
moderation = "coalesce"
rx-usecs = 20
[napi]
weight = 4
[cpu]
cores = 2
irq-cores = "0"
app-core = 1
)") + kCosts,
                               {"cpu.rx-packet=1500"}));
  EXPECT_TRUE(r.conservation.ok());
  // RSS puts 6 of the 8 flows on queue 1: its context stays in ksoftirqd (one interrupt) while
  // queue 0's vector interrupts the passes.
  EXPECT_GT(r.cpu.busy(0, ContextKind::ksoftirqd), milliseconds(9));
  EXPECT_LT(r.cpu.busy(0, ContextKind::softirq), milliseconds(1));
  ASSERT_EQ(r.interrupts.vectors(), 2u);
  EXPECT_GT(r.interrupts.count_of(0), 100u);
  EXPECT_GT(r.queues[0].rx_cleaned, 0u);
  EXPECT_GT(r.queues[1].rx_cleaned, 0u);
}

// ---- the receive backlog (napi.rx-backlog, napi.netdev_max_backlog) --------------------------

// 200 kpps for the host's own socket, read on core 1; the interrupt on core 0.
std::string local(const std::string& napi) {
  return std::string(R"(
[scenario]
duration = "10ms"
[traffic]
kind = "constant"
rate = 200000
size = 64
[nic]
moderation = "coalesce"
rx-usecs = 50
[napi]
)") + napi +
         "\n[cpu]\ncores = 2\napp-core = 1\n" + kCosts;
}

// The same load routed out of port 1 (seed 004's router).
std::string routed(const std::string& napi) {
  return std::string(R"(
[scenario]
duration = "10ms"
[traffic]
kind = "constant"
rate = 200000
size = 64
forward = true
[nic]
ports = 2
tx-interrupts = true
moderation = "coalesce"
rx-usecs = 50
[napi]
)") + napi +
         "\n[cpu]\n" + kCosts;
}

TEST(rx_backlog, frames_reach_the_socket_through_the_backlog_whose_polls_the_core_counts) {
  const RunReport direct = run(load(local("rx-backlog = false")));
  const RunReport queued = run(load(local("rx-backlog = true")));
  EXPECT_TRUE(queued.conservation.ok());
  EXPECT_EQ(queued.drops.total(), 0u);
  EXPECT_EQ(queued.conservation.entered, direct.conservation.entered);
  EXPECT_GT(queued.delivered_packets, queued.conservation.entered - 20);
  EXPECT_EQ(queued.interrupts.total(), direct.interrupts.total());
  // Every device poll with frames schedules one backlog poll (less than a weight each).
  EXPECT_EQ(queued.cores[0].polls, 2 * direct.cores[0].polls);
  // A local frame costs nothing more in the backlog: the same CPU time.
  EXPECT_EQ(queued.cpu.busy(0), direct.cpu.busy(0));
}

TEST(rx_backlog, a_full_backlog_drops_as_backlog_full_and_the_books_balance) {
  // About 10 frames a poll onto a backlog of 4.
  const RunReport tiny = run(load(local("rx-backlog = true\nnetdev_max_backlog = 4")));
  EXPECT_GT(tiny.drops.count(DropReason::backlog_full), tiny.conservation.entered / 4);
  EXPECT_EQ(tiny.drops.count(DropReason::backlog_full), tiny.drops.total());
  EXPECT_TRUE(tiny.conservation.ok());
  EXPECT_LT(tiny.delivered_packets, tiny.conservation.entered * 3 / 4);
  const RunReport roomy = run(load(local("rx-backlog = true\nnetdev_max_backlog = 64")));
  EXPECT_EQ(roomy.drops.total(), 0u);
  // Forwarded frames too.
  const RunReport router = run(load(routed("rx-backlog = true\nnetdev_max_backlog = 4")));
  EXPECT_GT(router.drops.count(DropReason::backlog_full), 0u);
  EXPECT_EQ(router.egress_queues[0].tx_frames, router.delivered_packets);
  EXPECT_TRUE(router.conservation.ok());
}

TEST(rx_backlog, frames_still_on_the_backlog_at_the_end_are_in_flight) {
  // A route lookup of 10 us: the stack forwards 100 kpps of the 200 kpps that arrive, and
  // ksoftirqd alternates the device's polls (64 frames onto the backlog) with the backlog's (64
  // off it). The run ends with frames on the ring and on the backlog.
  const RunReport r = run(load(routed("rx-backlog = true"), {"cpu.forward=10000"}));
  EXPECT_GT(r.cpu.busy(0, ContextKind::ksoftirqd), milliseconds(5));
  EXPECT_GT(r.conservation.in_flight, 100u);
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_EQ(r.conservation.entered,
            r.delivered_packets + r.drops.total() + r.conservation.in_flight);
}

TEST(rx_backlog, the_route_lookup_is_charged_once_per_forwarded_frame_in_the_backlog_poll) {
  const RunReport with = run(load(routed("rx-backlog = true")));
  const RunReport without = run(load(routed("rx-backlog = true"), {"cpu.forward=0"}));
  EXPECT_TRUE(with.conservation.ok());
  EXPECT_EQ(with.delivered_packets, without.delivered_packets);
  const double extra =
      ns(with.cpu.busy(0, ContextKind::softirq)) - ns(without.cpu.busy(0, ContextKind::softirq));
  const double expected = 800.0 * static_cast<double>(with.delivered_packets);
  EXPECT_GT(extra, 0.95 * expected);
  EXPECT_LT(extra, 1.05 * expected);  // not twice: the device poll does not charge it too
  // The backlog's own polls: one per device poll of port 0 that took frames.
  const RunReport direct = run(load(routed("rx-backlog = false")));
  EXPECT_GT(with.cores[0].polls, direct.cores[0].polls);
  EXPECT_EQ(with.cores[0].polls - direct.cores[0].polls, with.interrupts.count_of(0));
}

// ---- the poll in the interrupt handler (napi.poll-in-irq) ------------------------------------

TEST(poll_in_irq, the_device_poll_runs_at_hardirq_level_and_softirq_keeps_the_backlog) {
  const RunReport napi = run(load(local("rx-backlog = true")));
  const RunReport in_irq = run(load(local("rx-backlog = true\npoll-in-irq = true")));
  EXPECT_TRUE(in_irq.conservation.ok());
  EXPECT_EQ(in_irq.delivered_packets, napi.delivered_packets);
  EXPECT_EQ(in_irq.interrupts.total(), napi.interrupts.total());
  // The handler's poll (napi-poll, rx-packet per frame, rx-refill) moves from softirq to hardirq;
  // a local frame's backlog poll costs nothing, so softirq has no time left.
  const double moved =
      ns(in_irq.cpu.busy(0, ContextKind::hardirq)) - ns(napi.cpu.busy(0, ContextKind::hardirq));
  EXPECT_GE(moved, 700.0 * static_cast<double>(in_irq.queues[0].rx_cleaned));
  EXPECT_NEAR(moved, ns(napi.cpu.busy(0, ContextKind::softirq)), 1.0);
  EXPECT_EQ(in_irq.cpu.busy(0, ContextKind::softirq), Duration::zero());
  EXPECT_EQ(in_irq.cpu.busy(0), napi.cpu.busy(0));
}

TEST(poll_in_irq, a_router_routes_in_softirq_after_the_handler_cleaned_the_ring) {
  const RunReport with = run(load(routed("rx-backlog = true\npoll-in-irq = true")));
  const RunReport without =
      run(load(routed("rx-backlog = true\npoll-in-irq = true"), {"cpu.forward=0"}));
  EXPECT_TRUE(with.conservation.ok());
  // The handler's time does not depend on the route lookup; softirq time is exactly that.
  EXPECT_EQ(with.cpu.busy(0, ContextKind::hardirq), without.cpu.busy(0, ContextKind::hardirq));
  EXPECT_EQ(without.cpu.busy(0, ContextKind::softirq), Duration::zero());
  const double expected = 800.0 * static_cast<double>(with.delivered_packets);
  EXPECT_GE(ns(with.cpu.busy(0, ContextKind::softirq)), expected);
  EXPECT_LT(ns(with.cpu.busy(0, ContextKind::softirq)), expected + 800.0 * 64);
}

// ---- held LLI causes (nic.lli-hold) ----------------------------------------------------------

// 5 Mpps into a 64-descriptor ring refilled only by the poll: every frame finds fewer than 64
// free descriptors (an LLI cause), but frames, and so causes, stop when the ring is full, 13 us
// after each poll. EITR alone would give 1000 interrupts/s. A cheap poll (100 ns a frame) keeps
// up with one interrupt every 20 us.
std::string lli_bursts() {
  return std::string(R"(
[scenario]
duration = "5ms"
[traffic]
kind = "constant"
rate = 5000000
size = 64
[nic]
rx-ring = 64
refill = "cpu"
refill-batch = 1
moderation = "lli"
itr-device = "82599"
itr-rate = 1000
lli-ring-threshold = 64
lli-interval = 40
[cpu]
cores = 2
app-core = 1
)") + kCosts;
}

TEST(lli_hold, a_held_cause_fires_every_interval_and_a_dropped_one_waits_for_eitr) {
  const RunReport held = run(load(lli_bursts(), {"cpu.rx-packet=100", "nic.lli-hold=true"}));
  const RunReport dropped = run(load(lli_bursts(), {"cpu.rx-packet=100", "nic.lli-hold=false"}));
  const RunReport held_20 =
      run(load(lli_bursts(), {"cpu.rx-packet=100", "nic.lli-hold=true", "nic.lli-interval=20"}));
  // 5 ms / 40 us = 125; 5 ms / 20 us = 250.
  EXPECT_GE(held.interrupts.total(), 124u);
  EXPECT_LE(held.interrupts.total(), 126u);
  EXPECT_GE(held_20.interrupts.total(), 249u);
  EXPECT_LE(held_20.interrupts.total(), 251u);
  EXPECT_LT(dropped.interrupts.total(), held.interrupts.total() / 4);
  EXPECT_GT(held.delivered_packets, 4 * dropped.delivered_packets);
  for (const RunReport* r : {&held, &dropped, &held_20})
    EXPECT_TRUE(r->conservation.ok());
}

// ---- the platform and the checks -------------------------------------------------------------

TEST(openbsd_keys, the_openbsd_platform_sets_the_receive_path) {
  const Scenario s = load("platform = \"xeon-e5504-openbsd\"\n");
  EXPECT_EQ(s.nic.refill, Refill::mclgeti);
  EXPECT_EQ(s.nic.mclgeti_lwm, 4u);
  EXPECT_EQ(s.nic.rx_ring, 256u);
  EXPECT_FALSE(s.napi.ksoftirqd);
  EXPECT_TRUE(s.napi.poll_in_irq);
  EXPECT_TRUE(s.napi.rx_backlog);
  EXPECT_EQ(s.napi.max_backlog, 256u);
  EXPECT_EQ(s.cpu.hz, 100u);
  EXPECT_EQ(s.cpu.forward, Distribution::constant_ns(757));  // fitted on seed 004
}

TEST(openbsd_keys, the_defaults_are_linux_and_keep_mclgeti_off) {
  const Scenario s = default_scenario();
  EXPECT_EQ(s.nic.refill, Refill::delay);
  EXPECT_EQ(s.nic.mclgeti_lwm, 4u);
  EXPECT_EQ(s.nic.mclgeti_hwm, 0u);
  EXPECT_FALSE(s.nic.lli_hold);
  EXPECT_TRUE(s.napi.ksoftirqd);
  EXPECT_FALSE(s.napi.rx_backlog);
  EXPECT_EQ(s.napi.max_backlog, 1000u);
  EXPECT_FALSE(s.napi.poll_in_irq);
  EXPECT_EQ(s.cpu.hz, 100u);
  const RunReport r = run(load(local("")));
  EXPECT_FALSE(r.mclgeti.has_value());
}

TEST(openbsd_keys, watermark_keys_and_hz_are_refused_without_mclgeti) {
  const std::string tail =
      "only MCLGETI's watermark uses it; allowed: the default, or nic.refill "
      "= \"mclgeti\"";
  EXPECT_EQ(load_error("[nic]\nmclgeti-lwm = 8\n"), "test.toml:2: nic.mclgeti-lwm: " + tail);
  EXPECT_EQ(load_error("[nic]\nrefill = \"cpu\"\nmclgeti-hwm = 32\n"),
            "test.toml:3: nic.mclgeti-hwm: " + tail);
  // cpu.hz is also cpu.hrtimer-arm's tick.
  EXPECT_EQ(load_error("[cpu]\nhz = 1000\n"),
            "test.toml:2: cpu.hz: only MCLGETI's watermark and cpu.hrtimer-arm's tick use it; "
            "allowed: the default, nic.refill = \"mclgeti\", or a cpu.hrtimer-arm");
  EXPECT_TRUE(load_scenario_text("[cpu]\nhz = 250\nhrtimer-arm = 5000\n", "test.toml",
                                 std::vector<std::string>{"platform=none"})
                  .ok());
  // Their defaults, written out, are accepted.
  EXPECT_TRUE(load_scenario_text("[nic]\nmclgeti-lwm = 4\n[cpu]\nhz = 100\n", "test.toml",
                                 std::vector<std::string>{"platform=none"})
                  .ok());
}

TEST(openbsd_keys, mclgeti_refuses_a_refill_batch_a_refill_delay_and_marks_beyond_the_ring) {
  EXPECT_EQ(load_error("[nic]\nrefill = \"mclgeti\"\nrefill-batch = 16\n"),
            "test.toml:3: nic.refill-batch: MCLGETI refills on every poll, as far as the "
            "watermark allows; allowed: the default");
  EXPECT_EQ(load_error("[nic]\nrefill = \"mclgeti\"\nrefill-delay = \"10us\"\n"),
            "test.toml:3: nic.refill-delay: with nic.refill = \"mclgeti\" buffers come back "
            "when a poll refills them, not after a delay; allowed: 0");
  EXPECT_EQ(load_error("[nic]\nrefill = \"mclgeti\"\nrx-ring = 64\nmclgeti-hwm = 128\n"),
            "test.toml:4: nic.mclgeti-hwm: 128 buffers is more than the ring holds; allowed: 0 "
            "(the ring) or 1 to 64 (nic.rx-ring)");
  EXPECT_EQ(load_error("[nic]\nrefill = \"mclgeti\"\nmclgeti-hwm = 16\nmclgeti-lwm = 32\n"),
            "test.toml:4: nic.mclgeti-lwm: 32 is above the high water mark; allowed: 1 to 16 "
            "(nic.mclgeti-hwm)");
  // hwm = 0 is the ring.
  EXPECT_EQ(load_error("[nic]\nrefill = \"mclgeti\"\nrx-ring = 64\nmclgeti-lwm = 100\n"),
            "test.toml:4: nic.mclgeti-lwm: 100 is above the high water mark; allowed: 1 to 64 "
            "(nic.mclgeti-hwm)");
  EXPECT_TRUE(load_scenario_text("[nic]\nrefill = \"mclgeti\"\nrx-ring = 64\nmclgeti-hwm = 64\n"
                                 "mclgeti-lwm = 64\nalloc-fail-ppm = 10\n[cpu]\nhz = 1000\n",
                                 "test.toml", std::vector<std::string>{"platform=none"})
                  .ok());
  EXPECT_EQ(load_error("[nic]\nalloc-fail-ppm = 10\n"),
            "test.toml:2: nic.alloc-fail-ppm: allocations happen only with nic.refill = \"cpu\" "
            "or \"mclgeti\"; allowed: 0, or one of those");
}

TEST(openbsd_keys, a_poll_in_the_interrupt_handler_needs_the_backlog) {
  EXPECT_EQ(load_error("[napi]\npoll-in-irq = true\n"),
            "test.toml:2: napi.poll-in-irq: a poll in the interrupt handler hands its frames to "
            "the backlog (netif_rx, OpenBSD's ipintrq); allowed: true with napi.rx-backlog = "
            "true");
  EXPECT_TRUE(load_scenario_text("[napi]\npoll-in-irq = true\nrx-backlog = true\n", "test.toml",
                                 std::vector<std::string>{"platform=none"})
                  .ok());
  EXPECT_NE(load_error("[napi]\nnetdev_max_backlog = 0\n").find("napi.netdev_max_backlog"),
            std::string::npos);
}

}  // namespace
}  // namespace irqmod::sim
