// Sweep grids: `--vary KEY=V1,V2,...` and `--vary KEY=FROM:TO:STEP` axes, their cartesian
// product (points numbered 0..n-1, the last axis varying fastest), and the split of those points
// into shards (`--shard I/N`) and MPI ranks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"

namespace irqmod::sweep {

// One varied scenario key and its values, in scenario syntax ("50us", "coalesce", "8").
struct Axis {
  std::string key;
  std::vector<std::string> values;
  friend bool operator==(const Axis&, const Axis&) = default;
};

// "nic.rx-usecs=0,8,50" or "nic.rx-usecs=10:100:10" (FROM, TO inclusive when a whole number of
// steps away, STEP > 0; the three may share a unit suffix, "10us:100us:10us"). Only the syntax
// is checked here: the values are the scenario's to validate. Errors are keyed "--vary".
Expected<Axis> parse_vary(std::string_view spec);

// Points in the product of `axes` (1 when there are none).
std::size_t point_count(const std::vector<Axis>& axes);
// The values of point `index`, one per axis: mixed radix, the last axis fastest.
std::vector<std::string> point_values(const std::vector<Axis>& axes, std::size_t index);
// "key=value" overrides of point `index`, in axis order.
std::vector<std::string> point_overrides(const std::vector<Axis>& axes, std::size_t index);

// `--shard I/N`: shard I (0-based) of N. Errors are keyed "--shard".
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
};
Expected<Shard> parse_shard(std::string_view text);
// The points shard `s` runs: a contiguous block [begin, end) of the `points`, the blocks' sizes
// differing by at most one, so that shards 0..N-1 cover every point once, in order.
struct Range {
  std::size_t begin = 0;
  std::size_t end = 0;
};
Range shard_range(std::size_t points, Shard s);

}  // namespace irqmod::sweep
