// Latency histogram: log-linear buckets (HdrHistogram's layout), exact below 256 ns, at most
// 1/256 relative error above, fixed memory (7424 counters, 58 KiB) whatever the run's length.
//
// Layout: a value v < 256 has its own bucket. Above, v's leading one bit selects a power of two
// 2^e (e >= 8), and the next 7 bits one of 128 equal sub-buckets of width 2^(e-7). A bucket's
// width is at most 1/128 of its lowest value, and a value is reported as its bucket's midpoint,
// so the reported value is within 1/256 (0.39 %) of every value in the bucket.
//
// min, max, mean and standard deviation are exact (the mean from an integer sum, the variance by
// Welford's update in double), not bucket values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace irqmod::sim {

// sockperf's percentiles in parts per 100 000: 25, 50, 75, 90, 99, 99.9, 99.99, 99.999.
inline constexpr std::array<std::uint32_t, 8> kSockperfPercentiles = {
    25'000, 50'000, 75'000, 90'000, 99'000, 99'900, 99'990, 99'999};

class LatencyHistogram {
 public:
  static constexpr unsigned kSubBits = 7;                             // 128 sub-buckets per octave
  static constexpr std::uint64_t kExactBelow = 1u << (kSubBits + 1);  // 256: one bucket per ns
  static constexpr std::size_t kBuckets = kExactBelow + (64 - kSubBits - 1) * (1u << kSubBits);

  LatencyHistogram() : counts_(kBuckets, 0) {}

  // Records one value in ns. Negative values are clamped to 0 (a latency cannot be negative; a
  // model that produces one has a bug the conservation and ordering tests catch elsewhere).
  void record(std::int64_t value_ns) {
    const std::uint64_t v = value_ns < 0 ? 0 : static_cast<std::uint64_t>(value_ns);
    ++counts_[bucket_of(v)];
    if (count_ == 0 || v < min_) min_ = v;
    if (v > max_) max_ = v;
    ++count_;
    sum_ += v;
    const double delta = static_cast<double>(v) - mean_;
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (static_cast<double>(v) - mean_);
  }

  // Adds another histogram's observations (Chan et al.'s parallel variance update).
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const { return count_; }
  std::int64_t min() const { return static_cast<std::int64_t>(min_); }  // 0 when empty
  std::int64_t max() const { return static_cast<std::int64_t>(max_); }  // 0 when empty
  std::uint64_t sum() const { return sum_; }                            // exact, ns
  double mean() const {
    return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0;
  }
  // Population standard deviation (divides by n), as sockperf's std-dev.
  double stddev() const;

  // The value of rank `rank` (1-based) in sorted order: exact for rank 1 (min) and count (max),
  // otherwise its bucket's midpoint clamped to [min, max]. Precondition: 1 <= rank <= count().
  std::int64_t value_at_rank(std::uint64_t rank) const;

  // sockperf's percentile: the sorted observation at index (int)(0.5 + p x n) - 1, with p in
  // parts per 100 000 and the rounding done in integers; 0 when that index is below 0 or the
  // histogram is empty (sockperf then prints no line).
  std::int64_t percentile(std::uint32_t parts_per_100000) const;
  // The 1-based rank percentile() reads: (p x n + 50 000) / 100 000; 0 when there is none.
  static std::uint64_t sockperf_rank(std::uint32_t parts_per_100000, std::uint64_t n);

  // Bucket arithmetic, public for tests: index of a value, and a bucket's lowest and highest value.
  static std::size_t bucket_of(std::uint64_t v);
  static std::uint64_t bucket_low(std::size_t index);
  static std::uint64_t bucket_high(std::size_t index);

 private:
  std::vector<std::uint64_t> counts_;  // allocated once, kBuckets long
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t sum_ = 0;  // 584 years of ns: cannot wrap in a simulation
  double mean_ = 0;        // Welford's running mean and sum of squared deviations
  double m2_ = 0;
};

}  // namespace irqmod::sim
