// The report's shared number formats. See report_format.hpp.
#include "sim/report_format.hpp"

#include <cstdio>

namespace irqmod::sim {

std::string printf_string(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

std::optional<double> per_second(std::uint64_t count, Duration elapsed) {
  if (elapsed <= Duration::zero()) return std::nullopt;
  return static_cast<double>(count) * 1e9 / static_cast<double>(elapsed.count());
}

std::optional<double> fraction(Duration part, Duration whole) {
  if (whole <= Duration::zero()) return std::nullopt;
  return static_cast<double>(part.count()) / static_cast<double>(whole.count());
}

void optional_value(JsonWriter& json, std::optional<double> v) {
  if (v) {
    json.value(*v);
  } else {
    json.null();
  }
}

std::string format_seconds(Duration d) {
  const std::int64_t ns = d.count();
  std::string text = std::to_string(ns / 1'000'000'000);
  std::int64_t fraction = ns % 1'000'000'000;
  if (fraction < 0) fraction = -fraction;
  if (fraction != 0) {
    char digits[16];
    std::snprintf(digits, sizeof digits, "%09lld", static_cast<long long>(fraction));
    std::string tail = digits;
    while (tail.back() == '0')
      tail.pop_back();
    text += "." + tail;
  }
  return text + " s";
}

std::string percent(std::optional<double> f) {
  return f ? printf_string("%.1f%%", *f * 100.0) : std::string("n/a");
}

}  // namespace irqmod::sim
