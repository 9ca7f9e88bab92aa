// NET_RX and ksoftirqd over fake NAPI contexts: restarts and their limits, the repoll order, the
// frame and time budgets of a pass, contexts joining a pass, stale entries.
#include "sim/cpu/net_rx.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "irqmod/sim/random.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/scheduler.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

Duration us(std::int64_t n) {
  return microseconds(n);
}
Instant at_us(std::int64_t n) {
  return Instant{microseconds(n)};
}

// A NAPI context with a scripted poll: `weight_polls` polls that use the whole weight (and put
// the context back on the list, as napi_poll does), then polls that clean `frames` and complete.
// A context may also schedule a partner from its poll's end while `chain` allows.
struct FakeNapi {
  NetRx* net_rx = nullptr;
  int id = 0;
  int weight_polls = 0;  // -1: always uses its weight
  int weight = 64;
  int frames = 10;
  Duration poll_time = us(10);
  bool stale = false;
  FakeNapi* partner = nullptr;
  int* chain = nullptr;             // partner schedules left, shared by the pair
  std::vector<int>* log = nullptr;  // poll order across contexts
  std::vector<Duration> more;       // each poll's later parts (nic.rx-clean = "per-descriptor")
  std::size_t part = 0;             // of them, the next
  std::vector<Instant> began;
  int softirq_polls = 0;
  int ksoftirqd_polls = 0;

  NapiRef ref();
  int polls() const { return softirq_polls + ksoftirqd_polls; }
};

bool fake_take(void* self, const Core&) {
  return !static_cast<FakeNapi*>(self)->stale;
}

Duration fake_poll_begin(void* self, Core& core) {
  auto& napi = *static_cast<FakeNapi*>(self);
  napi.began.push_back(core.now());
  napi.part = 0;
  return napi.poll_time;
}

std::optional<Duration> fake_poll_more(void* self, Core&) {
  auto& napi = *static_cast<FakeNapi*>(self);
  if (napi.part == napi.more.size()) return std::nullopt;
  return napi.more[napi.part++];
}

int fake_poll_end(void* self, Core& core) {
  auto& napi = *static_cast<FakeNapi*>(self);
  ++(core.jobs_at(Level::softirq) > 0 ? napi.softirq_polls : napi.ksoftirqd_polls);
  if (napi.log) napi.log->push_back(napi.id);
  if (napi.partner && *napi.chain > 0) {
    --*napi.chain;
    napi.net_rx->schedule(napi.partner->ref());
  }
  if (napi.weight_polls == 0) return napi.frames;
  if (napi.weight_polls > 0) --napi.weight_polls;
  napi.net_rx->schedule(napi.ref());
  return napi.weight;
}

constexpr NapiOps kFakeOps{&fake_take, &fake_poll_begin, &fake_poll_more, &fake_poll_end};

NapiRef FakeNapi::ref() {
  return NapiRef{&kFakeOps, this};
}

// The hardirq that schedules contexts (the driver's handler calling napi_schedule).
struct Interrupt {
  std::function<void()> handler;
  std::optional<Segment> start(Core&) { return Segment{us(1), ContextKind::hardirq, "irq"}; }
  std::optional<Segment> next(Core&) {
    handler();
    return std::nullopt;
  }
};

struct OneCore {
  explicit OneCore(std::size_t contexts, NetRx::Budget budget = {})
      : core(world, 0, Rng(1), kernel_slice(1)), net_rx(core, budget, contexts) {
    world.report.cpu = CpuTime(1);
    world.report.cores.resize(1);
    napis.resize(contexts);
    for (std::size_t i = 0; i < contexts; ++i) {
      napis[i].net_rx = &net_rx;
      napis[i].id = static_cast<int>(i);
      napis[i].log = &log;
    }
  }
  // An interrupt at now that schedules `which`, in that order.
  void interrupt(std::vector<std::size_t> which) {
    irq.handler = [this, which = std::move(which)] {
      for (std::size_t i : which)
        net_rx.schedule(napis[i].ref());
    };
    core.push(job_of(irq), Level::hardirq);
  }
  void run_to(Instant t) { world.engine.run_until(t); }
  Duration busy(ContextKind kind) const { return world.report.cpu.busy(0, kind); }
  int softirq_polls() const {
    int n = 0;
    for (const FakeNapi& napi : napis)
      n += napi.softirq_polls;
    return n;
  }

  World world;
  Core core;
  NetRx net_rx;
  std::vector<FakeNapi> napis;
  std::vector<int> log;
  Interrupt irq;
};

std::vector<int> round_robin(int contexts, int polls) {
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(polls));
  for (int i = 0; i < polls; ++i)
    order.push_back(i % contexts);
  return order;
}

TEST(net_rx, restarts_the_softirq_ten_times_then_hands_a_busy_context_to_ksoftirqd) {
  OneCore c(1);
  c.napis[0].weight_polls = 14;  // 15 polls, the last one completes
  c.interrupt({0});
  c.run_to(at_us(10'000));
  EXPECT_EQ(c.napis[0].softirq_polls, 10);  // MAX_SOFTIRQ_RESTART
  EXPECT_EQ(c.napis[0].ksoftirqd_polls, 5);
  EXPECT_EQ(c.busy(ContextKind::softirq), us(100));
  EXPECT_EQ(c.busy(ContextKind::ksoftirqd), us(50));
  // The polls follow each other without a gap, first in the softirq, then in the thread.
  ASSERT_EQ(c.napis[0].began.size(), 15U);
  for (std::size_t i = 0; i < 15; ++i)
    EXPECT_EQ(c.napis[0].began[i], at_us(1 + 10 * static_cast<std::int64_t>(i))) << "poll " << i;
  EXPECT_EQ(c.net_rx.listed(), 0U);
}

TEST(net_rx, runs_every_part_of_a_poll_before_its_end_and_the_next_poll) {
  OneCore c(2);
  c.napis[0].more = {us(3), us(7)};  // 10 + 3 + 7 us
  c.interrupt({0, 1});
  c.run_to(at_us(1'000));
  EXPECT_EQ(c.log, (std::vector<int>{0, 1}));
  ASSERT_EQ(c.napis[1].began.size(), 1U);
  EXPECT_EQ(c.napis[1].began[0], at_us(1 + 20));  // after all three parts of the first
  EXPECT_EQ(c.busy(ContextKind::softirq), us(30));
}

TEST(net_rx, hands_a_busy_context_to_ksoftirqd_after_two_milliseconds_of_restarts) {
  OneCore c(1);
  c.napis[0].weight_polls = 9;
  c.napis[0].poll_time = us(300);
  c.interrupt({0});
  c.run_to(at_us(10'000));
  // Passes end at 300, 600, ... 2100 us after the first began: the seventh reaches 2 ms.
  EXPECT_EQ(c.napis[0].softirq_polls, 7);
  EXPECT_EQ(c.napis[0].ksoftirqd_polls, 3);
  EXPECT_EQ(c.busy(ContextKind::softirq), us(2100));
}

TEST(net_rx, polls_a_context_that_used_its_weight_once_per_pass_behind_the_others) {
  OneCore c(2);
  c.napis[0].weight_polls = 12;
  c.napis[1].weight_polls = 12;
  c.interrupt({0, 1});
  c.run_to(at_us(10'000));
  // Two polls per pass (128 of the 300 frames): ten passes in the softirq, A, B, A, B, ...
  EXPECT_EQ(c.log, round_robin(2, 26));
  EXPECT_EQ(c.napis[0].softirq_polls, 10);
  EXPECT_EQ(c.napis[1].softirq_polls, 10);
  EXPECT_EQ(c.napis[0].ksoftirqd_polls, 3);
  EXPECT_EQ(c.napis[1].ksoftirqd_polls, 3);
}

TEST(net_rx, ends_a_pass_when_five_polls_of_64_frames_used_the_300_frame_budget) {
  OneCore c(6);
  for (FakeNapi& napi : c.napis)
    napi.weight_polls = 20;
  c.interrupt({0, 1, 2, 3, 4, 5});
  c.run_to(at_us(10'000));
  // Six contexts listed, five polled per pass: the sixth opens the next pass, then the repolls.
  EXPECT_EQ(c.softirq_polls(), 50);  // ten passes
  EXPECT_EQ(c.log, round_robin(6, 6 * 21));
}

TEST(net_rx, ends_a_pass_at_netdev_budget_usecs_when_polls_are_long) {
  OneCore c(4, NetRx::Budget{300, us(100)});
  for (FakeNapi& napi : c.napis) {
    napi.weight_polls = 20;
    napi.poll_time = us(40);
  }
  c.interrupt({0, 1, 2, 3});
  c.run_to(at_us(20'000));
  // 192 frames, but 120 us after three polls: the fourth context waits for the next pass.
  EXPECT_EQ(c.softirq_polls(), 30);  // ten passes
  EXPECT_EQ(c.log, round_robin(4, 4 * 21));
}

TEST(net_rx, polls_contexts_scheduled_during_a_pass_that_drains_its_list_in_the_same_pass) {
  OneCore c(2);
  int chain = 14;  // X schedules Y, Y schedules X, ...: 15 polls
  c.napis[0].partner = &c.napis[1];
  c.napis[1].partner = &c.napis[0];
  c.napis[0].chain = &chain;
  c.napis[1].chain = &chain;
  c.interrupt({0});
  c.run_to(at_us(10'000));
  // 150 frames in one pass: no restart is used, so no poll is left for ksoftirqd.
  EXPECT_EQ(c.log, round_robin(2, 15));
  EXPECT_EQ(c.softirq_polls(), 15);
  EXPECT_EQ(c.busy(ContextKind::ksoftirqd), Duration::zero());
  EXPECT_EQ(c.busy(ContextKind::softirq), us(150));
}

TEST(net_rx, skips_a_stale_entry_without_polling_it) {
  OneCore c(2);
  c.napis[0].stale = true;
  c.interrupt({0, 1});
  c.run_to(at_us(1000));
  EXPECT_EQ(c.napis[0].polls(), 0);
  EXPECT_TRUE(c.napis[0].began.empty());
  EXPECT_EQ(c.napis[1].began, std::vector<Instant>{at_us(1)});
  EXPECT_EQ(c.log, std::vector<int>{1});
  EXPECT_EQ(c.busy(ContextKind::softirq), us(10));
  EXPECT_EQ(c.net_rx.listed(), 0U);
}

TEST(net_rx, lists_contexts_waiting_in_the_pass_or_for_the_next_one_but_not_the_one_polled) {
  OneCore c(2);
  c.napis[0].weight_polls = 1;  // polled in two passes
  c.interrupt({0, 1});
  EXPECT_EQ(c.net_rx.listed(), 0U);
  c.run_to(at_us(5));  // polling A; B waits in the pass
  EXPECT_EQ(c.net_rx.listed(), 1U);
  c.run_to(at_us(15));  // polling B; A waits for the next pass
  EXPECT_EQ(c.net_rx.listed(), 1U);
  c.run_to(at_us(25));  // A's last poll
  EXPECT_EQ(c.net_rx.listed(), 0U);
  c.run_to(at_us(100));
  EXPECT_EQ(c.log, (std::vector<int>{0, 1, 0}));
}

}  // namespace
}  // namespace irqmod::sim
