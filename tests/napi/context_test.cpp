// Unit tests for the NAPI context: each kernel rule of net/core/dev.c on its own.
#include "irqmod/napi/context.hpp"

#include <gtest/gtest.h>

namespace irqmod::napi {
namespace {

constexpr Instant kT0 = at_ns(1'000'000);

Config deferral(std::uint32_t defer, Duration gro) {
  Config c;
  c.defer_hard_irqs = defer;
  c.gro_flush_timeout = gro;
  return c;
}

// A busy poller that prefers busy polling takes the context, polls `work` of `budget` once and
// stops; the final poll is running. Returns what busy_poll_stop armed.
std::optional<Instant> into_final_poll(Context& c, int budget, int work) {
  EXPECT_TRUE(c.busy_poll_acquire(true));
  c.busy_poll_begin(budget);
  c.busy_poll_end(kT0, work);
  const std::optional<Instant> armed = c.busy_poll_stop(kT0, true);
  c.final_poll_begin();
  return armed;
}

// A softirq poll that cleans `work` descriptors.
PollResult softirq_poll(Context& c, Instant now, int work) {
  c.softirq_poll_begin();
  return c.softirq_poll_end(now, work);
}

TEST(napi_context, schedule_takes_sched_and_hands_the_context_to_the_softirq) {
  Context c{Config{}};
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_EQ(c.schedule(), Schedule::raised);
  EXPECT_EQ(c.owner(), Owner::softirq);
  EXPECT_TRUE(c.test(kStateSched));
  EXPECT_FALSE(c.test(kStateMissed));
}

TEST(napi_context, schedule_while_owned_sets_missed_and_nothing_else) {
  Context c{Config{}};
  c.schedule();
  EXPECT_EQ(c.schedule(), Schedule::missed);
  EXPECT_TRUE(c.test(kStateMissed));
  EXPECT_EQ(c.owner(), Owner::softirq);
  EXPECT_EQ(c.counters().missed, 1U);
}

TEST(napi_context, a_poll_below_the_weight_completes_and_releases_the_context) {
  Context c{Config{}};
  c.schedule();
  EXPECT_EQ(c.softirq_poll_begin(), kPollWeight);
  const PollResult r = c.softirq_poll_end(kT0, 10);
  EXPECT_EQ(r.work, 10);
  EXPECT_EQ(r.completion, Completion::rearm);
  EXPECT_FALSE(r.repoll);
  EXPECT_FALSE(r.arm_timer);
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_EQ(c.state(), 0U);
}

TEST(napi_context, a_poll_that_uses_the_whole_weight_stays_on_the_list_without_completing) {
  Context c{Config{}};
  c.schedule();
  const PollResult r = softirq_poll(c, kT0, kPollWeight);
  EXPECT_EQ(r.completion, Completion::not_called);
  EXPECT_TRUE(r.repoll);
  EXPECT_EQ(c.owner(), Owner::softirq);
}

TEST(napi_context, missed_turns_the_completion_into_a_repoll_with_the_irq_kept_masked) {
  Context c{Config{}};
  c.schedule();
  c.softirq_poll_begin();
  EXPECT_EQ(c.schedule(), Schedule::missed);  // an interrupt during the poll
  const PollResult r = c.softirq_poll_end(kT0, 3);
  EXPECT_EQ(r.completion, Completion::keep_masked);
  EXPECT_TRUE(r.repoll);
  EXPECT_TRUE(c.test(kStateSched));
  EXPECT_FALSE(c.test(kStateMissed));
  EXPECT_EQ(c.owner(), Owner::softirq);
  // The repoll finds nothing more and completes.
  EXPECT_EQ(softirq_poll(c, kT0, 0).completion, Completion::rearm);
}

TEST(napi_context, defer_hard_irqs_keeps_irqs_masked_for_the_busy_poll_and_n_minus_1_empty_ones) {
  const Duration gro = microseconds(20);
  Context c{deferral(2, gro)};
  c.schedule();
  PollResult r = softirq_poll(c, kT0, 5);  // non-empty: count reloads to 2, then 1
  EXPECT_EQ(r.completion, Completion::keep_masked);
  EXPECT_EQ(r.arm_timer, kT0 + gro);
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_EQ(c.defer_hard_irqs_count(), 1U);

  EXPECT_EQ(c.on_timer(kT0 + gro), Schedule::raised);  // the watchdog polls instead of an IRQ
  r = softirq_poll(c, kT0 + gro, 0);                   // empty: count 1 -> 0, still deferred
  EXPECT_EQ(r.completion, Completion::keep_masked);
  EXPECT_EQ(r.arm_timer, kT0 + 2 * gro);

  EXPECT_EQ(c.on_timer(kT0 + 2 * gro), Schedule::raised);
  r = softirq_poll(c, kT0 + 2 * gro, 0);  // the N-th empty poll re-arms the interrupt
  EXPECT_EQ(r.completion, Completion::rearm);
  EXPECT_FALSE(r.arm_timer);
  EXPECT_FALSE(c.timer());
  EXPECT_EQ(c.counters().deferrals, 2U);
  EXPECT_EQ(c.counters().watchdog_polls, 2U);
}

TEST(napi_context, defer_hard_irqs_without_gro_flush_timeout_defers_nothing) {
  Context c{deferral(2, Duration::zero())};
  c.schedule();
  EXPECT_EQ(softirq_poll(c, kT0, 5).completion, Completion::rearm);
  EXPECT_FALSE(c.timer());
}

TEST(napi_context, a_new_packet_reloads_the_deferral_count) {
  const Duration gro = microseconds(20);
  Context c{deferral(3, gro)};
  c.schedule();
  softirq_poll(c, kT0, 1);
  EXPECT_EQ(c.defer_hard_irqs_count(), 2U);
  c.on_timer(kT0 + gro);
  softirq_poll(c, kT0 + gro, 0);
  EXPECT_EQ(c.defer_hard_irqs_count(), 1U);
  c.on_timer(kT0 + 2 * gro);
  softirq_poll(c, kT0 + 2 * gro, 4);  // traffic again: back to 3 - 1
  EXPECT_EQ(c.defer_hard_irqs_count(), 2U);
}

TEST(napi_context, the_busy_poller_cannot_take_a_context_the_softirq_owns) {
  Context c{Config{}};
  c.schedule();
  EXPECT_FALSE(c.busy_poll_acquire(false));
  EXPECT_FALSE(c.test(kStatePreferBusyPoll));
  EXPECT_FALSE(c.busy_poll_acquire(true));  // SO_PREFER_BUSY_POLL: ask the softirq to yield
  EXPECT_TRUE(c.test(kStatePreferBusyPoll));
  EXPECT_EQ(c.owner(), Owner::softirq);
  EXPECT_EQ(c.counters().busy_poll_misses, 2U);
}

TEST(napi_context, a_busy_poller_owns_an_idle_context_and_its_completions_return_false) {
  Context c{Config{}};
  ASSERT_TRUE(c.busy_poll_acquire(false));
  EXPECT_EQ(c.owner(), Owner::busy_poller);
  EXPECT_TRUE(c.test(kStateSched));
  EXPECT_TRUE(c.test(kStateInBusyPoll));
  EXPECT_FALSE(c.busy_poll_acquire(false));  // a second thread cannot take it
  EXPECT_EQ(c.busy_poll_begin(kBusyPollBudget), kBusyPollBudget);
  const PollResult r = c.busy_poll_end(kT0, 2);
  EXPECT_EQ(r.completion, Completion::keep_masked);
  EXPECT_FALSE(r.repoll);
  EXPECT_EQ(c.owner(), Owner::busy_poller);   // napi_complete_done changed nothing
  EXPECT_EQ(c.schedule(), Schedule::missed);  // an interrupt cannot take it either
}

TEST(napi_context, busy_poll_stop_drops_missed_and_the_final_poll_rearms_the_irq) {
  Context c{Config{}};
  c.busy_poll_acquire(false);
  c.busy_poll_begin(kBusyPollBudget);
  c.busy_poll_end(kT0, 1);
  c.schedule();  // MISSED during the busy poll
  EXPECT_FALSE(c.busy_poll_stop(kT0, false));
  EXPECT_FALSE(c.test(kStateMissed));
  EXPECT_FALSE(c.test(kStateInBusyPoll));
  EXPECT_EQ(c.owner(), Owner::busy_poller);  // still holds SCHED for the final poll
  EXPECT_EQ(c.final_poll_begin(), kBusyPollBudget);
  const PollResult r = c.final_poll_end(kT0, 0);
  EXPECT_EQ(r.completion, Completion::rearm);
  EXPECT_EQ(c.owner(), Owner::none);
}

TEST(napi_context, an_interrupt_during_the_final_poll_sends_the_context_to_the_softirq) {
  Context c{Config{}};
  c.busy_poll_acquire(false);
  c.busy_poll_stop(kT0, false);
  c.final_poll_begin();
  EXPECT_EQ(c.schedule(), Schedule::missed);
  const PollResult r = c.final_poll_end(kT0, 0);
  EXPECT_EQ(r.completion, Completion::keep_masked);
  EXPECT_TRUE(r.repoll);
  EXPECT_EQ(c.owner(), Owner::softirq);
}

TEST(napi_context, a_full_final_poll_hands_the_context_to_the_softirq) {
  Context c{Config{}};
  c.busy_poll_acquire(false);
  c.busy_poll_begin(4);
  c.busy_poll_end(kT0, 4);
  c.busy_poll_stop(kT0, false);
  EXPECT_EQ(c.final_poll_begin(), 4);  // the loop's budget
  const PollResult r = c.final_poll_end(kT0, 4);
  EXPECT_EQ(r.completion, Completion::not_called);
  EXPECT_TRUE(r.repoll);
  EXPECT_EQ(c.owner(), Owner::softirq);
}

TEST(napi_context, with_prefer_the_softirq_gives_way_at_full_weight_to_the_busy_poller) {
  const Duration gro = microseconds(200);
  Context c{deferral(2, gro)};
  c.schedule();
  EXPECT_FALSE(c.busy_poll_acquire(true));  // sets PREFER_BUSY_POLL
  // __napi_poll completes although the weight was used; napi_complete_done defers.
  const PollResult r = softirq_poll(c, kT0, kPollWeight);
  EXPECT_EQ(r.completion, Completion::not_called);  // the driver does not re-enable
  EXPECT_FALSE(r.repoll);
  EXPECT_EQ(r.arm_timer, kT0 + gro);
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_FALSE(c.test(kStatePreferBusyPoll));  // napi_complete_done clears the pledge
  EXPECT_EQ(c.counters().prefer_yields, 1U);
  EXPECT_TRUE(c.busy_poll_acquire(true));
}

TEST(napi_context, with_prefer_but_no_deferral_the_softirq_reschedules_itself) {
  Context c{Config{}};
  c.schedule();
  c.busy_poll_acquire(true);
  const PollResult r = softirq_poll(c, kT0, kPollWeight);
  EXPECT_EQ(r.completion, Completion::not_called);
  EXPECT_TRUE(r.repoll);  // "we need to make sure that the NAPI is re-scheduled"
  EXPECT_EQ(c.owner(), Owner::softirq);
  EXPECT_EQ(c.counters().schedules, 2U);
  EXPECT_FALSE(c.busy_poll_acquire(false));
}

TEST(napi_context, a_second_busy_poller_never_shares_ownership_but_may_set_the_pledge) {
  Context c{Config{}};
  ASSERT_TRUE(c.busy_poll_acquire(false));   // thread A
  EXPECT_FALSE(c.busy_poll_acquire(false));  // thread B
  EXPECT_FALSE(c.test(kStatePreferBusyPoll));
  EXPECT_FALSE(c.busy_poll_acquire(true));
  EXPECT_TRUE(c.test(kStatePreferBusyPoll));
  EXPECT_EQ(c.owner(), Owner::busy_poller);
}

TEST(napi_context, a_full_final_poll_with_prefer_and_deferral_leaves_it_idle_for_the_watchdog) {
  const Duration gro = microseconds(200);
  Context c{deferral(2, gro)};
  ASSERT_TRUE(c.busy_poll_acquire(true));   // thread A
  EXPECT_FALSE(c.busy_poll_acquire(true));  // thread B: PREFER_BUSY_POLL
  c.busy_poll_begin(2);
  c.busy_poll_end(kT0, 2);
  EXPECT_EQ(c.busy_poll_stop(kT0, true), kT0 + gro);  // skip_schedule, timer armed
  EXPECT_EQ(c.defer_hard_irqs_count(), 2U);
  EXPECT_EQ(c.final_poll_begin(), 2);
  const PollResult r = c.final_poll_end(kT0, 2);
  EXPECT_EQ(r.completion, Completion::not_called);  // interrupts stay masked
  EXPECT_FALSE(r.repoll);
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_TRUE(c.test(kStatePreferBusyPoll));  // only SCHED was cleared
  EXPECT_EQ(c.timer(), kT0 + gro);
  // Nobody busy-polls within gro_flush_timeout: the watchdog revokes the pledge and polls.
  EXPECT_EQ(c.on_timer(kT0 + gro), Schedule::raised);
  EXPECT_FALSE(c.test(kStatePreferBusyPoll));
  EXPECT_EQ(c.owner(), Owner::softirq);
}

TEST(napi_context, a_final_poll_with_work_to_spare_defers_through_napi_complete_done) {
  const Duration gro = microseconds(200);
  Context c{deferral(2, gro)};
  ASSERT_TRUE(c.busy_poll_acquire(true));
  c.busy_poll_acquire(true);  // a second thread's pledge
  c.busy_poll_begin(8);
  c.busy_poll_end(kT0, 3);
  c.busy_poll_stop(kT0, true);
  c.final_poll_begin();
  const Instant t = kT0 + microseconds(1);
  const PollResult r = c.final_poll_end(t, 1);
  EXPECT_EQ(r.completion, Completion::keep_masked);  // IRQs stay off: the deferral holds
  EXPECT_EQ(r.arm_timer, t + gro);
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_FALSE(c.test(kStatePreferBusyPoll));
  EXPECT_EQ(c.defer_hard_irqs_count(), 1U);
}

TEST(napi_context, a_watchdog_expiring_inside_busy_poll_stop_leaves_it_to_the_next_busy_poll) {
  // The kernel arms the timer before the final poll. If that poll outlasts gro_flush_timeout
  // the watchdog finds SCHED held and does nothing; the full-budget release then leaves the
  // context idle, the interrupt masked and no timer. Only a busy poll picks it up again.
  const Duration gro = microseconds(20);
  Context c{deferral(2, gro)};
  ASSERT_TRUE(c.busy_poll_acquire(true));
  c.busy_poll_begin(64);
  c.busy_poll_end(kT0, 64);
  EXPECT_EQ(c.busy_poll_stop(kT0, true), kT0 + gro);
  c.final_poll_begin();
  EXPECT_EQ(c.on_timer(kT0 + gro), std::nullopt);  // 64 packets took longer than 20 us
  EXPECT_EQ(c.counters().watchdog_swallowed, 1U);
  const PollResult r = c.final_poll_end(kT0 + microseconds(25), 64);
  EXPECT_EQ(r.completion, Completion::not_called);
  EXPECT_FALSE(r.repoll);
  EXPECT_FALSE(c.timer());
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_EQ(c.counters().masked_releases, 1U);
  EXPECT_TRUE(c.busy_poll_acquire(true));  // the application's next epoll_wait
}

TEST(napi_context, from_58e2330bd455_busy_poll_stop_arms_the_timer_after_releasing_the_context) {
  // The same long final poll on a fixed kernel: no timer runs during it, and the full-budget
  // release arms one once SCHED is clear, so the watchdog polls instead of being lost.
  const Duration gro = microseconds(20);
  Config config = deferral(2, gro);
  config.gro_timer_after_final_poll = true;
  Context c{config};
  EXPECT_EQ(into_final_poll(c, 64, 64), std::nullopt);
  EXPECT_FALSE(c.timer());
  const Instant end = kT0 + microseconds(25);
  const PollResult r = c.final_poll_end(end, 64);
  EXPECT_EQ(r.completion, Completion::not_called);
  EXPECT_FALSE(r.repoll);
  EXPECT_EQ(r.arm_timer, end + gro);
  EXPECT_EQ(c.timer(), end + gro);
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_EQ(c.on_timer(end + gro), Schedule::raised);
  EXPECT_EQ(c.owner(), Owner::softirq);
  EXPECT_EQ(c.counters().watchdog_swallowed, 0U);
}

TEST(napi_context, on_preempt_rt_a_watchdog_expiring_inside_the_final_poll_runs_after_it) {
  // Before 58e2330bd455, on PREEMPT_RT: the soft expiry waits for local_bh_enable(), when the
  // full-budget release has cleared SCHED, so the watchdog polls instead of being lost.
  const Duration gro = microseconds(20);
  Config config = deferral(2, gro);
  config.watchdog_in_softirq = true;
  Context c{config};
  EXPECT_EQ(into_final_poll(c, 64, 64), kT0 + gro);
  EXPECT_EQ(c.on_timer(kT0 + gro), std::nullopt);  // held, not lost
  EXPECT_EQ(c.counters().watchdog_held, 1U);
  EXPECT_EQ(c.counters().watchdog_swallowed, 0U);
  EXPECT_EQ(c.timer(), kT0 + gro);
  const Instant end = kT0 + microseconds(25);
  const PollResult r = c.final_poll_end(end, 64);
  EXPECT_EQ(r.arm_timer, end);  // run it now
  EXPECT_EQ(c.counters().released_without_timer, 0U);
  EXPECT_EQ(c.on_timer(end), Schedule::raised);
  EXPECT_EQ(c.owner(), Owner::softirq);
}

TEST(napi_context, from_58e2330bd455_a_completing_final_poll_still_defers_through_the_driver) {
  // Below the budget napi_complete_done arms the timer itself (the count was reloaded), on either
  // side of the fix: the re-arm stays deferred.
  const Duration gro = microseconds(20);
  for (const bool fixed : {false, true}) {
    SCOPED_TRACE(fixed ? "fixed" : "before the fix");
    Config config = deferral(2, gro);
    config.gro_timer_after_final_poll = fixed;
    Context c{config};
    into_final_poll(c, 8, 3);
    const PollResult r = c.final_poll_end(kT0 + microseconds(1), 3);
    EXPECT_EQ(r.completion, Completion::keep_masked);
    EXPECT_EQ(c.timer(), kT0 + microseconds(1) + gro);
    EXPECT_EQ(c.owner(), Owner::none);
  }
}

TEST(napi_context, the_watchdog_does_nothing_while_someone_owns_the_context) {
  const Duration gro = microseconds(20);
  Context c{deferral(1, gro)};
  c.schedule();
  softirq_poll(c, kT0, 3);  // deferred, timer at kT0 + gro
  c.schedule();             // an interrupt anyway (e.g. a shared vector)
  EXPECT_EQ(c.on_timer(kT0 + gro), std::nullopt);
  EXPECT_FALSE(c.test(kStateMissed));  // the watchdog never sets MISSED
  EXPECT_FALSE(c.timer());             // and it is spent
}

TEST(napi_context, stale_timer_calls_are_ignored) {
  const Duration gro = microseconds(20);
  Context c{deferral(1, gro)};
  c.schedule();
  softirq_poll(c, kT0, 3);
  EXPECT_EQ(c.on_timer(kT0 + gro - nanoseconds(1)), std::nullopt);  // not yet
  EXPECT_TRUE(c.timer());
  EXPECT_EQ(c.on_timer(kT0 + gro), Schedule::raised);
  EXPECT_EQ(c.on_timer(kT0 + 2 * gro), std::nullopt);  // already fired
}

TEST(napi_context, irq_suspension_pushes_the_timer_out_and_resume_schedules) {
  Config config = deferral(2, microseconds(20));
  config.irq_suspend_timeout = milliseconds(1);
  Context c{config};
  c.schedule();
  softirq_poll(c, kT0, 3);  // deferral timer at +20 us
  EXPECT_EQ(c.suspend_irqs(kT0), kT0 + milliseconds(1));
  EXPECT_EQ(c.timer(), kT0 + milliseconds(1));
  EXPECT_EQ(c.on_timer(kT0 + microseconds(20)), std::nullopt);  // the deferral's expiry is gone
  EXPECT_EQ(c.resume_irqs(), Schedule::raised);
  EXPECT_EQ(c.owner(), Owner::softirq);
}

TEST(napi_context, without_irq_suspend_timeout_suspend_and_resume_do_nothing) {
  Context c{Config{}};
  EXPECT_EQ(c.suspend_irqs(kT0), std::nullopt);
  EXPECT_EQ(c.resume_irqs(), std::nullopt);
  EXPECT_EQ(c.owner(), Owner::none);
  EXPECT_FALSE(c.timer());
}

TEST(napi_context, rejects_each_bad_setting_by_name) {
  Config c;
  c.weight = 0;
  ASSERT_TRUE(validate(c));
  EXPECT_EQ(validate(c)->key, "weight");
  c = Config{};
  c.defer_hard_irqs = kMaxDeferHardIrqs + 1U;
  EXPECT_EQ(validate(c)->key, "napi_defer_hard_irqs");
  c = Config{};
  c.gro_flush_timeout = nanoseconds(-1);
  EXPECT_EQ(validate(c)->key, "gro_flush_timeout");
  c = Config{};
  c.irq_suspend_timeout = nanoseconds(-1);
  EXPECT_EQ(validate(c)->key, "irq_suspend_timeout");
  EXPECT_FALSE(Context::create(c).ok());
  EXPECT_TRUE(Context::create(Config{}).ok());
  EXPECT_NE(validate(Config{.weight = 70000})->message.find("1..65535"), std::string::npos);
}

TEST(napi_busy_loop, counts_busy_poll_time_in_1024_ns_units) {
  const Instant start = at_ns(0);
  EXPECT_FALSE(busy_loop_timed_out(start, at_ns(50 * 1024), 50));  // 50 units: not past
  EXPECT_FALSE(busy_loop_timed_out(start, at_ns(51 * 1024 - 1), 50));
  EXPECT_TRUE(busy_loop_timed_out(start, at_ns(51 * 1024), 50));  // 51.2 us for busy_read=50
  // 0 (busy_poll 0, only epoll with 6.13's prefer_busy_poll gets here): over after one iteration.
  EXPECT_TRUE(busy_loop_timed_out(start, start, 0));
  EXPECT_TRUE(busy_loop_timed_out(start, at_ns(1'000'000'000), 0));
}

TEST(napi_busy_loop, epoll_busy_polls_on_prefer_alone_only_with_the_6_13_rule) {
  EXPECT_FALSE(epoll_busy_loop_on(0, false, true));
  EXPECT_FALSE(epoll_busy_loop_on(0, true, false));  // before 6.13: prefer alone does nothing
  EXPECT_TRUE(epoll_busy_loop_on(0, true, true));    // ab5b28b007a7 (6.13)
  EXPECT_TRUE(epoll_busy_loop_on(64, false, false));
  EXPECT_TRUE(epoll_busy_loop_on(64, true, false));
}

// epoll_wait with prefer_busy_poll, busy_poll_usecs 0 and IRQ suspension (the suspend20 case of
// docs/research/irq-suspend-modes.md 2.4): one busy-poll iteration, busy_poll_stop's final poll,
// and with nothing found napi_resume_irqs, which schedules the context.
TEST(napi_busy_loop, the_6_13_epoll_loop_is_one_iteration_then_the_final_poll_then_resume) {
  Context napi(Config{.defer_hard_irqs = 100,
                      .gro_flush_timeout = microseconds(20),
                      .irq_suspend_timeout = milliseconds(20)});
  const Instant start = at_ns(1'000'000);
  ASSERT_TRUE(epoll_busy_loop_on(0, true, true));
  ASSERT_TRUE(napi.busy_poll_acquire(true));
  EXPECT_EQ(napi.busy_poll_begin(64), 64);
  EXPECT_EQ(napi.busy_poll_end(start, 0).completion, Completion::keep_masked);
  // The end test after the first iteration: no data, but the time (0 units) is up.
  EXPECT_TRUE(busy_loop_end(LoopEnd{}, LoopState{}, start, start, 0));
  EXPECT_EQ(napi.busy_poll_stop(start, true), start + microseconds(20));
  EXPECT_EQ(napi.final_poll_begin(), 64);
  EXPECT_EQ(napi.final_poll_end(start, 0).completion, Completion::keep_masked);  // deferral
  EXPECT_EQ(napi.owner(), Owner::none);
  EXPECT_EQ(napi.resume_irqs(), Schedule::raised);
  EXPECT_EQ(napi.owner(), Owner::softirq);
  EXPECT_EQ(napi.counters().busy_polls, 1U);
  EXPECT_EQ(napi.counters().final_polls, 1U);
}

TEST(napi_busy_loop, ends_on_data_or_the_seed_002_conditions_only_when_asked) {
  const Instant t = at_ns(0);
  const LoopState data{.data_ready = true};
  const LoopState empty{.rx_empty = true};
  const LoopState full{.tx_full = true};
  EXPECT_TRUE(busy_loop_end(LoopEnd{}, data, t, t, 50));
  EXPECT_FALSE(busy_loop_end(LoopEnd{}, empty, t, t, 50));
  EXPECT_FALSE(busy_loop_end(LoopEnd{}, full, t, t, 50));
  const LoopEnd xdp{.on_data = false, .on_rx_empty = true, .on_tx_full = true};
  EXPECT_TRUE(busy_loop_end(xdp, empty, t, t, 50));
  EXPECT_TRUE(busy_loop_end(xdp, full, t, t, 50));
  EXPECT_FALSE(busy_loop_end(xdp, data, t, t, 50));
  EXPECT_TRUE(busy_loop_end(xdp, LoopState{}, t, at_ns(51 * 1024), 50));
}

}  // namespace
}  // namespace irqmod::napi
