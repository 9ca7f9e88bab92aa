// The number formats the report's three writers share (text, JSON, CSV): rates and fractions
// over the measured time, which are "not reliable" (none) when no time passed, never infinite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "irqmod/sim/json.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// `format` (one %f-style conversion) applied to `a`.
std::string printf_string(const char* format, double a);

// count per second over `elapsed`; none when no time elapsed.
std::optional<double> per_second(std::uint64_t count, Duration elapsed);

// part / whole; none when whole is not positive.
std::optional<double> fraction(Duration part, Duration whole);

// The value, or JSON null.
void optional_value(JsonWriter& json, std::optional<double> v);

// A fraction as "12.3%", or "n/a".
std::string percent(std::optional<double> f);

// A run's length in seconds, as short as it is exact to the nanosecond: "0.05 s", "2 s",
// "0.001234567 s".
std::string format_seconds(Duration d);

}  // namespace irqmod::sim
