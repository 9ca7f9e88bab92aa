// Exact decimal parsing of durations and bit rates.
#include "irqmod/sim/units.hpp"

#include <array>
#include <cctype>
#include <limits>
#include <utility>

namespace irqmod::sim {
namespace {

// "<digits>[.<digits>]" followed by a unit word. Returns mantissa, decimals and the unit.
struct Decimal {
  std::uint64_t mantissa = 0;  // all digits, the point removed
  int decimals = 0;            // digits after the point
  std::string_view unit;
};

std::optional<Decimal> split_decimal(std::string_view text) {
  Decimal d;
  std::size_t i = 0;
  bool digits = false;
  bool point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '_' && digits) continue;  // TOML-style digit separators
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (d.mantissa > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return std::nullopt;
    d.mantissa = d.mantissa * 10 + static_cast<std::uint64_t>(c - '0');
    digits = true;
    if (point) ++d.decimals;
  }
  if (!digits) return std::nullopt;
  d.unit = text.substr(i);
  while (!d.unit.empty() && d.unit.front() == ' ')
    d.unit.remove_prefix(1);
  return d;
}

// mantissa x scale / 10^decimals when that is a whole number that fits.
std::optional<std::uint64_t> scale_exact(const Decimal& d, std::uint64_t scale) {
  __extension__ using U128 = unsigned __int128;
  U128 value = U128{d.mantissa} * scale;
  U128 divisor = 1;
  for (int k = 0; k < d.decimals; ++k)
    divisor *= 10;
  if (value % divisor != 0) return std::nullopt;
  value /= divisor;
  if (value > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

}  // namespace

std::optional<std::int64_t> duration_unit_ns(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  return std::nullopt;
}

std::optional<std::int64_t> parse_duration_ns(std::string_view text, std::string_view bare_unit) {
  const auto d = split_decimal(text);
  if (!d) return std::nullopt;
  const auto unit = duration_unit_ns(d->unit.empty() ? bare_unit : d->unit);
  if (!unit) return std::nullopt;
  const auto ns = scale_exact(*d, static_cast<std::uint64_t>(*unit));
  if (!ns) return std::nullopt;
  return static_cast<std::int64_t>(*ns);
}

std::optional<std::uint64_t> parse_bitrate(std::string_view text) {
  auto d = split_decimal(text);
  if (!d) return std::nullopt;
  std::string_view unit = d->unit;
  std::uint64_t scale = 1'000'000;  // bare numbers: Mbit/s
  if (!unit.empty()) {
    static constexpr std::array<std::pair<char, std::uint64_t>, 4> kPrefixes = {
        {{'k', 1'000}, {'M', 1'000'000}, {'G', 1'000'000'000}, {'T', 1'000'000'000'000}}};
    scale = 0;
    for (const auto& [prefix, factor] : kPrefixes) {
      if (unit.front() == prefix) scale = factor;
    }
    if (scale != 0) {
      unit.remove_prefix(1);
    } else {
      scale = 1;  // "bit/s" alone
    }
    if (!(unit.empty() || unit == "bit/s" || unit == "bps" || unit == "b" || unit == "bit")) {
      return std::nullopt;
    }
    if (scale == 1 && unit.empty()) return std::nullopt;
  }
  return scale_exact(*d, scale);
}

std::string format_duration(std::int64_t ns) {
  if (ns != 0) {
    if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
    if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
    if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
  }
  return std::to_string(ns) + "ns";
}

std::string format_bitrate(std::uint64_t bps) {
  if (bps != 0) {
    if (bps % 1'000'000'000 == 0) return std::to_string(bps / 1'000'000'000) + "G";
    if (bps % 1'000'000 == 0) return std::to_string(bps / 1'000'000) + "M";
    if (bps % 1'000 == 0) return std::to_string(bps / 1'000) + "k";
  }
  return std::to_string(bps) + "bit/s";
}

}  // namespace irqmod::sim
