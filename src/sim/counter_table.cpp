// A counter table's row in text (its line, {name} and [...] groups), JSON and CSV.
#include "irqmod/sim/counter_table.hpp"

#include <cassert>
#include <cstdio>
#include <string>

#include "irqmod/sim/json.hpp"
#include "irqmod/sim/metrics.hpp"
#include "sim/report_format.hpp"

namespace irqmod::sim {
namespace {

const CounterReading* find(std::span<const CounterReading> row, std::string_view name) {
  for (const CounterReading& r : row) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// A placeholder's text: "{name}" or "{name/s}" without the braces.
struct Placeholder {
  std::string_view name;
  bool rate = false;
};

Placeholder parse_placeholder(std::string_view inside) {
  constexpr std::string_view kRate = "/s";
  if (inside.size() > kRate.size() && inside.substr(inside.size() - kRate.size()) == kRate)
    return Placeholder{inside.substr(0, inside.size() - kRate.size()), true};
  return Placeholder{inside, false};
}

// The rate of a count, or of bytes in bits (count x 8, as the throughput has always been).
std::optional<double> rate_of(const CounterReading& r, Duration measured) {
  return per_second(r.unit == Unit::bytes ? r.value.integer * 8 : r.value.integer, measured);
}

double mean_of(const CounterReading& r, Duration measured) {
  return measured > Duration::zero() ? r.value.real * 1e9 / static_cast<double>(measured.count())
                                     : 0;
}

std::string text_of(const CounterReading& r, bool rate, Duration measured) {
  if (rate || r.form == Form::per_second) {
    const auto v = rate_of(r, measured);
    return v ? printf_string("%.0f", *v) : std::string("n/a");
  }
  if (r.form == Form::mean) return printf_string("%.1f", mean_of(r, measured));
  if (r.unit == Unit::ns) return format_usec(static_cast<std::int64_t>(r.value.integer));
  return std::to_string(r.value.integer);
}

// Whether every counter named in `part` (a [...] group's inside) is shown.
bool all_shown(std::string_view part, std::span<const CounterReading> row) {
  for (std::size_t i = part.find('{'); i != std::string_view::npos; i = part.find('{', i + 1)) {
    const std::size_t close = part.find('}', i);
    assert(close != std::string_view::npos && "a text line's { without its }");
    const Placeholder p = parse_placeholder(part.substr(i + 1, close - i - 1));
    if (p.name == "#") continue;
    const CounterReading* r = find(row, p.name);
    assert(r && "a text line names a counter its table does not have");
    if (!r || !r->shown) return false;
  }
  return true;
}

void write_part(std::ostream& out, std::string_view part, std::span<const CounterReading> row,
                Duration measured, std::uint64_t index) {
  std::size_t i = 0;
  while (i < part.size()) {
    const char c = part[i];
    if (c == '{') {
      const std::size_t close = part.find('}', i);
      assert(close != std::string_view::npos && "a text line's { without its }");
      const Placeholder p = parse_placeholder(part.substr(i + 1, close - i - 1));
      if (p.name == "#") {
        out << index;
      } else if (const CounterReading* r = find(row, p.name)) {
        out << text_of(*r, p.rate, measured);
      } else {
        assert(false && "a text line names a counter its table does not have");
      }
      i = close + 1;
    } else if (c == '[') {
      const std::size_t close = part.find(']', i);
      assert(close != std::string_view::npos && "a text line's [ without its ]");
      const std::string_view group = part.substr(i + 1, close - i - 1);
      if (all_shown(group, row)) write_part(out, group, row, measured, index);
      i = close + 1;
    } else {
      const std::size_t next = part.find_first_of("{[", i);
      const std::size_t end = next == std::string_view::npos ? part.size() : next;
      out << part.substr(i, end - i);
      i = end;
    }
  }
}

}  // namespace

void write_row_text(std::ostream& out, std::string_view text, std::span<const CounterReading> row,
                    Duration measured, std::uint64_t index) {
  write_part(out, text, row, measured, index);
}

void write_row_json(JsonWriter& json, std::span<const CounterReading> row, Duration measured) {
  for (const CounterReading& r : row) {
    json.key(r.name);
    if (r.form == Form::per_second) {
      optional_value(json, rate_of(r, measured));
    } else if (r.form == Form::mean) {
      json.value(mean_of(r, measured));
    } else if (!r.value.set) {
      json.null();
    } else if (r.unit == Unit::area) {
      json.value(r.value.real);
    } else {
      json.value(r.value.integer);
    }
    if (!r.rate.empty()) {
      json.key(r.rate);
      optional_value(json, rate_of(r, measured));
    }
  }
}

void append_row_csv_names(std::vector<std::string_view>& names,
                          std::span<const CounterReading> row) {
  for (const CounterReading& r : row) {
    if (!r.csv.empty()) names.push_back(r.csv);
  }
}

void append_row_csv_cells(std::vector<std::string>& cells, std::span<const CounterReading> row,
                          Duration measured) {
  for (const CounterReading& r : row) {
    if (r.csv.empty()) continue;
    if (r.form == Form::per_second) {
      const auto v = rate_of(r, measured);
      cells.push_back(v ? printf_string("%.3f", *v) : std::string());
    } else if (r.form == Form::mean) {
      cells.push_back(printf_string("%.3f", mean_of(r, measured)));
    } else {
      cells.push_back(r.value.set ? std::to_string(r.value.integer) : std::string());
    }
  }
}

}  // namespace irqmod::sim
