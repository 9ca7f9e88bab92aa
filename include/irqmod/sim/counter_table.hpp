// The report's counters as data. Each counter is one entry of a table: its name (its JSON key,
// and how the table's text line refers to it), where it is (a member, or a member of a
// component's counters that the report holds), its unit, what the warm-up does to it, and how it
// prints in JSON and the CSV. A table is one section of the report, with its text line.
// subtract_warmup, write_text, write_json and write_csv go through the tables, so adding a
// counter is adding its entry (and its place in the text line, beside it).
//
// Reporting only: components count in plain members, and the tables read them at the end.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "irqmod/time.hpp"

namespace irqmod::sim {

class JsonWriter;

// What a counter holds; it decides how the value and its rate print.
enum class Unit : std::uint8_t {
  id,     // names something: a vector, a core, a NAPI id (not set: JSON null)
  count,  // things that happened or passed; a rate is per second
  bytes,  // a rate is in bits per second
  level,  // a quantity at one instant: a watermark's lowest, highest or last value
  area,   // a level integrated over time (level-seconds); prints as its mean over the measured time
  ns,     // a time: nanoseconds in JSON, microseconds with three decimals in the text
};

// What the warm-up (scenario.warmup) does to a counter.
enum class Warmup : std::uint8_t {
  subtract,  // counted from the run's start: the report keeps what came after the warm-up
  restart,   // the model starts it again when the warm-up ends (a histogram, a minimum)
  keep,      // not a count: a label, or the value at the end
  derived,   // computed from its row's subtracted counters, as their sum or difference: after the
             // warm-up by construction, so nothing is subtracted from it
};

// How a counter prints under its name (JSON key, {name} in the text, CSV column).
enum class Form : std::uint8_t {
  value,       // the value
  per_second,  // its rate over the measured time (bytes: bits per second); none if no time passed
  mean,        // an area's mean over the measured time; 0 if no time passed
};

// A counter's value as the report reads it.
struct CounterValue {
  std::uint64_t integer = 0;  // ids, counts, bytes, levels, times
  double real = 0;            // areas
  bool set = true;            // false: an id that is not set (std::nullopt)
};

// Where a counter is in its `Owner`: read, and for a member also subtracted and assigned.
template <class Owner>
struct Access {
  CounterValue (*read)(const Owner&) = nullptr;
  void (*subtract)(Owner&, const Owner&) = nullptr;  // less an earlier copy's; none if computed
  void (*assign)(Owner&, std::uint64_t) = nullptr;   // sets it (a test fills every counter)
};

// One counter of a table. Its text is its place in the table's line: {name}.
template <class Owner>
struct Counter {
  std::string_view name;  // the JSON key, and {name} in the text line
  Access<Owner> at;
  Unit unit;
  Warmup warmup;
  Form form = Form::value;     // under `name` in JSON and as {name} in the text ({name/s}: rate)
  std::string_view rate = {};  // JSON: the rate as well, under this key, right after the value
  std::string_view csv = {};   // the CSV column (in `form`); empty: not in the CSV
  // When a [...] group of the text line that names it prints; none: an id when it is set, any
  // other counter when it is not 0.
  bool (*shown)(const Owner&) = nullptr;
};

// One section of the report: its counters, in JSON order, and its text line, in which {name} is
// a counter in its form, {name/s} its rate, {#} the row's number and [...] a part printed only
// when every counter it names is shown.
template <class Owner>
struct CounterTable {
  std::string_view json;  // its JSON object's or array's key; empty: fields of the enclosing one
  std::string_view text;
  std::span<const Counter<Owner>> counters;
  std::string_view index = {};  // rows: the JSON key of the row's number, before its counters
};

namespace detail {

template <class Member>
struct member_pointer;
template <class Class, class Value>
struct member_pointer<Value Class::*> {
  using owner = Class;
};

template <auto First, auto... Rest, class Owner>
constexpr auto& follow(Owner& owner) {
  if constexpr (sizeof...(Rest) == 0) {
    return owner.*First;
  } else {
    return follow<Rest...>(owner.*First);
  }
}

template <class Value>
constexpr CounterValue value_of(const Value& v) {
  if constexpr (std::is_same_v<Value, double>) {
    return CounterValue{0, v, true};
  } else if constexpr (std::is_same_v<Value, std::optional<std::uint32_t>>) {
    return CounterValue{v.value_or(0), 0, v.has_value()};
  } else {
    static_assert(std::is_unsigned_v<Value>, "a counter is unsigned, a double area or an id");
    return CounterValue{static_cast<std::uint64_t>(v), 0, true};
  }
}

template <auto First, auto... Rest>
constexpr auto make_access() {
  using Owner = typename member_pointer<decltype(First)>::owner;
  using Value = std::remove_cvref_t<decltype(follow<First, Rest...>(std::declval<Owner&>()))>;
  Access<Owner> a;
  a.read = [](const Owner& o) { return value_of(follow<First, Rest...>(o)); };
  if constexpr (std::is_arithmetic_v<Value>) {
    a.subtract = [](Owner& o, const Owner& earlier) {
      Value& v = follow<First, Rest...>(o);
      v = static_cast<Value>(v - follow<First, Rest...>(earlier));
    };
    a.assign = [](Owner& o, std::uint64_t v) { follow<First, Rest...>(o) = static_cast<Value>(v); };
  } else {
    a.assign = [](Owner& o, std::uint64_t v) {
      follow<First, Rest...>(o) = static_cast<std::uint32_t>(v);
    };
  }
  return a;
}

}  // namespace detail

// A member, or a member of a member: at<&QueueCounters::napi, &napi::Counters::busy_polls>.
template <auto... Path>
inline constexpr auto at = detail::make_access<Path...>();

// A value computed from the owner (a histogram's count): read only, never subtracted.
template <class Owner>
constexpr Access<Owner> computed(CounterValue (*read)(const Owner&)) {
  return Access<Owner>{read, nullptr, nullptr};
}

// One counter of one row, read: what the formatting below needs, whatever the table's owner.
struct CounterReading {
  std::string_view name;
  Unit unit = Unit::count;
  Form form = Form::value;
  std::string_view rate;
  std::string_view csv;
  CounterValue value;
  bool shown = false;
};

template <class Owner>
std::vector<CounterReading> read_row(const CounterTable<Owner>& table, const Owner& row) {
  std::vector<CounterReading> readings;
  readings.reserve(table.counters.size());
  for (const Counter<Owner>& c : table.counters) {
    const CounterValue v = c.at.read(row);
    const bool shown =
        c.shown ? c.shown(row) : v.set && (c.unit == Unit::id || v.integer != 0 || v.real != 0);
    readings.push_back(CounterReading{c.name, c.unit, c.form, c.rate, c.csv, v, shown});
  }
  return readings;
}

// The table's text line for one row (`index`: its {#}), rates over `measured`.
void write_row_text(std::ostream& out, std::string_view text, std::span<const CounterReading> row,
                    Duration measured, std::uint64_t index = 0);
// The row's counters as fields of the JSON object being written.
void write_row_json(JsonWriter& json, std::span<const CounterReading> row, Duration measured);
// The row's CSV columns: their names, or their cells.
void append_row_csv_names(std::vector<std::string_view>& names,
                          std::span<const CounterReading> row);
void append_row_csv_cells(std::vector<std::string>& cells, std::span<const CounterReading> row,
                          Duration measured);

template <class Owner>
void write_row_text(std::ostream& out, const CounterTable<Owner>& table, const Owner& row,
                    Duration measured, std::uint64_t index = 0) {
  write_row_text(out, table.text, read_row(table, row), measured, index);
}

template <class Owner>
void write_row_json(JsonWriter& json, const CounterTable<Owner>& table, const Owner& row,
                    Duration measured) {
  write_row_json(json, read_row(table, row), measured);
}

// Every counter the warm-up counts: `row` less `at_warmup`, the same row's copy taken then.
template <class Owner>
void subtract_row(const CounterTable<Owner>& table, Owner& row, const Owner& at_warmup) {
  for (const Counter<Owner>& c : table.counters) {
    if (c.warmup != Warmup::subtract) continue;
    assert(c.at.subtract &&
           "a computed counter cannot be subtracted: Warmup::restart, keep or derived");
    c.at.subtract(row, at_warmup);
  }
}

}  // namespace irqmod::sim
