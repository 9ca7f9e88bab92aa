// Generators merged on one wire: the single-source path against ArrivalStream, two sources
// sharing the link, tuples in turn, arrival jitter, and a source that finishes.
#include "sim/nic/arrivals.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/link.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint64_t k10G = 10'000'000'000;
constexpr Distribution kNoJitter = Distribution::constant_ns(0);

struct Frame {
  std::int64_t arrival_ns;
  std::uint32_t frame_bytes;
  std::uint32_t flow;
  friend bool operator==(const Frame&, const Frame&) = default;
};

// The first `n` frames, asking for each arrival time in turn (as the port does).
template <typename Source>
std::vector<Frame> first_frames(Source& source, std::size_t n) {
  std::vector<Frame> frames;
  while (frames.size() < n && source.next_arrival() != Instant::max()) {
    source.take_until(source.next_arrival(), [&](const Packet& p) {
      frames.push_back({p.arrival_ns, p.frame_bytes, p.flow});
    });
  }
  return frames;
}

std::vector<Frame> frames_until(LinkArrivals& arrivals, Instant until) {
  std::vector<Frame> frames;
  arrivals.take_until(until, [&](const Packet& p) {
    frames.push_back({p.arrival_ns, p.frame_bytes, p.flow});
  });
  return frames;
}

Generator constant_rate(std::uint64_t per_second, std::uint32_t frame_bytes) {
  return ConstantRate(Spacing::per_second(per_second), frame_bytes);
}

TEST(arrivals, gives_nothing_before_start) {
  LinkArrivals arrivals{Link(k10G)};
  EXPECT_TRUE(arrivals.empty());
  arrivals.add_source(constant_rate(1'000'000, 64), Rng(1), 0, 1, kNoJitter, Rng(2));
  EXPECT_FALSE(arrivals.empty());
  EXPECT_EQ(arrivals.next_arrival(), Instant::max());
  arrivals.start();
  EXPECT_NE(arrivals.next_arrival(), Instant::max());
}

TEST(arrivals, with_one_source_gives_what_an_arrival_stream_gives) {
  const Generator poisson = Poisson(2'000'000, 512);
  ArrivalStream stream(poisson, Link(k10G), Rng(42, 1), 7);
  LinkArrivals arrivals{Link(k10G)};
  arrivals.add_source(poisson, Rng(42, 1), 7, 1, kNoJitter, Rng(42, 2));
  arrivals.start();
  const std::vector<Frame> expected = first_frames(stream, 10'000);
  const std::vector<Frame> got = first_frames(arrivals, 10'000);
  ASSERT_EQ(expected.size(), 10'000U);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(arrivals.taken(), stream.taken());
  EXPECT_EQ(arrivals.link().frames(), stream.link().frames());
}

TEST(arrivals, with_one_source_matches_an_arrival_stream_at_line_rate_too) {
  // Offers faster than the wire: every frame waits for the one before.
  const Generator burst = ConstantRate(Spacing::fixed(10'000), 1518);
  ArrivalStream stream(burst, Link(k10G), Rng(3), 0);
  LinkArrivals arrivals{Link(k10G)};
  arrivals.add_source(burst, Rng(3), 0, 1, kNoJitter, Rng(4));
  arrivals.start();
  EXPECT_EQ(first_frames(arrivals, 10'000), first_frames(stream, 10'000));
}

TEST(arrivals, serialises_two_sources_on_one_wire_without_overlap) {
  const Link link(k10G);
  LinkArrivals arrivals{link};
  arrivals.add_source(constant_rate(400'000, 1518), Rng(1), 0, 1, kNoJitter, Rng(2));  // 2.5 us
  arrivals.add_source(constant_rate(1'000'000, 64), Rng(3), 1, 1, kNoJitter, Rng(4));  // 1 us
  arrivals.start();
  const std::vector<Frame> frames = frames_until(arrivals, Instant{milliseconds(1)});
  ASSERT_GT(frames.size(), 1000U);
  for (std::size_t i = 1; i < frames.size(); ++i) {
    // A frame's last bit comes at least its whole wire time after the one before.
    const std::int64_t wire_ns = link.occupancy_ps(frames[i].frame_bytes) / 1000;
    EXPECT_GE(frames[i].arrival_ns - frames[i - 1].arrival_ns, wire_ns) << "frame " << i;
  }
  // Each source's k-th frame arrives after its offer (k x its gap), delayed by at most the
  // frame ahead of it on the wire.
  std::vector<std::int64_t> count(2);
  for (const Frame& f : frames) {
    ASSERT_LT(f.flow, 2U);
    const std::int64_t gap_ns = f.flow == 0 ? 2500 : 1000;
    const std::int64_t offer_ns = count[f.flow]++ * gap_ns;
    EXPECT_GE(f.arrival_ns, offer_ns + link.reception_ps(f.frame_bytes) / 1000);
    EXPECT_LE(f.arrival_ns, offer_ns + (link.occupancy_ps(1518) + link.reception_ps(64)) / 1000 +
                                1 + link.reception_ps(f.frame_bytes) / 1000);
  }
  EXPECT_GE(count[0], 399);
  EXPECT_LE(count[0], 400);
  EXPECT_GE(count[1], 999);
  EXPECT_LE(count[1], 1000);
  EXPECT_EQ(arrivals.taken(), frames.size());
}

TEST(arrivals, sends_the_earlier_offer_first_and_the_first_listed_on_a_tie) {
  LinkArrivals arrivals{Link(k10G)};
  arrivals.add_source(ConstantRate(Spacing::fixed(5'000'000), 64, 1'000'000), Rng(1), 10, 1,
                      kNoJitter, Rng(2));  // offers at 1, 6, 11 us
  arrivals.add_source(ConstantRate(Spacing::fixed(5'000'000), 64, 0), Rng(3), 20, 1, kNoJitter,
                      Rng(4));  // offers at 0, 5, 10 us
  arrivals.add_source(ConstantRate(Spacing::fixed(5'000'000), 64, 1'000'000), Rng(5), 30, 1,
                      kNoJitter, Rng(6));  // ties with the first
  arrivals.start();
  std::vector<std::uint32_t> flows;
  for (const Frame& f : frames_until(arrivals, Instant{microseconds(10)}))
    flows.push_back(f.flow);
  EXPECT_EQ(flows, (std::vector<std::uint32_t>{20, 10, 30, 20, 10, 30}));
}

TEST(arrivals, rotates_a_sources_frames_over_its_tuples) {
  LinkArrivals arrivals{Link(k10G)};
  arrivals.add_source(constant_rate(1'000'000, 64), Rng(1), 5, 3, kNoJitter, Rng(2));
  arrivals.start();
  std::vector<std::uint32_t> flows;
  for (const Frame& f : first_frames(arrivals, 7))
    flows.push_back(f.flow);
  EXPECT_EQ(flows, (std::vector<std::uint32_t>{5, 6, 7, 5, 6, 7, 5}));
}

TEST(arrivals, rotates_tuples_per_source_when_two_share_the_wire) {
  LinkArrivals arrivals{Link(k10G)};
  arrivals.add_source(constant_rate(1'000'000, 64), Rng(1), 0, 2, kNoJitter, Rng(2));
  arrivals.add_source(ConstantRate(Spacing::per_second(1'000'000), 64, 500'000), Rng(3), 2, 3,
                      kNoJitter, Rng(4));
  arrivals.start();
  std::vector<std::uint32_t> flows;
  for (const Frame& f : first_frames(arrivals, 10))
    flows.push_back(f.flow);
  EXPECT_EQ(flows, (std::vector<std::uint32_t>{0, 2, 1, 3, 0, 4, 1, 2, 0, 3}));
}

TEST(arrivals, delays_every_arrival_by_a_constant_jitter) {
  LinkArrivals plain{Link(k10G)};
  plain.add_source(constant_rate(100'000, 64), Rng(1), 0, 1, kNoJitter, Rng(2));
  plain.start();
  LinkArrivals jittered{Link(k10G)};
  jittered.add_source(constant_rate(100'000, 64), Rng(1), 0, 1, Distribution::constant_ns(3000),
                      Rng(2));
  jittered.start();
  const std::vector<Frame> a = first_frames(plain, 1000);
  const std::vector<Frame> b = first_frames(jittered, 1000);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(b[i].arrival_ns - a[i].arrival_ns, 3000) << "frame " << i;
}

std::vector<Frame> jittered_frames(std::uint64_t jitter_seed) {
  LinkArrivals arrivals{Link(k10G)};
  const Distribution jitter{DistributionKind::uniform, 0, 2000, 0};
  arrivals.add_source(constant_rate(100'000, 64), Rng(1), 0, 1, jitter, Rng(jitter_seed, 2));
  arrivals.start();
  return first_frames(arrivals, 1000);
}

TEST(arrivals, reproduces_a_random_jitter_from_its_seed) {
  const std::vector<Frame> first = jittered_frames(7);
  EXPECT_EQ(jittered_frames(7), first);
  EXPECT_NE(jittered_frames(8), first);
  LinkArrivals plain{Link(k10G)};
  plain.add_source(constant_rate(100'000, 64), Rng(1), 0, 1, kNoJitter, Rng(2));
  plain.start();
  const std::vector<Frame> unjittered = first_frames(plain, 1000);
  int moved = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const std::int64_t delay = first[i].arrival_ns - unjittered[i].arrival_ns;
    EXPECT_GE(delay, 0);
    EXPECT_LE(delay, 2000);
    moved += delay != 0 ? 1 : 0;
  }
  EXPECT_GT(moved, 900);
}

TEST(arrivals, keeps_sending_the_other_source_after_a_capture_ends) {
  auto trace = std::make_shared<Trace>();
  trace->file = "in-memory";
  trace->records = {{0, 100}, {1000, 200}, {2000, 300}};
  LinkArrivals arrivals{Link(k10G)};
  arrivals.add_source(TraceReplay(trace, false, 500'000), Rng(1), 0, 1, kNoJitter, Rng(2));
  arrivals.add_source(constant_rate(1'000'000, 64), Rng(3), 1, 1, kNoJitter, Rng(4));
  arrivals.start();
  const std::vector<Frame> frames = frames_until(arrivals, Instant{microseconds(20)});
  std::vector<std::uint32_t> replayed;
  int constant = 0;
  for (const Frame& f : frames) {
    if (f.flow == 0) replayed.push_back(f.frame_bytes);
    constant += f.flow == 1 ? 1 : 0;
  }
  EXPECT_EQ(replayed, (std::vector<std::uint32_t>{100, 200, 300}));
  EXPECT_EQ(constant, 20);  // offers at 0, 1, ... 19 us
  ASSERT_NE(arrivals.next_arrival(), Instant::max());
  EXPECT_EQ(frames_until(arrivals, Instant{microseconds(100)}).size(), 80U);
}

TEST(arrivals, ends_when_its_only_source_ends) {
  auto trace = std::make_shared<Trace>();
  trace->file = "in-memory";
  trace->records = {{0, 64}, {1000, 64}};
  LinkArrivals arrivals{Link(k10G)};
  arrivals.add_source(TraceReplay(trace, false), Rng(1), 0, 1, kNoJitter, Rng(2));
  arrivals.start();
  EXPECT_EQ(first_frames(arrivals, 10).size(), 2U);
  EXPECT_EQ(arrivals.next_arrival(), Instant::max());
  EXPECT_EQ(frames_until(arrivals, Instant{seconds(10)}).size(), 0U);
}

}  // namespace
}  // namespace irqmod::sim
