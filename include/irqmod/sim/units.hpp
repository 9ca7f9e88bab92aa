// Numbers with units, as scenario files, --set and --trace-window spell them: durations
// ("50us", "1.5ms", "2s") and bit rates ("10G", "2.5Gbit/s", "100M"). Parsing is exact decimal
// arithmetic on integers: "1.5us" is 1500 ns, "0.5ns" is refused (not a whole nanosecond).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace irqmod::sim {

// Nanoseconds per unit: "ns" 1, "us" 1000, "ms" 1e6, "s" 1e9; empty for another word.
std::optional<std::int64_t> duration_unit_ns(std::string_view unit);

// A duration in ns from "<decimal>[unit]". Without a unit the number is in `bare_unit` (a unit of
// duration_unit_ns, or empty to require a unit). Empty on malformed text, a unit that is not a
// duration, a fraction of a nanosecond, a negative value or overflow.
std::optional<std::int64_t> parse_duration_ns(std::string_view text, std::string_view bare_unit);

// A bit rate in bit/s from "<decimal>[unit]": units k, M, G, T (x 1e3 ... 1e12), each optionally
// followed by "bit/s", "bps" or "b"; without a unit the number is Mbit/s (ethtool's speed unit).
std::optional<std::uint64_t> parse_bitrate(std::string_view text);

// The shortest exact spelling: 1500 -> "1500ns", 50000 -> "50us", 2000000000 -> "2s".
std::string format_duration(std::int64_t ns);
// 10000000000 -> "10G", 2500000000 -> "2500M", 1234 -> "1234bit/s".
std::string format_bitrate(std::uint64_t bps);

}  // namespace irqmod::sim
