// The busy loop over a queue vector of a host built with napi.busy_read = 50 (a timeout of
// 51 x 1024 ns past the start's 1024 ns unit: 52 224 ns for a loop started at 0) and a quiet
// generator. The loop runs on core 0; the application thread, on core 1, waits in epoll_wait
// without busy polling, so this test's loop is the only poller. Each test drives the loop by
// hand: begin(), then next() whenever the segment it returned has passed.
#include "sim/napi/busy_loop.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/builder.hpp"
#include "sim/load_helpers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr const char* kScenario = R"(
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
moderation = "coalesce"
rx-usecs = 50
[napi]
busy_read = 50
[cpu]
cores = 2
app-core = 1
app-wait = "epoll"
napi-poll = 500
rx-packet = 700
busy-poll-iteration = 200
)";

constexpr std::int64_t kTimeout = 51 * 1024;

BusyPollSettings settings(Distribution iteration = Distribution::constant_ns(200)) {
  BusyPollSettings s;
  s.usecs = 50;
  s.budget = 8;
  s.iteration = iteration;
  return s;
}

struct Fixture {
  Fixture() {
    LoadResult loaded = load_scenario_text(kScenario, "test.toml", test::costs_only(kScenario, {}));
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().what());
    if (!loaded.ok()) return;
    scenario = loaded.value();
    const auto error = build(scenario, host);
    EXPECT_FALSE(error) << (error ? error->what() : "");
    host.port->update_watch();
  }
  QueueVector& vector() { return host.queue_vectors[0]; }
  napi::Context& napi() { return vector().napi().context(); }
  // The socket's emptiness as the application's busy loop asks it.
  DataReady ready() {
    return DataReady{[](const void* self) { return !static_cast<const Socket*>(self)->empty(); },
                     &socket()};
  }
  Core& core() { return host.cores[0]; }
  Socket& socket() { return host.sockets[0]; }
  // Lets the segment that started now pass.
  void pass(const Segment& segment) {
    const Instant end = world.now() + segment.length;
    Port& port = *host.port;
    world.engine.run_until(end, [&](const Event& event) {
      port.land(world.now());
      world.engine.dispatch(event);
      port.update_watch();
    });
  }

  Scenario scenario;
  World world;
  Host host{world};
};

TEST(busy_loop, the_first_iteration_owns_the_context_and_polls_it) {
  Fixture f;
  BusyLoop loop(settings());
  const Segment first = loop.begin(f.vector().napi(), f.core(), f.ready());
  EXPECT_EQ(f.napi().owner(), napi::Owner::busy_poller);
  EXPECT_TRUE(f.napi().test(napi::kStateInBusyPoll));
  EXPECT_EQ(f.napi().counters().busy_polls, 1U);
  EXPECT_EQ(f.world.report.cores[0].polls, 1U);
  EXPECT_EQ(first.length, nanoseconds(200));  // one iteration, nothing taken
  EXPECT_EQ(first.charge, ContextKind::busy_poll);
}

TEST(busy_loop, empty_iterations_after_the_first_jump_to_the_timeout_as_one_segment) {
  Fixture f;
  BusyLoop loop(settings());
  const Segment first = loop.begin(f.vector().napi(), f.core(), f.ready());
  f.pass(first);
  const std::optional<Segment> jump = loop.next(f.core());
  ASSERT_TRUE(jump);
  // Iterations start every 200 ns; the first to start at or after 52 224 ns starts at 52 400.
  EXPECT_EQ(jump->length, nanoseconds(52'400 - 200));
  EXPECT_EQ(f.napi().counters().busy_polls, 2U);
  f.pass(*jump);
  EXPECT_GE(ns_since_epoch(f.world.now()), kTimeout);
  // Timed out: busy_poll_stop, then the final poll (a fixed poll cost).
  const std::optional<Segment> final_poll = loop.next(f.core());
  ASSERT_TRUE(final_poll);
  EXPECT_EQ(final_poll->length, nanoseconds(500));
  EXPECT_FALSE(f.napi().test(napi::kStateInBusyPoll));
  f.pass(*final_poll);
  EXPECT_EQ(loop.next(f.core()), std::nullopt);
  EXPECT_EQ(f.napi().counters().final_polls, 1U);
  EXPECT_EQ(f.napi().owner(), napi::Owner::none);
  EXPECT_EQ(f.vector().vector().state(), napi::VectorState::armed);  // the final poll re-enabled
}

// __napi_busy_loop takes its start time at its entry (net/core/dev.c): a stall the loop's first
// segment begins with (the timer the thread's last poll armed, an IPI it sent) is spent before
// the window opens, so the timeout comes that much later: 10 us is 9 whole units of 1024 ns, the
// timeout (9 + 51) x 1024 = 61 440 ns, the first iteration to start at or after it at 61 600.
TEST(busy_loop, a_stall_the_loop_begins_with_opens_its_window_later) {
  Fixture f;
  f.core().stall(microseconds(10));
  BusyLoop loop(settings());
  const Segment first = loop.begin(f.vector().napi(), f.core(), f.ready());
  EXPECT_EQ(first.length, nanoseconds(200));  // the stall is added by the core (Core::call_job)
  f.pass(first);
  const std::optional<Segment> jump = loop.next(f.core());
  ASSERT_TRUE(jump);
  EXPECT_EQ(jump->length, nanoseconds(61'600 - 200));
}

TEST(busy_loop, the_jump_stops_at_the_next_write_back_and_a_frame_ends_the_loop) {
  Fixture f;
  f.host.port->inject(Packet{10'000, 64, 0});  // written back at 10 800 ns
  BusyLoop loop(settings());
  f.pass(loop.begin(f.vector().napi(), f.core(), f.ready()));
  const std::optional<Segment> jump = loop.next(f.core());
  ASSERT_TRUE(jump);
  EXPECT_EQ(jump->length, nanoseconds(10'800 - 200));
  f.pass(*jump);
  const std::optional<Segment> taking = loop.next(f.core());
  ASSERT_TRUE(taking);
  EXPECT_EQ(taking->length, nanoseconds(200 + 700));  // an iteration and one frame
  f.pass(*taking);
  // The poll's frame reached the socket: the loop stops, with the final poll.
  const std::optional<Segment> final_poll = loop.next(f.core());
  EXPECT_FALSE(f.socket().empty());
  ASSERT_TRUE(final_poll);
  EXPECT_EQ(final_poll->length, nanoseconds(500));
  EXPECT_EQ(f.napi().counters().final_polls, 1U);
  f.pass(*final_poll);
  EXPECT_EQ(loop.next(f.core()), std::nullopt);
  EXPECT_EQ(f.napi().owner(), napi::Owner::none);
  EXPECT_EQ(f.vector().rx_cleaned(), 1U);
}

TEST(busy_loop, a_loop_that_never_owned_the_context_polls_nothing_and_ends_without_a_final_poll) {
  Fixture f;
  ASSERT_EQ(f.napi().schedule(), napi::Schedule::raised);  // the softirq holds it
  BusyLoop loop(settings());
  Segment segment = loop.begin(f.vector().napi(), f.core(), f.ready());
  EXPECT_EQ(segment.length, nanoseconds(200));
  int iterations = 1;
  while (true) {
    f.pass(segment);
    const std::optional<Segment> next = loop.next(f.core());
    if (!next) break;
    segment = *next;
    ++iterations;
  }
  // One iteration of 200 ns at a time (no jump without the context) until 52 400 ns.
  EXPECT_EQ(iterations, 52'400 / 200);
  EXPECT_EQ(f.napi().counters().busy_polls, 0U);
  EXPECT_EQ(f.napi().counters().busy_poll_misses, static_cast<std::uint64_t>(iterations));
  EXPECT_EQ(f.napi().counters().final_polls, 0U);
  EXPECT_EQ(f.napi().owner(), napi::Owner::softirq);
  EXPECT_EQ(f.world.report.cores[0].polls, 0U);
}

TEST(busy_loop, with_a_random_iteration_cost_the_jump_is_made_of_draws) {
  Fixture f;
  const Distribution iteration{DistributionKind::uniform, 100, 300, 0};
  // The same draws as core 0's own stream gives them: the first iteration, then the jump.
  World twin_world;
  Core twin(twin_world, 0, Rng(f.scenario.scenario.seed, stream::kCpuCosts), milliseconds(1));
  const Duration first_draw = twin.cost(iteration);
  Duration expected = twin.cost(iteration);
  while (first_draw + expected < nanoseconds(kTimeout))
    expected += twin.cost(iteration);

  BusyLoop loop(settings(iteration));
  const Segment first = loop.begin(f.vector().napi(), f.core(), f.ready());
  EXPECT_EQ(first.length, first_draw);
  f.pass(first);
  const std::optional<Segment> jump = loop.next(f.core());
  ASSERT_TRUE(jump);
  EXPECT_EQ(jump->length, expected);
}

}  // namespace
}  // namespace irqmod::sim
