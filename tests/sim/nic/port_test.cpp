// The port, in hosts built from small scenarios on a 1 Gbit/s link (a 64-byte frame holds the
// wire 672 ns and arrives 576 ns after it starts) with an 800 ns DMA delay: lazy landing of the
// frames written back up to a time into their queues, single injected frames with an event of
// their own, the watch event armed only while a vector must react to the next frame, and Tx
// write-backs merged with arrivals in time order.
#include "sim/nic/port.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "sim/builder.hpp"
#include "sim/load_helpers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr const char* kLink = R"(
[scenario]
duration = "1s"
[link]
speed = "1G"
)";

// One queue, 1 Mpps of 64-byte frames, rx-usecs 50.
constexpr const char* kOneQueue = R"(
[traffic]
kind = "constant"
rate = 1000000
[nic]
dma-delay = 800
moderation = "coalesce"
rx-usecs = 50
)";

// Two entries of 500 kpps each steered to queues 0 and 1. Offered together, the first entry's
// frame goes first: queue 0's frames arrive at 576 + k x 2000 ns, queue 1's at 1248 + k x 2000.
constexpr const char* kTwoQueues = R"(
[traffic]
kind = "constant"
rate = 500000
steering = "queue"
queue = 0
[[flow]]
kind = "constant"
rate = 500000
steering = "queue"
queue = 1
[nic]
queues = 2
dma-delay = 800
moderation = "coalesce"
rx-usecs = 50
)";

// A host built from `text`, run the way simulate() runs it, recording each event's time.
struct Fixture {
  explicit Fixture(const std::string& text, const std::vector<std::string>& sets = {}) {
    LoadResult loaded = load_scenario_text(std::string(kLink) + text, "test.toml",
                                           test::costs_only(std::string(kLink) + text, sets));
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().what());
    if (!loaded.ok()) return;
    scenario = loaded.value();
    const auto error = build(scenario, host);
    EXPECT_FALSE(error) << (error ? error->what() : "");
    port().update_watch();
  }
  Port& port() { return *host.port; }
  std::uint64_t arrived(std::size_t queue) const { return host.rx_queues[queue].arrived(); }
  void run_to(std::int64_t ns) {
    world.engine.run_until(at_ns(ns), [&](const Event& event) {
      events.push_back(ns_since_epoch(world.now()));
      port().land(world.now());
      world.engine.dispatch(event);
      port().update_watch();
    });
  }

  Scenario scenario;
  World world;
  Host host{world};
  std::vector<std::int64_t> events;  // when each event ran
};

TEST(port, land_lands_exactly_the_frames_written_back_up_to_a_time_into_their_queues) {
  Fixture f(kTwoQueues);
  f.port().land(at_ns(1375));
  EXPECT_EQ(f.arrived(0), 0U);
  EXPECT_EQ(f.arrived(1), 0U);
  f.port().land(at_ns(1376));  // 576 + 800
  EXPECT_EQ(f.arrived(0), 1U);
  EXPECT_EQ(f.arrived(1), 0U);
  f.port().land(at_ns(2047));
  EXPECT_EQ(f.arrived(1), 0U);
  f.port().land(at_ns(2048));  // 1248 + 800
  EXPECT_EQ(f.arrived(0), 1U);
  EXPECT_EQ(f.arrived(1), 1U);
  f.port().land(at_ns(10'000));
  EXPECT_EQ(f.arrived(0), 5U);  // 1376, 3376, ..., 9376
  EXPECT_EQ(f.arrived(1), 4U);  // 2048, 4048, ..., 8048
  EXPECT_EQ(f.host.rx_queues[0].newest().flow, 0U);
  EXPECT_EQ(f.host.rx_queues[1].newest().flow, 1U);
  EXPECT_EQ(f.host.rx_queues[1].newest().arrival_ns, 7248);
}

TEST(port, next_writeback_is_the_next_frames_write_back_over_all_queues) {
  Fixture f(kTwoQueues);
  EXPECT_EQ(f.port().next_writeback(), at_ns(1376));
  f.port().land(at_ns(1376));
  EXPECT_EQ(f.port().next_writeback(), at_ns(2048));
  f.port().land(at_ns(2048));
  EXPECT_EQ(f.port().next_writeback(), at_ns(3376));
}

TEST(port, inject_lands_a_single_frame_at_its_write_back_with_an_event_of_its_own) {
  // The ping-pong client sends its first 64-byte request at 0: it arrives at 576 ns.
  Fixture f(R"(
[traffic]
kind = "ping-pong"
[nic]
dma-delay = 800
rx-usecs = 50
)");
  EXPECT_EQ(f.port().next_writeback(), at_ns(1376));
  EXPECT_EQ(f.world.engine.next_time(), at_ns(1376));
  f.run_to(1375);
  EXPECT_EQ(f.arrived(0), 0U);
  f.run_to(1376);
  EXPECT_EQ(f.events, std::vector<std::int64_t>{1376});
  ASSERT_EQ(f.arrived(0), 1U);
  EXPECT_EQ(f.host.rx_queues[0].newest().arrival_ns, 576);
  EXPECT_EQ(f.port().next_writeback(), Instant::max());
  // A second frame injected by hand takes the same path.
  f.port().inject(Packet{5000, 64, 0});
  EXPECT_EQ(f.port().next_writeback(), at_ns(5800));
  f.run_to(5800);
  EXPECT_EQ(f.arrived(0), 2U);
  EXPECT_EQ(f.host.rx_queues[0].newest().arrival_ns, 5000);
}

TEST(port, watches_only_the_first_frame_while_rx_usecs_counts_time) {
  Fixture f(kOneQueue);
  f.run_to(51'375);
  // The first write-back is the coalescer's first cause; the frames after it change nothing
  // until its deadline, so none of them gets an event.
  EXPECT_EQ(f.events, std::vector<std::int64_t>{1376});
  EXPECT_EQ(f.arrived(0), 1U);  // the others wait for whatever event comes next
  f.run_to(51'376);             // the deadline, then the interrupt and the poll it starts
  ASSERT_GE(f.events.size(), 2U);
  EXPECT_EQ(f.events[1], 51'376);
  EXPECT_EQ(f.arrived(0), 51U);  // 1376, 2376, ..., 51 376
}

TEST(port, watches_every_frame_while_rx_frames_counts_them) {
  Fixture f(kOneQueue, {"nic.rx-frames=4"});
  f.run_to(4376);
  ASSERT_GE(f.events.size(), 4U);
  EXPECT_EQ(std::vector<std::int64_t>(f.events.begin(), f.events.begin() + 4),
            (std::vector<std::int64_t>{1376, 2376, 3376, 4376}));
  EXPECT_EQ(f.arrived(0), 4U);
}

TEST(port, with_tx_interrupts_lands_tx_write_backs_in_time_order_with_arrivals) {
  // Tx completions interrupt at once (tx-frames 1); Rx frames arrive from 1576 ns (a constant
  // 1000 ns jitter), written back from 2376 ns.
  Fixture f(kOneQueue, {"nic.tx-interrupts=true", "nic.moderation=none", "nic.tx-usecs=0",
                        "nic.tx-frames=1", "traffic.jitter=1000"});
  TxQueue& tx = f.host.tx_queues[0];
  tx.send_reply(Packet{0, 64, 0});  // leaves the wire at 672 ns: written back at 1472
  tx.send_reply(Packet{0, 64, 0});  // at 1344 ns: written back at 2144
  EXPECT_EQ(f.port().next_writeback(), at_ns(1472));
  f.port().land(at_ns(2376));
  EXPECT_EQ(tx.next_writeback(), Instant::max());
  EXPECT_EQ(f.arrived(0), 1U);
  const napi::Vector& vector = f.host.queue_vectors[0].vector();
  EXPECT_EQ(vector.counters().causes, 3U);
  // The earliest cause, a Tx completion, set the interrupt's time: Tx landed before Rx.
  EXPECT_EQ(vector.due(), at_ns(1472));
  EXPECT_EQ(f.port().next_writeback(), at_ns(3376));
}

TEST(port, with_tx_interrupts_lands_only_the_tx_write_backs_up_to_a_time) {
  Fixture f(kOneQueue,
            {"nic.tx-interrupts=true", "nic.tx-usecs=0", "nic.tx-frames=1", "traffic.jitter=1000"});
  TxQueue& tx = f.host.tx_queues[0];
  tx.send_reply(Packet{0, 64, 0});
  tx.send_reply(Packet{0, 64, 0});
  f.port().land(at_ns(1471));
  EXPECT_EQ(tx.next_writeback(), at_ns(1472));
  f.port().land(at_ns(2143));
  EXPECT_EQ(tx.next_writeback(), at_ns(2144));
  EXPECT_EQ(f.arrived(0), 0U);
}

}  // namespace
}  // namespace irqmod::sim
