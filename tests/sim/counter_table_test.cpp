// The report's counter tables: every counter of every table is in the JSON and in the text with
// its own value, every text line names only its table's counters, every count is subtracted at
// the warm-up, and the subtraction reaches every table's rows.
#include "irqmod/sim/counter_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "sim/report_tables.hpp"

namespace irqmod::sim {
namespace {

// A report with every section present: two queue pairs and cores, one row of every other list,
// every optional section, a latency and ping histogram, measured over exactly one second (so
// that a rate is its count).
RunReport every_section() {
  RunReport r;
  r.scenario = "every-section";
  r.sim_time = seconds(1);
  r.interrupts = InterruptCounters(2);
  r.cpu = CpuTime(2);
  r.cores.resize(2);
  r.queues.resize(2);
  r.napi_threads.resize(1);
  r.tx_only_queues.resize(1);
  r.egress_queues.resize(1);
  r.mclgeti.emplace();
  r.search.emplace();
  r.tcp.emplace();
  r.ping.emplace();
  r.storage.emplace();
  r.xdp.emplace();
  for (std::int64_t ns : {40'000, 50'000, 60'000}) {
    r.latency.record(ns);
    r.ping->rtt.record(ns);
  }
  return r;
}

// The rows of a section, whatever holds them: itself, an optional one, or a vector of them.
template <class T>
concept Optional = requires(T& t) {
  static_cast<bool>(t);
  *t;
};
template <class Owner>
requires(!Optional<Owner>) std::vector<Owner*> rows_of(Owner& row) {
  return {&row};
}
template <class Owner>
std::vector<Owner*> rows_of(std::vector<Owner>& rows) {
  std::vector<Owner*> all;
  for (Owner& row : rows)
    all.push_back(&row);
  return all;
}
template <Optional Holder>
auto rows_of(Holder& holder) -> std::vector<std::remove_reference_t<decltype(*holder)>*> {
  if (!holder) return {};
  return {&*holder};
}

// Gives every counter that is a member its own value: 1 000 000 + 1013 k, k counting from
// `first` in table order (seven digits each, so that the text finds each one alone).
void fill(RunReport& r, std::uint64_t first = 0) {
  std::uint64_t k = first;
  for_each_counter_table([&](const auto& table, auto section) {
    for (auto* row : rows_of(section(r))) {
      for (const auto& c : table.counters) {
        if (c.at.assign) c.at.assign(*row, 1'000'000 + 1013 * k++);
      }
    }
  });
}

// Whether `json` has, anywhere, `key` holding `value`.
bool has_field(const nlohmann::json& json, const std::string& key, const nlohmann::json& value) {
  if (json.is_object()) {
    for (const auto& [k, v] : json.items()) {
      if (k == key && v == value) return true;
      if (has_field(v, key, value)) return true;
    }
  } else if (json.is_array()) {
    for (const auto& v : json) {
      if (has_field(v, key, value)) return true;
    }
  }
  return false;
}

std::string printed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The counter's value as JSON writes it under its name, over one second.
nlohmann::json json_value(const CounterReading& c) {
  const double per_second =
      static_cast<double>(c.unit == Unit::bytes ? c.value.integer * 8 : c.value.integer);
  if (c.form == Form::per_second) return per_second;
  if (c.form == Form::mean) return c.value.real;
  if (!c.value.set) return nullptr;
  return c.value.integer;
}

// ... and as the text prints {name}.
std::string text_value(const CounterReading& c) {
  if (c.form == Form::per_second) {
    return printed(
        "%.0f", static_cast<double>(c.unit == Unit::bytes ? c.value.integer * 8 : c.value.integer));
  }
  if (c.form == Form::mean) return printed("%.1f", c.value.real);
  if (c.unit == Unit::ns) return format_usec(static_cast<std::int64_t>(c.value.integer));
  return std::to_string(c.value.integer);
}

// The {name} and {name/s} a text line names.
std::vector<std::string> placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (std::size_t i = text.find('{'); i != std::string_view::npos; i = text.find('{', i + 1)) {
    const std::size_t close = text.find('}', i);
    if (close == std::string_view::npos) {
      names.push_back("<unclosed {>");
      break;
    }
    std::string name(text.substr(i + 1, close - i - 1));
    if (name.size() > 2 && name.substr(name.size() - 2) == "/s") name.resize(name.size() - 2);
    names.push_back(name);
  }
  return names;
}

TEST(counter_table, every_text_line_names_each_of_its_counters_and_nothing_else) {
  std::size_t tables = 0;
  for_each_counter_table([&](const auto& table, auto) {
    ++tables;
    std::set<std::string> named;
    for (const std::string& name : placeholders(table.text)) {
      if (name == "#") continue;
      named.insert(name);
      bool known = false;
      for (const auto& c : table.counters)
        known = known || c.name == name;
      EXPECT_TRUE(known) << "{" << name << "} in \"" << table.text << "\" is not in its table";
    }
    for (const auto& c : table.counters) {
      EXPECT_TRUE(named.count(std::string(c.name)))
          << c.name << " is in the table of \"" << table.text << "\" but not in its text line";
    }
    int depth = 0;
    for (char ch : table.text) {
      depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
      EXPECT_TRUE(depth == 0 || depth == 1) << "[...] groups do not nest: " << table.text;
    }
    EXPECT_EQ(depth, 0) << table.text;
  });
  EXPECT_GE(tables, 15U);
}

TEST(counter_table, every_counter_is_in_the_json_and_the_text_with_its_own_value) {
  RunReport r = every_section();
  fill(r);
  std::ostringstream json_text;
  write_json(json_text, r);
  const nlohmann::json json = nlohmann::json::parse(json_text.str());
  std::ostringstream text_out;
  write_text(text_out, r);
  const std::string text = text_out.str();
  std::size_t counters = 0;
  for_each_counter_table([&](const auto& table, auto section) {
    for (const auto* row : rows_of(section(r))) {
      for (const CounterReading& c : read_row(table, *row)) {
        ++counters;
        // sockperf's message counters are its own line's, not the JSON's.
        if (table.text.find("# dropped messages") == std::string_view::npos) {
          EXPECT_TRUE(has_field(json, std::string(c.name), json_value(c)))
              << c.name << " = " << json_value(c) << " is not in the JSON";
          if (!c.rate.empty()) {
            EXPECT_TRUE(has_field(json, std::string(c.rate), static_cast<double>(c.value.integer)))
                << c.rate << " is not in the JSON";
          }
        }
        // As the line names it: {name} in its form, {name/s} as its rate.
        const std::string name(c.name);
        if (table.text.find("{" + name + "}") != std::string_view::npos) {
          EXPECT_NE(text.find(text_value(c)), std::string::npos)
              << c.name << " = " << text_value(c) << " is not in the text:\n"
              << text;
        }
        if (table.text.find("{" + name + "/s}") != std::string_view::npos) {
          CounterReading rate = c;
          rate.form = Form::per_second;
          EXPECT_NE(text.find(text_value(rate)), std::string::npos)
              << c.name << "/s = " << text_value(rate) << " is not in the text:\n"
              << text;
        }
      }
    }
  });
  EXPECT_GE(counters, 60U);
}

TEST(counter_table, every_count_the_report_holds_is_subtracted_at_the_warm_up) {
  for_each_counter_table([&](const auto& table, auto) {
    for (const auto& c : table.counters) {
      const bool counted = c.unit == Unit::count || c.unit == Unit::bytes || c.unit == Unit::area;
      if (!c.at.subtract) {
        // Computed from what the warm-up's end starts again (a histogram), from subtracted
        // counters (derived), or an id.
        EXPECT_NE(c.warmup, Warmup::subtract) << c.name << " has nothing to subtract";
        if (c.warmup == Warmup::derived) {
          EXPECT_TRUE(counted) << c.name;
        }
      } else if (counted) {
        EXPECT_EQ(c.warmup, Warmup::subtract)
            << c.name << " counts from the run's start: the report must subtract the warm-up's";
      } else {
        EXPECT_NE(c.warmup, Warmup::subtract) << c.name << ": an id or a level is not a count";
      }
    }
  });
}

TEST(counter_table, the_warm_up_leaves_in_every_table_what_came_after_it) {
  RunReport end = every_section();
  fill(end, 1000);  // each counter above its value at the warm-up's end
  RunReport at_warmup = every_section();
  fill(at_warmup);
  RunReport r = end;
  subtract_warmup(r, at_warmup);
  for_each_counter_table([&](const auto& table, auto section) {
    const auto rows = rows_of(section(r));
    const auto end_rows = rows_of(section(end));
    const auto warm_rows = rows_of(section(at_warmup));
    ASSERT_EQ(rows.size(), end_rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (const auto& c : table.counters) {
        const CounterValue got = c.at.read(*rows[i]);
        const CounterValue before = c.at.read(*end_rows[i]);
        const CounterValue warm = c.at.read(*warm_rows[i]);
        if (c.warmup == Warmup::subtract || c.warmup == Warmup::derived) {
          // A derived counter is linear in subtracted ones: it moves by as much as they did.
          EXPECT_EQ(got.integer, before.integer - warm.integer) << c.name;
          EXPECT_EQ(got.real, before.real - warm.real) << c.name;
        } else {
          EXPECT_EQ(got.integer, before.integer) << c.name;
        }
      }
    }
  });
}

TEST(counter_table, a_group_prints_only_when_its_counters_are_shown) {
  QueueCounters q;
  q.rx_vector = 3;
  q.tx_vector = 3;
  std::ostringstream same;
  write_row_text(same, kQueueCounters, q, seconds(1), 0);
  EXPECT_EQ(same.str(),
            "queue 0 (vector 3 on cpu 0): rx 0 frames, 0 dropped, 0 cleaned; tx 0 frames; napi "
            "polls: softirq 0, timer 0, busy 0\n");
  q.tx_vector = 0;  // vector 0 is a vector: an id is shown when set, whatever its number
  q.vector.software = 2;
  std::ostringstream own;
  write_row_text(own, kQueueCounters, q, seconds(1), 1);
  EXPECT_EQ(own.str(),
            "queue 1 (vector 3 on cpu 0, Tx vector 0): rx 0 frames, 0 dropped, 0 cleaned; tx 0 "
            "frames; napi polls: softirq 0, timer 0, busy 0; 2 software interrupts\n");
}

}  // namespace
}  // namespace irqmod::sim
