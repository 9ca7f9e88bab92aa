// The latency histogram: bucket layout, the 1 % error bound against exact percentiles, exact
// moments, sockperf's rank rule, merging.
#include "irqmod/sim/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "irqmod/sim/random.hpp"

namespace irqmod::sim {
namespace {

TEST(histogram, buckets_are_exact_below_256_ns_and_contiguous_above) {
  for (std::uint64_t v = 0; v < 256; ++v) {
    EXPECT_EQ(LatencyHistogram::bucket_of(v), v);
    EXPECT_EQ(LatencyHistogram::bucket_low(v), v);
    EXPECT_EQ(LatencyHistogram::bucket_high(v), v);
  }
  for (std::size_t i = 256; i + 1 < LatencyHistogram::kBuckets; ++i) {
    ASSERT_EQ(LatencyHistogram::bucket_high(i) + 1, LatencyHistogram::bucket_low(i + 1)) << i;
    // Width at most 1/128 of the bucket's lowest value.
    const std::uint64_t width =
        LatencyHistogram::bucket_high(i) - LatencyHistogram::bucket_low(i) + 1;
    ASSERT_LE(width * 128, LatencyHistogram::bucket_low(i)) << i;
  }
  EXPECT_EQ(LatencyHistogram::bucket_of(256), 256u);
  EXPECT_EQ(LatencyHistogram::bucket_of(257), 256u);  // width 2 from 256 to 511
  EXPECT_EQ(LatencyHistogram::bucket_of(258), 257u);
  EXPECT_EQ(LatencyHistogram::bucket_of(UINT64_MAX), LatencyHistogram::kBuckets - 1);
  EXPECT_EQ(LatencyHistogram::bucket_high(LatencyHistogram::kBuckets - 1), UINT64_MAX);
}

TEST(histogram, every_bucket_maps_back_to_itself) {
  for (std::size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    ASSERT_EQ(LatencyHistogram::bucket_of(LatencyHistogram::bucket_low(i)), i);
    ASSERT_EQ(LatencyHistogram::bucket_of(LatencyHistogram::bucket_high(i)), i);
  }
}

// Checks every sockperf percentile of `values` against the exact sorted value at the same rank.
void expect_within_one_percent(const std::vector<std::int64_t>& values) {
  LatencyHistogram h;
  for (std::int64_t v : values)
    h.record(v);
  std::vector<std::int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t p : kSockperfPercentiles) {
    const std::uint64_t rank = LatencyHistogram::sockperf_rank(p, sorted.size());
    ASSERT_GE(rank, 1u);
    const double exact = static_cast<double>(sorted[rank - 1]);
    const double got = static_cast<double>(h.percentile(p));
    EXPECT_LE(std::fabs(got - exact), 0.01 * exact) << "p=" << p << " exact=" << exact;
    EXPECT_LE(std::fabs(got - exact), exact / 256 + 0.5) << "p=" << p;  // the tighter bound
  }
  EXPECT_EQ(h.min(), sorted.front());
  EXPECT_EQ(h.max(), sorted.back());
}

TEST(histogram, percentiles_are_within_1_percent_of_exact_on_random_data) {
  Rng rng(2024);
  std::vector<std::int64_t> exponential;
  std::vector<std::int64_t> wide;  // log-uniform from 1 ns to 1 s
  std::vector<std::int64_t> tail;  // 25 us body with a 100 ms tail, seed 000's shape
  for (int i = 0; i < 200'000; ++i) {
    exponential.push_back(static_cast<std::int64_t>(rng.exponential(30'000.0)));
    wide.push_back(static_cast<std::int64_t>(std::exp(rng.uniform() * std::log(1e9))));
    tail.push_back(rng.below(100'000) == 0
                       ? 100'000'000 + static_cast<std::int64_t>(rng.below(5'000'000))
                       : 20'000 + static_cast<std::int64_t>(rng.below(10'000)));
  }
  expect_within_one_percent(exponential);
  expect_within_one_percent(wide);
  expect_within_one_percent(tail);
}

TEST(histogram, mean_and_stddev_are_exact_not_bucketed) {
  LatencyHistogram h;
  for (std::int64_t v : {1'000'001, 1'000'003, 1'000'005, 1'000'007})
    h.record(v);
  EXPECT_EQ(h.sum(), 4'000'016u);
  EXPECT_DOUBLE_EQ(h.mean(), 1'000'004.0);
  EXPECT_NEAR(h.stddev(), std::sqrt(5.0), 1e-6);  // deviations 3, 1, 1, 3: variance 20 / 4
}

TEST(histogram, sockperf_rank_rounds_half_up_and_skips_empty_ranks) {
  // (int)(0.5 + p * n) - 1 as a 0-based index, + 1.
  EXPECT_EQ(LatencyHistogram::sockperf_rank(50'000, 3), 2u);  // 1.5 + 0.5 = 2
  EXPECT_EQ(LatencyHistogram::sockperf_rank(25'000, 2), 1u);  // 0.5 + 0.5 = 1
  EXPECT_EQ(LatencyHistogram::sockperf_rank(25'000, 1), 0u);  // 0.25 + 0.5 -> 0: no line
  EXPECT_EQ(LatencyHistogram::sockperf_rank(99'999, 2'429'473), 2'429'449u);
  LatencyHistogram empty;
  EXPECT_EQ(empty.percentile(50'000), 0);
}

TEST(histogram, small_values_are_reported_exactly) {
  LatencyHistogram h;
  for (std::int64_t v = 1; v <= 200; ++v)
    h.record(v);
  EXPECT_EQ(h.percentile(50'000), 100);
  EXPECT_EQ(h.percentile(99'000), 198);
  EXPECT_EQ(h.value_at_rank(1), 1);
  EXPECT_EQ(h.value_at_rank(200), 200);
}

TEST(histogram, negative_values_count_as_zero) {
  LatencyHistogram h;
  h.record(-5);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.count(), 1u);
}

TEST(histogram, merging_equals_recording_everything_in_one) {
  Rng rng(5);
  LatencyHistogram a;
  LatencyHistogram b;
  LatencyHistogram all;
  for (int i = 0; i < 10'000; ++i) {
    const auto v = static_cast<std::int64_t>(rng.below(1'000'000));
    (i % 3 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.sum(), all.sum());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_NEAR(a.stddev(), all.stddev(), 1e-6 * all.stddev());
  for (std::uint32_t p : kSockperfPercentiles)
    EXPECT_EQ(a.percentile(p), all.percentile(p));
}

}  // namespace
}  // namespace irqmod::sim
