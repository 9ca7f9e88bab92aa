// net_dim against a deliberately naive second rendering of the kernel's rules
// (naive_dim.hpp), over 100 000 random sample sequences with a fixed seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "irqmod/policy/dim.hpp"
#include "naive_dim.hpp"

namespace irqmod::dim {
namespace {

// Compares every field the two renderings share; returns a description of the first mismatch.
std::string mismatch(const State& real, const naive_dim::Dim& ref) {
  const auto field = [](const char* name, long long a, long long b) -> std::string {
    return a == b
               ? ""
               : std::string(name) + ": real " + std::to_string(a) + " naive " + std::to_string(b);
  };
  const std::string checks[] = {
      field("state", static_cast<int>(real.state), ref.state),
      field("tune_state", static_cast<int>(real.tune_state), ref.tune_state),
      field("profile_ix", real.profile_ix, ref.profile_ix),
      field("steps_right", real.steps_right, ref.steps_right),
      field("steps_left", real.steps_left, ref.steps_left),
      field("tired", real.tired, ref.tired),
      field("prev_bpms", real.prev_stats.bpms, ref.prev_bpms),
      field("prev_ppms", real.prev_stats.ppms, ref.prev_ppms),
      field("prev_epms", real.prev_stats.epms, ref.prev_epms),
      field("start_time", ns_since_epoch(real.start_sample.time), ref.start_time_ns),
      field("start_events", real.start_sample.event_ctr, ref.start_events),
      field("start_pkts", real.start_sample.pkt_ctr, ref.start_pkts),
      field("start_bytes", real.start_sample.byte_ctr, ref.start_bytes),
  };
  for (const std::string& c : checks)
    if (!c.empty()) return c;
  return {};
}

TEST(dim_property, matches_a_naive_rendering_of_the_kernel_on_100000_random_sequences) {
  std::mt19937_64 rng(20261129);
  constexpr int kSequences = 100'000;
  std::uint64_t decisions = 0;
  std::uint64_t applies = 0;
  std::uint64_t tired_parks = 0;
  for (int seq = 0; seq < kSequences; ++seq) {
    NetDim real(default_profiles(Direction::rx, CqPeriodMode::start_from_eqe));
    naive_dim::Dim ref;
    // Each sequence has its own traffic character, so that all regimes are visited: steady,
    // noisy, bursty, nearly idle, wrapping counters, zero-time samples.
    const std::uint64_t base_pkts = rng() % 200;
    const std::uint64_t noise = rng() % 4 == 0 ? 0 : rng() % 100 + 1;
    const std::int64_t base_gap_ns = static_cast<std::int64_t>(rng() % 400'000);
    long long t = static_cast<long long>(rng() % 1'000'000'000);
    std::uint64_t events = rng() % 3 == 0 ? 65536 - rng() % 500 : rng() % 65536;
    std::uint64_t pkts = rng() % 3 == 0 ? 0xFFFFFFFFULL - rng() % 100000 : rng();
    std::uint64_t bytes = rng() % 3 == 0 ? 0xFFFFFFFFULL - rng() % 10000000 : rng();
    const int length = 20 + static_cast<int>(rng() % 60);
    int ack_delay = 0;
    for (int i = 0; i < length; ++i) {
      const std::uint64_t r = rng();
      events += r % 8 == 0 ? 1 : 1 + r % 130;  // often a whole window at once
      const std::uint64_t p = base_pkts + (noise ? rng() % noise : 0);
      pkts += r % 97 == 0 ? (1ULL << 31) + p : p;  // occasional huge jump: int overflow paths
      bytes += p * (64 + rng() % 1450);
      t += r % 11 == 0 ? static_cast<long long>(rng() % 2000)  // zero or sub-microsecond gaps
                       : base_gap_ns + static_cast<long long>(rng() % 50'000);
      const long long now = t + static_cast<long long>(rng() % 3000);

      const bool want = real.step(make_sample(at_ns(t), events, pkts, bytes), at_ns(now)).apply;
      const bool got = naive_dim::feed(ref, t, static_cast<long long>(events & 0xFFFFFFFF),
                                       static_cast<long long>(pkts & 0xFFFFFFFFFFFF),
                                       static_cast<long long>(bytes & 0xFFFFFFFFFFFF), now);
      ASSERT_EQ(want, got) << "sequence " << seq << " sample " << i;
      const std::string diff = mismatch(real.state(), ref);
      ASSERT_TRUE(diff.empty()) << "sequence " << seq << " sample " << i << ": " << diff;

      ++decisions;
      tired_parks += real.state().tune_state == TuneState::parking_tired ? 1 : 0;
      if (want) {
        ++applies;
        ack_delay = static_cast<int>(rng() % 3);  // the driver may apply a few samples later
      }
      if (real.state().state == MeasureState::apply_new_profile && ack_delay-- <= 0) {
        real.acknowledge();
        ref.state = naive_dim::START_MEASURE;
      }
    }
  }
  // The random walk must have visited the interesting regimes, or the comparison proves little.
  EXPECT_GT(applies, decisions / 100);
  EXPECT_GT(tired_parks, 1000U);
}

}  // namespace
}  // namespace irqmod::dim
