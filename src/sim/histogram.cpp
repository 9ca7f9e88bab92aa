// Latency histogram: bucket arithmetic, rank queries and merging.
#include "irqmod/sim/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace irqmod::sim {

std::size_t LatencyHistogram::bucket_of(std::uint64_t v) {
  if (v < kExactBelow) return static_cast<std::size_t>(v);
  const unsigned e = 63u - static_cast<unsigned>(std::countl_zero(v));  // >= kSubBits + 1
  const unsigned shift = e - kSubBits;
  const std::uint64_t sub = (v >> shift) - (std::uint64_t{1} << kSubBits);
  return static_cast<std::size_t>(kExactBelow +
                                  (e - kSubBits - 1) * (std::uint64_t{1} << kSubBits) + sub);
}

std::uint64_t LatencyHistogram::bucket_low(std::size_t index) {
  if (index < kExactBelow) return index;
  const std::size_t above = index - kExactBelow;
  const unsigned e = static_cast<unsigned>(above >> kSubBits) + kSubBits + 1;
  const std::uint64_t sub = above & ((std::uint64_t{1} << kSubBits) - 1);
  return ((std::uint64_t{1} << kSubBits) + sub) << (e - kSubBits);
}

std::uint64_t LatencyHistogram::bucket_high(std::size_t index) {
  if (index < kExactBelow) return index;
  const unsigned e = static_cast<unsigned>((index - kExactBelow) >> kSubBits) + kSubBits + 1;
  return bucket_low(index) + (std::uint64_t{1} << (e - kSubBits)) - 1;
}

double LatencyHistogram::stddev() const {
  return count_ ? std::sqrt(m2_ / static_cast<double>(count_)) : 0.0;
}

std::int64_t LatencyHistogram::value_at_rank(std::uint64_t rank) const {
  assert(rank >= 1 && rank <= count_);
  if (rank == 1) return static_cast<std::int64_t>(min_);
  if (rank == count_) return static_cast<std::int64_t>(max_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const std::uint64_t low = bucket_low(i);
      const std::uint64_t mid = low + (bucket_high(i) - low) / 2;
      return static_cast<std::int64_t>(std::clamp(mid, min_, max_));
    }
  }
  return static_cast<std::int64_t>(max_);  // unreachable: ranks are <= count_
}

std::uint64_t LatencyHistogram::sockperf_rank(std::uint32_t parts_per_100000, std::uint64_t n) {
  // (int)(0.5 + p * n) - 1 is the 0-based index; + 1 makes it a rank.
  __extension__ using U128 = unsigned __int128;
  return static_cast<std::uint64_t>((U128{parts_per_100000} * n + 50'000) / 100'000);
}

std::int64_t LatencyHistogram::percentile(std::uint32_t parts_per_100000) const {
  const std::uint64_t rank = sockperf_rank(parts_per_100000, count_);
  return rank == 0 ? 0 : value_at_rank(std::min(rank, count_));
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    counts_[i] += other.counts_[i];
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
    mean_ = other.mean_;
    m2_ = other.m2_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
    const double n_a = static_cast<double>(count_);
    const double n_b = static_cast<double>(other.count_);
    const double delta = other.mean_ - mean_;
    mean_ += delta * n_b / (n_a + n_b);
    m2_ += other.m2_ + delta * delta * n_a * n_b / (n_a + n_b);
  }
  count_ += other.count_;
  sum_ += other.sum_;
}

}  // namespace irqmod::sim
