#include "irqmod/sweep/grid.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace irqmod::sweep {
namespace {

Error vary_error(std::string message) {
  return Error{"--vary", std::move(message)};
}

// "10us" -> {10, "us"}; "0.5" -> {0.5, ""}. False when there is no leading number.
struct Quantity {
  double number = 0;
  std::string number_text;
  std::string unit;
  bool integral = true;
};

bool split_quantity(std::string_view text, Quantity& q) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  const std::size_t digits_start = i;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) {
    if (text[i] == '.') q.integral = false;
    ++i;
  }
  if (i == digits_start) return false;
  q.number_text = std::string(text.substr(0, i));
  q.unit = std::string(text.substr(i));
  char* end = nullptr;
  q.number = std::strtod(q.number_text.c_str(), &end);
  return end == q.number_text.c_str() + q.number_text.size();
}

std::string format_number(double v, bool integral) {
  char buffer[64];
  if (integral) {
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(std::llround(v)));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
  }
  return buffer;
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    parts.emplace_back(text.substr(start, at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

// The most points one range may make: a typo such as 0:1000000:1 is refused, not run for days.
constexpr std::size_t kMaxRangeValues = 100000;

Expected<std::vector<std::string>> expand_range(const std::string& key, std::string_view values) {
  const std::vector<std::string> parts = split(values, ':');
  Quantity from, to, step;
  if (!split_quantity(parts[0], from) || !split_quantity(parts[1], to) ||
      !split_quantity(parts[2], step)) {
    return vary_error(key + ": '" + std::string(values) +
                      "' is not FROM:TO:STEP; allowed: numbers with an optional common unit, "
                      "such as 0:100:10 or 10us:100us:10us");
  }
  if (from.unit != to.unit || (!step.unit.empty() && step.unit != from.unit)) {
    return vary_error(key + ": '" + std::string(values) +
                      "': FROM, TO and STEP must share one unit (or STEP have none)");
  }
  if (!(step.number > 0))
    return vary_error(key + ": STEP must be above 0 in '" + std::string(values) + "'");
  if (to.number < from.number) {
    return vary_error(key + ": TO is below FROM in '" + std::string(values) + "'");
  }
  const bool integral = from.integral && to.integral && step.integral;
  // Values are FROM + i * STEP (no running sum: no drift), up to TO within a millionth of a step.
  const double span = (to.number - from.number) / step.number;
  const auto steps = static_cast<std::size_t>(std::floor(span + 1e-6));
  if (steps + 1 > kMaxRangeValues) {
    return vary_error(key + ": '" + std::string(values) + "' makes " + std::to_string(steps + 1) +
                      " values; allowed: at most " + std::to_string(kMaxRangeValues));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i <= steps; ++i) {
    out.push_back(format_number(from.number + static_cast<double>(i) * step.number, integral) +
                  from.unit);
  }
  return out;
}

}  // namespace

Expected<Axis> parse_vary(std::string_view spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return vary_error("'" + std::string(spec) +
                      "' is not KEY=V1,V2,... or KEY=FROM:TO:STEP (e.g. nic.rx-usecs=0:100:10)");
  }
  Axis axis{std::string(spec.substr(0, eq)), {}};
  const std::string_view values = spec.substr(eq + 1);
  const std::size_t colons =
      static_cast<std::size_t>(std::count(values.begin(), values.end(), ':'));
  if (colons == 2 && values.find(',') == std::string_view::npos) {
    auto expanded = expand_range(axis.key, values);
    if (!expanded) return expanded.error();
    axis.values = std::move(expanded).value();
    return axis;
  }
  axis.values = split(values, ',');
  for (const std::string& v : axis.values) {
    if (v.empty())
      return vary_error(axis.key + ": an empty value in '" + std::string(values) + "'");
  }
  return axis;
}

std::size_t point_count(const std::vector<Axis>& axes) {
  std::size_t n = 1;
  for (const Axis& a : axes)
    n *= a.values.size();
  return n;
}

std::vector<std::string> point_values(const std::vector<Axis>& axes, std::size_t index) {
  std::vector<std::string> values(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    const std::size_t n = axes[a].values.size();
    values[a] = axes[a].values[index % n];
    index /= n;
  }
  return values;
}

std::vector<std::string> point_overrides(const std::vector<Axis>& axes, std::size_t index) {
  std::vector<std::string> values = point_values(axes, index);
  for (std::size_t a = 0; a < axes.size(); ++a)
    values[a] = axes[a].key + "=" + values[a];
  return values;
}

Expected<Shard> parse_shard(std::string_view text) {
  const std::size_t slash = text.find('/');
  Shard s;
  const auto parse = [](std::string_view t, std::size_t& out) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size() && !t.empty();
  };
  if (slash == std::string_view::npos || !parse(text.substr(0, slash), s.index) ||
      !parse(text.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count) {
    return Error{"--shard", "'" + std::string(text) +
                                "' is not I/N; allowed: 0 <= I < N, e.g. 0/4 (Slurm: "
                                "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)"};
  }
  return s;
}

Range shard_range(std::size_t points, Shard s) {
  return Range{points * s.index / s.count, points * (s.index + 1) / s.count};
}

}  // namespace irqmod::sweep
