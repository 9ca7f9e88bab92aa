// A veth receive queue on two cores, its frames handed to a recording stack: where its NAPI poll
// runs (the sender's core; a busy poller's; its thread's), the interrupt line (rx_notify_masked)
// under deferral, the ring's limit, the budget, and hrtimer lateness on its watchdog
// (docs/research/veth-loopback.md §7, mechanisms 2, 4, 5, 6, 7, 9, 11).
#include "sim/dev/veth.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "irqmod/sim/random.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/napi/busy_loop.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

// The stack: which core each frame went up from, with which NAPI id.
struct Received {
  std::uint32_t core = 0;
  std::uint32_t napi_id = 0;
  Instant at{};
};
struct RecordingStack {
  World* world = nullptr;
  std::vector<Received> frames;
  int batches = 0;
  RxStack endpoint() {
    return RxStack{[](void*, const Ring<Packet>&, std::size_t, int, std::uint32_t,
                      std::vector<std::uint32_t>&) { return StackWork{}; },
                   [](void* self, const Packet&, std::uint32_t napi_id, std::uint32_t core) {
                     auto& s = *static_cast<RecordingStack*>(self);
                     s.frames.push_back(Received{core, napi_id, s.world->now()});
                   },
                   [](void* self, std::vector<std::uint32_t>&) {
                     ++static_cast<RecordingStack*>(self)->batches;
                   },
                   this};
  }
};

// A sending thread: its send (100 ns) ends with veth_xmit, as sendmsg's dev_queue_xmit does,
// inside an event of its core (where the core runs the softirq it raised before going on).
struct Sender {
  VethQueue* queue = nullptr;
  int frames = 0;  // to send at the end of the running send
  bool accepted = true;
  std::optional<Segment> start(Core&) {
    return Segment{nanoseconds(100), ContextKind::thread, "send"};
  }
  std::optional<Segment> next(Core& core) {
    for (; frames > 0; --frames)
      accepted = queue->xmit(Packet{ns_since_epoch(core.now()), 64, 0}, core) && accepted;
    return std::nullopt;
  }
};

struct Fixture {
  explicit Fixture(VethConfig config = {}) {
    stack.world = &world;
    world.report.cpu = CpuTime(2);
    world.report.cores.resize(2);
    for (std::uint32_t c = 0; c < 2; ++c) {
      Core& core = cores.emplace_back(world, c, Rng(1, c), microseconds(3000));
      net_rx.push_back(&lists.emplace_back(core, NetRx::Budget{}, 1));
      senders[c].thread = core.add_thread(job_of(senders[c].job), false);
    }
    if (config.costs.poll.is_constant() && config.costs.poll.a_ns == 0)
      config.costs = VethCosts{Distribution::constant_ns(500), Distribution::constant_ns(100),
                               Distribution::constant_ns(600)};
    queue.emplace(world, 7, config, net_rx, 0, stack.endpoint());
    for (auto& s : senders)
      s.job.queue = &*queue;
  }
  void run_to(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }
  // `n` frames sent from a thread of `core`, now (their send ends 100 ns later).
  void send(std::uint32_t core, int n = 1) {
    senders[core].job.frames = n;
    cores[core].wake(senders[core].thread);
  }
  bool accepted(std::uint32_t core) const { return senders[core].job.accepted; }

  World world;
  std::deque<Core> cores;
  std::deque<NetRx> lists;
  std::vector<NetRx*> net_rx;
  RecordingStack stack;
  std::optional<VethQueue> queue;
  struct SenderThread {
    Sender job;
    std::uint32_t thread = 0;
  };
  SenderThread senders[2];
};

TEST(veth, a_frame_is_polled_on_the_senders_core_with_the_queues_napi_id) {
  Fixture f;
  f.send(1);  // the sender runs on core 1
  f.run_to(10'000);
  ASSERT_TRUE(f.accepted(1));
  ASSERT_EQ(f.stack.frames.size(), 1U);
  EXPECT_EQ(f.stack.frames[0].core, 1U);
  EXPECT_EQ(f.stack.frames[0].napi_id, 7U);
  EXPECT_EQ(f.stack.frames[0].at, at_ns(100 + 1'200));  // the send, then the poll at once
  EXPECT_EQ(f.world.report.cores[1].polls, 1U);
  EXPECT_EQ(f.world.report.cores[0].polls, 0U);
  // veth_poll: 500 fixed + 100 + 600 per frame, as softirq of the sender's core.
  EXPECT_EQ(f.world.report.cpu.busy(1, ContextKind::softirq), nanoseconds(1200));
  EXPECT_FALSE(f.queue->masked());  // the completion re-armed the line
}

TEST(veth, frames_sent_while_the_line_is_masked_schedule_nothing_and_join_the_running_poll) {
  VethConfig config;
  config.costs = VethCosts{Distribution::constant_ns(5'000), Distribution::constant_ns(100),
                           Distribution::constant_ns(600)};
  Fixture f(config);
  f.send(0);
  f.run_to(1'000);  // core 0's poll runs until 5800 + 700
  EXPECT_TRUE(f.queue->masked());
  f.send(1);  // another sender: the line is masked
  f.run_to(2'000);
  EXPECT_EQ(f.queue->counters().schedules, 1U);
  f.run_to(20'000);
  ASSERT_EQ(f.stack.frames.size(), 2U);
  EXPECT_EQ(f.stack.frames[1].core, 0U);  // polled where the first sender scheduled it
  EXPECT_EQ(f.world.report.cores[1].polls, 0U);
}

TEST(veth, a_full_ring_drops_the_frame_as_the_senders_tx_drop) {
  VethConfig config;
  config.ring = 2;
  Fixture f(config);
  f.send(0, 3);
  f.run_to(50);
  f.run_to(150);
  EXPECT_FALSE(f.accepted(0));
  EXPECT_EQ(f.queue->counters().produced, 2U);
  EXPECT_EQ(f.queue->counters().dropped, 1U);
  EXPECT_EQ(f.world.report.drops.count(DropReason::tx_ring_full), 1U);
}

TEST(veth, a_poll_takes_at_most_its_budget_and_the_rest_is_polled_again) {
  VethConfig config;
  config.napi.context.weight = 4;
  Fixture f(config);
  f.send(0, 6);
  f.run_to(2'500);  // the first poll: 500 + 4 x 700 = 3300 ns, from 100
  EXPECT_EQ(f.stack.frames.size(), 0U);
  f.run_to(3'400);
  EXPECT_EQ(f.stack.frames.size(), 4U);
  EXPECT_TRUE(f.queue->masked());  // a full-budget poll leaves the line masked
  f.run_to(20'000);
  EXPECT_EQ(f.stack.frames.size(), 6U);
  EXPECT_EQ(f.world.report.cores[0].polls, 2U);
}

TEST(veth, deferral_holds_the_line_and_the_watchdog_polls_after_gro_flush_timeout) {
  VethConfig config;
  config.napi.context.defer_hard_irqs = 2;
  config.napi.context.gro_flush_timeout = microseconds(20);
  Fixture f(config);
  f.send(0);
  f.run_to(5'000);
  ASSERT_EQ(f.stack.frames.size(), 1U);
  EXPECT_TRUE(f.queue->masked());  // napi_complete_done returned false: no re-arm
  f.send(1);
  f.run_to(6'000);
  EXPECT_EQ(f.queue->counters().schedules, 1U);  // the sender's flush finds the line masked
  f.run_to(21'000);                              // the poll ended at 1300; its timer at 21 300
  EXPECT_EQ(f.stack.frames.size(), 1U);
  f.run_to(40'000);
  ASSERT_EQ(f.stack.frames.size(), 2U);
  EXPECT_EQ(f.stack.frames[1].core, 0U);  // the pinned timer of the core that armed it
  EXPECT_EQ(f.stack.frames[1].at, at_ns(21'300 + 1'200));
  EXPECT_EQ(f.world.report.cores[0].timer_irqs, 1U);  // the watchdog's timer interrupt
  f.run_to(200'000);  // two empty timer polls use up the deferral: the line re-arms
  EXPECT_FALSE(f.queue->masked());
}

TEST(veth, the_watchdogs_hrtimer_fires_as_late_as_cpu_hrtimer_late) {
  for (const std::int64_t late : {0, 7'000}) {
    VethConfig config;
    config.napi.context.defer_hard_irqs = 1;
    config.napi.context.gro_flush_timeout = microseconds(20);
    config.napi.timers.late = Distribution::constant_ns(late);
    Fixture f(config);
    f.send(0);
    f.run_to(5'000);
    f.send(0);
    f.run_to(100'000);
    ASSERT_EQ(f.stack.frames.size(), 2U) << late;
    // The timer is due 20 us after the first poll ended (1300 ns); the timer interrupt costs 0
    // here and the poll 1200 ns.
    EXPECT_EQ(f.stack.frames[1].at, at_ns(1'300 + 20'000 + late + 1'200)) << late;
  }
}

TEST(veth, the_watchdogs_timer_interrupt_is_the_last_part_of_its_lateness) {
  // cpu.timer-irq 3 us of a 7 us lateness: the poll is as late as without it, core 0 busy at
  // hardirq level for 3 us; 9 us is cut to the whole lateness.
  for (const std::int64_t irq : {0, 3'000, 9'000}) {
    VethConfig config;
    config.napi.context.defer_hard_irqs = 1;
    config.napi.context.gro_flush_timeout = microseconds(20);
    config.napi.timers.late = Distribution::constant_ns(7'000);
    config.napi.timers.irq = Distribution::constant_ns(irq);
    Fixture f(config);
    f.send(0);
    f.run_to(5'000);
    f.send(0);
    f.run_to(45'000);  // the first timer's callback at 28 300, the next one's interrupt at 49 500
                       // or later
    ASSERT_EQ(f.stack.frames.size(), 2U) << irq;
    EXPECT_EQ(f.stack.frames[1].at, at_ns(1'300 + 20'000 + 7'000 + 1'200)) << irq;
    EXPECT_EQ(f.world.report.cores[0].timer_irqs, 1U) << irq;
    EXPECT_EQ(f.world.report.cpu.busy(0, ContextKind::hardirq),
              nanoseconds(std::min<std::int64_t>(irq, 7'000)))
        << irq;
  }
}

TEST(veth, arming_the_watchdog_within_a_tick_reprograms_the_clock_event_device) {
  // cpu.hrtimer-arm 2 us: the first poll's napi_complete_done arms the 20 us timer, charged to
  // that poll's core (its softirq goes on 2 us longer; the expiry was taken before, at 21 300);
  // a tick of 10 us puts the timer behind it, free.
  struct Case {
    std::int64_t tick_ns;
    std::int64_t charged;
  };
  for (const Case c : {Case{1'000'000, 2'000}, Case{10'000, 0}}) {
    VethConfig config;
    config.napi.context.defer_hard_irqs = 1;
    config.napi.context.gro_flush_timeout = microseconds(20);
    config.napi.timers.arm = Distribution::constant_ns(2'000);
    config.napi.timers.tick = nanoseconds(c.tick_ns);
    Fixture f(config);
    f.send(0);
    f.run_to(5'000);
    const Duration softirq = f.world.report.cpu.busy(0, ContextKind::softirq);
    f.send(0);
    f.run_to(100'000);
    ASSERT_EQ(f.stack.frames.size(), 2U) << c.tick_ns;
    EXPECT_EQ(softirq, nanoseconds(1'200 + c.charged)) << c.tick_ns;
    EXPECT_EQ(f.stack.frames[1].at, at_ns(1'300 + 20'000 + 1'200)) << c.tick_ns;
  }
}

TEST(veth, a_busy_poller_that_owns_the_context_takes_the_frame_on_its_own_core) {
  Fixture f;
  BusyPollSettings settings;
  settings.usecs = 50;
  settings.iteration = Distribution::constant_ns(100);
  BusyLoop loop(settings);
  bool data = false;
  const DataReady ready{[](const void* self) { return *static_cast<const bool*>(self); }, &data};
  // The receiver's loop on core 1 owns the context before the frame comes.
  Segment segment = loop.begin(f.queue->napi(), f.cores[1], ready);
  EXPECT_EQ(f.queue->napi().context().owner(), napi::Owner::busy_poller);
  f.send(0);
  f.run_to(100);                    // the sender's flush finds SCHED held
  EXPECT_FALSE(f.queue->masked());  // MISSED, the line left clear
  EXPECT_EQ(f.queue->counters().schedules, 0U);
  for (int i = 0; i < 3 && f.stack.frames.empty(); ++i) {
    f.run_to(ns_since_epoch(f.world.now() + segment.length));
    if (auto next = loop.next(f.cores[1])) segment = *next;
  }
  ASSERT_EQ(f.stack.frames.size(), 1U);
  EXPECT_EQ(f.stack.frames[0].core, 1U);
  EXPECT_EQ(f.world.report.cores[0].polls, 0U);
}

TEST(veth, threaded_napi_polls_in_its_thread_and_raises_no_net_rx) {
  VethConfig config;
  config.napi.thread.enabled = true;
  config.napi.thread.core = 1;
  Fixture f(config);
  ASSERT_TRUE(f.queue->napi().threaded());
  f.send(0);
  f.run_to(20'000);
  ASSERT_EQ(f.stack.frames.size(), 1U);
  EXPECT_EQ(f.stack.frames[0].core, 1U);
  EXPECT_EQ(f.queue->napi().thread_stats().polls, 1U);
  EXPECT_EQ(f.world.report.cpu.busy(0, ContextKind::softirq), Duration::zero());
  EXPECT_EQ(f.world.report.cpu.busy(1, ContextKind::softirq), Duration::zero());
  EXPECT_GT(f.world.report.cpu.busy(1, ContextKind::thread), Duration::zero());
}

}  // namespace
}  // namespace irqmod::sim
