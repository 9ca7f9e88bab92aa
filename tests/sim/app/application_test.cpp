// The application thread, in hosts built from a scenario whose generator stays quiet (its first
// frame comes after 900 ms) so that each test hands the socket the frames it needs, and in a whole
// ping-pong run: the wake-up cost paid once per sleep, the cost of each message with and without
// a reply, epoll's IRQ suspension with prefer_busy_poll, and the adaptive poller's spin ending
// when data arrives.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/app/server.hpp"
#include "sim/builder.hpp"
#include "sim/load_helpers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

// Costs of round numbers (ns): a wake-up is 2000 + 1500, a message 150 + 200, a reply 150 + 800.
constexpr const char* kCosts = R"(
[cpu]
irq-entry = 1000
irq-handler = 300
napi-poll = 500
rx-packet = 700
tx-packet = 800
app-message = 200
syscall = 150
wakeup = 2000
context-switch = 1500
busy-poll-iteration = 200
)";

constexpr std::int64_t kWakeup = 3500;
constexpr std::int64_t kMessage = 350;
constexpr std::int64_t kReply = 950;

constexpr const char* kQuiet = R"(
[scenario]
duration = "1s"
[link]
speed = "1G"
[traffic]
kind = "constant"
rate = 1
jitter = "900ms"
[nic]
dma-delay = 800
rx-usecs = 50
)";

Scenario load(const std::string& text, const std::vector<std::string>& sets) {
  LoadResult loaded =
      load_scenario_text(text + kCosts, "test.toml", test::costs_only(text + kCosts, sets));
  EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().what());
  return loaded.ok() ? loaded.value() : default_scenario();
}

struct Fixture {
  explicit Fixture(const std::vector<std::string>& sets = {}) : scenario(load(kQuiet, sets)) {
    const auto error = build(scenario, host);
    EXPECT_FALSE(error) << (error ? error->what() : "");
    host.port->update_watch();
  }
  // `n` frames of flow 0 polled on core 0 now, in one batch.
  void deliver(int n) {
    for (int i = 0; i < n; ++i)
      host.stack->receive(Packet{ns_since_epoch(world.now()), 64, 0}, 1, 0);
    host.stack->end_batch();
  }
  void run_to(std::int64_t ns) {
    Port& port = *host.port;
    world.engine.run_until(at_ns(ns), [&](const Event& event) {
      port.land(world.now());
      world.engine.dispatch(event);
      port.update_watch();
    });
  }
  std::int64_t thread_ns() const { return world.report.cpu.busy(0, ContextKind::thread).count(); }
  napi::Context& napi() { return host.queue_vectors[0].napi().context(); }

  Scenario scenario;
  World world;
  Host host{world};
};

TEST(application, a_blocked_thread_woken_by_its_socket_pays_wakeup_and_context_switch_once) {
  Fixture f;
  f.run_to(1000);
  f.deliver(1);
  f.run_to(4600);  // awake from 4500, taking the first message
  f.deliver(1);    // found by the next recv: no second wake-up
  f.run_to(10'000);
  EXPECT_EQ(f.world.report.delivered_packets, 2U);
  EXPECT_EQ(f.thread_ns(), kWakeup + 2 * kMessage);
  EXPECT_EQ(f.world.report.latency.max(), kWakeup + kMessage);  // 1000 -> 4850
  EXPECT_EQ(f.world.report.latency.min(), 4850 + kMessage - 4600);
  // Blocked again: the next frame wakes it again.
  f.deliver(1);
  f.run_to(20'000);
  EXPECT_EQ(f.thread_ns(), 2 * kWakeup + 3 * kMessage);
}

TEST(application, takes_a_whole_batch_after_one_wake_up) {
  Fixture f;
  f.deliver(3);
  f.run_to(10'000);
  EXPECT_EQ(f.world.report.delivered_packets, 3U);
  EXPECT_EQ(f.thread_ns(), kWakeup + 3 * kMessage);
  EXPECT_EQ(f.world.report.latency.count(), 3U);
}

TEST(application, an_answered_message_costs_a_second_syscall_and_tx_packet) {
  Fixture f;
  f.host.peers[0].answered = true;
  f.deliver(2);
  f.run_to(10'000);
  EXPECT_EQ(f.world.report.delivered_packets, 2U);
  EXPECT_EQ(f.thread_ns(), kWakeup + 2 * (kMessage + kReply));
  EXPECT_EQ(f.host.tx_queues[0].sent(), 2U);
  EXPECT_EQ(f.world.report.latency.count(), 0U);  // the peer measures answered messages
}

TEST(application, each_reply_leaves_at_the_end_of_its_own_sendto_before_the_next_recv) {
  // Two requests in one batch: awake at 3500, the first request's recv and reply end at 4800,
  // the second's at 6100. The first reply is on the wire before the second recv is done, as
  // irqmod serve and memcached answer (one sendto per request), not at the batch's end.
  Fixture f;
  f.host.peers[0].answered = true;
  f.deliver(2);
  f.run_to(kWakeup + kMessage + kReply - 1);
  EXPECT_EQ(f.host.tx_queues[0].sent(), 0U);
  f.run_to(kWakeup + kMessage + kReply + 1);
  EXPECT_EQ(f.host.tx_queues[0].sent(), 1U);
  f.run_to(kWakeup + 2 * (kMessage + kReply) - 1);
  EXPECT_EQ(f.host.tx_queues[0].sent(), 1U);
  f.run_to(kWakeup + 2 * (kMessage + kReply) + 1);
  EXPECT_EQ(f.host.tx_queues[0].sent(), 2U);
  EXPECT_EQ(f.thread_ns(), kWakeup + 2 * (kMessage + kReply));
}

TEST(application, epoll_with_prefer_busy_poll_suspends_and_resumes_the_contexts_interrupts) {
  // Without seed 000's software interrupt, so that every schedule is accounted for here.
  Fixture f({"cpu.app-wait=epoll", "napi.busy_poll=50", "napi.prefer_busy_poll=true",
             "napi.irq_suspend_timeout=1ms", "nic.moderation=none",
             "nic.busy-poll-exit-swint=false"});
  // Written back at 1800: interrupt, handler until 3100, a poll until 4300, the thread awake
  // at 7800 (epoll_wait returns the event) and done with the message at 8150.
  f.host.port->inject(Packet{1000, 64, 0});
  f.run_to(7799);
  EXPECT_EQ(f.napi().timer(), std::nullopt);
  EXPECT_EQ(f.napi().counters().schedules, 1U);
  f.run_to(7800);
  // epoll returned an event: napi_suspend_irqs arms the timer irq_suspend_timeout out, when
  // epoll_wait returns (ep_poll), before the application works on the event.
  EXPECT_EQ(f.napi().timer(), at_ns(7800 + 1'000'000));
  f.run_to(8150);
  EXPECT_EQ(f.napi().timer(), at_ns(7800 + 1'000'000));  // the work re-arms nothing
  f.run_to(30'000);
  EXPECT_EQ(f.napi().owner(), napi::Owner::busy_poller);  // epoll's busy loop
  f.run_to(100'000);
  // The loop timed out with no event: napi_resume_irqs schedules the context once more.
  EXPECT_EQ(f.napi().counters().final_polls, 1U);
  EXPECT_EQ(f.napi().counters().schedules, 2U);
  EXPECT_EQ(f.world.report.interrupts.count_of(0), 1U);
}

TEST(application, epoll_without_prefer_busy_poll_neither_suspends_nor_resumes) {
  Fixture f({"cpu.app-wait=epoll", "napi.busy_poll=50", "napi.irq_suspend_timeout=1ms",
             "nic.moderation=none", "nic.busy-poll-exit-swint=false"});
  f.host.port->inject(Packet{1000, 64, 0});
  f.run_to(100'000);
  EXPECT_EQ(f.napi().counters().final_polls, 1U);
  EXPECT_EQ(f.napi().counters().timer_arms, 0U);
  EXPECT_EQ(f.napi().counters().schedules, 1U);
}

// napi.epoll-prefer-busy-loop: Linux 6.13's ep_busy_loop_on. With busy_poll 0, prefer_busy_poll
// and IRQ suspension, epoll_wait after the message does one busy-poll iteration (one busy-poll
// segment), busy_poll_stop's final poll, and napi_resume_irqs; before 6.13 it just sleeps.
TEST(application, with_the_6_13_rule_prefer_alone_busy_polls_once_then_resumes) {
  const std::vector<std::string> sets{"cpu.app-wait=epoll",
                                      "napi.prefer_busy_poll=true",
                                      "napi.napi_defer_hard_irqs=100",
                                      "napi.gro_flush_timeout=20us",
                                      "nic.moderation=none",
                                      "nic.busy-poll-exit-swint=false"};
  Fixture before(sets);  // before 6.13 there is no IRQ suspension either
  std::vector<std::string> with_rule = sets;
  with_rule.emplace_back("napi.epoll-prefer-busy-loop=true");
  with_rule.emplace_back("napi.irq_suspend_timeout=1ms");
  Fixture after(with_rule);
  for (Fixture* f : {&before, &after}) {
    f->host.port->inject(Packet{1000, 64, 0});
    f->run_to(100'000);
    EXPECT_EQ(f->world.report.delivered_packets, 1U);
  }
  EXPECT_EQ(before.napi().counters().busy_polls, 0U);
  EXPECT_EQ(before.napi().counters().final_polls, 0U);
  EXPECT_EQ(before.world.report.cpu.busy(0, ContextKind::busy_poll).count(), 0);
  // One iteration (200 ns) and the final poll; not the 1000-unit spin a "no limit" 0 would give.
  EXPECT_EQ(after.napi().counters().busy_polls, 1U);
  EXPECT_EQ(after.napi().counters().final_polls, 1U);
  EXPECT_LT(after.world.report.cpu.busy(0, ContextKind::busy_poll).count(), 5'000);
  // Nothing found: napi_resume_irqs scheduled the context (the interrupt's schedule, then this).
  EXPECT_EQ(after.napi().counters().schedules, 2U);
  EXPECT_EQ(before.napi().counters().schedules, 1U);
}

// The same rule chosen by the kernel version (ab5b28b007a7 is 6.13): 6.12 does not busy-poll
// with prefer_busy_poll alone, 6.13 does once.
TEST(application, kernel_6_12_does_not_busy_poll_with_prefer_alone_and_6_13_does_once) {
  const std::vector<std::string> sets{"cpu.app-wait=epoll", "napi.prefer_busy_poll=true",
                                      "napi.napi_defer_hard_irqs=100",
                                      "napi.gro_flush_timeout=20us", "nic.moderation=none"};
  std::vector<std::string> old = sets;
  old.emplace_back("kernel=6.12");
  std::vector<std::string> recent = sets;
  recent.emplace_back("kernel=6.13");
  Fixture before(old);
  Fixture after(recent);
  for (Fixture* f : {&before, &after}) {
    f->host.port->inject(Packet{1000, 64, 0});
    f->run_to(100'000);
    EXPECT_EQ(f->world.report.delivered_packets, 1U);
  }
  EXPECT_EQ(before.napi().counters().busy_polls, 0U);
  EXPECT_EQ(before.world.report.cpu.busy(0, ContextKind::busy_poll).count(), 0);
  EXPECT_EQ(after.napi().counters().busy_polls, 1U);
  EXPECT_EQ(after.napi().counters().final_polls, 1U);
}

TEST(application, the_adaptive_poller_ends_its_spin_when_data_arrives) {
  Fixture f({"cpu.app-wait=adaptive-poll"});
  f.run_to(1000);
  f.deliver(1);  // woken, done at 4850; then it spins (a fresh poller spins first)
  f.run_to(14'850);
  EXPECT_EQ(f.world.report.delivered_packets, 1U);
  f.deliver(1);
  f.run_to(14'850 + kMessage - 1);
  EXPECT_EQ(f.world.report.delivered_packets, 1U);
  f.run_to(14'850 + kMessage);
  EXPECT_EQ(f.world.report.delivered_packets, 2U);
  // No wake-up for the second message: 10 us of spinning, then the message.
  EXPECT_EQ(f.thread_ns(), kWakeup + kMessage + 10'000 + kMessage);
  EXPECT_EQ(f.world.report.latency.min(), kMessage);
}

TEST(application, a_ping_pong_run_pays_a_wake_up_and_a_reply_per_message) {
  const Scenario s = load(R"(
[scenario]
duration = "2ms"
[link]
speed = "1G"
[traffic]
kind = "ping-pong"
[nic]
moderation = "none"
)",
                          {});
  const auto report = simulate(s);
  ASSERT_TRUE(report.ok()) << report.error().what();
  const RunReport& r = report.value();
  ASSERT_GT(r.delivered_packets, 10U);
  // One message in flight: the thread blocks after each (the last may be cut by the end).
  const auto per_message = kWakeup + kMessage + kReply;
  const std::int64_t thread = r.cpu.busy(0, ContextKind::thread).count();
  EXPECT_GE(thread, static_cast<std::int64_t>(r.delivered_packets) * per_message);
  EXPECT_LT(thread, static_cast<std::int64_t>(r.delivered_packets + 1) * per_message);
}

// irqmod serve --mode adaptive's own settings: its wake-up cost is the p90 of a timed sleep's
// lateness (here cpu.hrtimer-late), falling back to the model's wake-up when timers are on time,
// and a guest predicts gaps up to 2000 us where bare metal stops at 200 us.
TEST(application, the_adaptive_poller_is_configured_as_serve_configures_it_on_the_platform) {
  const Duration wakeup = microseconds(3);
  const adaptive_poll::Config metal =
      serve_adaptive_config(Distribution::constant_ns(0), IdleExit{}, false, wakeup);
  EXPECT_EQ(metal.wakeup_cost, wakeup);
  EXPECT_EQ(adaptive_poll::max_predicted_gap(metal), microseconds(200));
  EXPECT_EQ(metal.idle_poll_window, microseconds(200));
  const Distribution late{DistributionKind::uniform, 10'000, 20'000, 0};
  const adaptive_poll::Config guest = serve_adaptive_config(late, IdleExit{}, true, wakeup);
  EXPECT_EQ(guest.wakeup_cost, nanoseconds(19'000));
  // serve sleeps 500 us where calibrate's hrtimer-late slept 50 us: the idle curve's difference
  // between the two is added (+2 us at 50 us idle, +7 us at 500 us).
  IdleExit idle;
  idle.growth = {{microseconds(50), microseconds(2)}, {microseconds(500), microseconds(7)}};
  EXPECT_EQ(serve_adaptive_config(late, idle, true, wakeup).wakeup_cost, nanoseconds(24'000));
  EXPECT_EQ(adaptive_poll::max_predicted_gap(guest), microseconds(2000));
  EXPECT_EQ(guest.idle_poll_window, microseconds(200));
}

// A ping-pong at 1000 messages/s (a 1 ms gap): on a guest the poller predicts the gap and
// sleeps on a timer until just before the next message, then spins; on bare metal the gap is
// beyond its horizon and it blocks, paying the wake-up inside the latency.
TEST(application, a_guest_platform_lets_the_adaptive_poller_sleep_across_a_1_ms_gap) {
  const std::string text = R"(
[scenario]
duration = "100ms"
[link]
speed = "1G"
[traffic]
kind = "ping-pong"
mps = 1000
[nic]
moderation = "none"
)";
  const std::vector<std::string> sets{"cpu.app-wait=adaptive-poll", "cpu.hrtimer-late=2us"};
  std::vector<std::string> guest_sets = sets;
  guest_sets.emplace_back("cpu.hypervisor=true");
  const auto metal = simulate(load(text, sets));
  const auto guest = simulate(load(text, guest_sets));
  ASSERT_TRUE(metal.ok() && guest.ok());
  // The timer wakes it (2 us late) about as the message lands, so the guest saves the
  // interrupt-to-wake-up path, not the whole wake-up: ~400 ns of the half round trip here.
  EXPECT_LT(guest.value().latency.mean(), metal.value().latency.mean() - 200.0);
  // Its spin before each message costs the guest more thread time than blocking does.
  EXPECT_GT(guest.value().cpu.busy(0, ContextKind::thread).count(),
            metal.value().cpu.busy(0, ContextKind::thread).count());
}

}  // namespace
}  // namespace irqmod::sim
