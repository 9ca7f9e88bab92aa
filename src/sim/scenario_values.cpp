// Scenario values: parsing and messages. See scenario_values.hpp.
#include "sim/scenario_values.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "irqmod/sim/units.hpp"

namespace irqmod::sim {
namespace detail {

std::string_view section_of(std::string_view dotted) {
  return dotted.substr(0, dotted.find('.'));
}

std::vector<std::string_view> choices_of(const KeySpec& spec) {
  std::vector<std::string_view> out;
  std::string_view rest = spec.choices;
  while (!rest.empty()) {
    const std::size_t bar = rest.find('|');
    out.push_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The closest of `candidates` to `word`, within 2 edits (3 for words of 12 or more characters).
// '-' and '_' count as the same letter: ethtool writes rx-usecs, sysctl busy_read.
std::optional<std::string_view> closest(std::string_view word,
                                        const std::vector<std::string_view>& candidates) {
  auto fold = [](std::string_view s) {
    std::string out(s);
    std::replace(out.begin(), out.end(), '_', '-');
    return out;
  };
  const std::string folded = fold(word);
  const std::size_t limit = word.size() >= 12 ? 3 : 2;
  std::optional<std::string_view> best;
  std::size_t best_distance = limit + 1;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(folded, fold(c));
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

bool is_queue_key(const KeySpec& spec) {
  return spec.name.substr(0, kQueueKeyPrefix.size()) == kQueueKeyPrefix;
}

bool is_entry_key(const KeySpec& spec) {
  return is_queue_key(spec) || section_of(spec.name) == kThreadArray;
}

std::string queue_key(const KeySpec& spec, std::uint32_t queue) {
  return "napi.queue." + std::to_string(queue) + "." +
         std::string(spec.name.substr(kQueueKeyPrefix.size()));
}

const KeySpec* find_queue_key(std::string_view key) {
  return find_key(std::string(kQueueKeyPrefix) + std::string(key));
}

std::vector<std::string_view> sections() {
  std::vector<std::string_view> out;
  for (const KeySpec& spec : schema()) {
    const std::string_view s = section_of(spec.name);
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view w : words)
    out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}

// How a bound is shown: in the key's unit when exact, else with the shortest exact unit.
std::string bound_text(const KeySpec& spec, std::int64_t v) {
  switch (spec.kind) {
    case ValueKind::duration:
    case ValueKind::distribution: {
      const auto unit = duration_unit_ns(spec.unit);
      if (unit && v % *unit == 0) return std::to_string(v / *unit) + " " + std::string(spec.unit);
      return format_duration(v);
    }
    case ValueKind::bitrate:
      return format_bitrate(static_cast<std::uint64_t>(v)) + "bit/s";
    default:
      return std::to_string(v) + (spec.unit.empty() ? "" : " " + std::string(spec.unit));
  }
}

std::string value_text(const KeySpec& spec, std::int64_t v) {
  switch (spec.kind) {
    case ValueKind::duration:
    case ValueKind::distribution:
      return format_duration(v);
    case ValueKind::bitrate:
      return format_bitrate(static_cast<std::uint64_t>(v));
    default:
      return std::to_string(v);
  }
}

// What a key accepts, for messages.
std::string allowed_text(const KeySpec& spec) {
  const std::string range = bound_text(spec, spec.min) + " to " + bound_text(spec, spec.max);
  switch (spec.kind) {
    case ValueKind::integer:
      return "an integer from " + range;
    case ValueKind::boolean:
      return "true or false (or \"on\" / \"off\")";
    case ValueKind::text:
      return "a string";
    case ValueKind::path:
      return "a file name (relative: to the scenario file's directory)";
    case ValueKind::choice:
      return "one of " + join(choices_of(spec));
    case ValueKind::duration:
      return "a duration from " + range + ": an integer in " + std::string(spec.unit) +
             ", or a string with a unit (ns, us, ms, s) such as \"50us\"";
    case ValueKind::bitrate:
      return "a speed from " + range +
             ": an integer in Mbit/s (ethtool), or a string such as "
             "\"10G\" or \"2.5Gbit/s\"";
    case ValueKind::distribution:
      return "a duration from " + range + " (an integer in " + std::string(spec.unit) +
             ", or a string with a unit such as \"760ns\"), or a distribution of such "
             "durations: \"uniform(600ns, 900ns)\", \"exponential(760ns)\", "
             "\"exponential(760ns, min=600ns)\", \"lognormal(760ns, cv=0.3)\"";
    case ValueKind::cpu_list:
      return "a list of cores from " + std::to_string(spec.min) + " to " +
             std::to_string(spec.max) + ": an array such as [0, 1] or a cpulist such as \"0-3,6\"";
  }
  return "";
}

// The canonical cpulist of `cores` (in the order given): runs of consecutive cores as "a-b".
std::string format_cpu_list(const std::vector<std::uint32_t>& cores) {
  std::string out;
  for (std::size_t i = 0; i < cores.size();) {
    std::size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1)
      ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cores[i]);
    if (j > i) out += "-" + std::to_string(cores[j]);
    i = j + 1;
  }
  return out;
}

Expected<Value> distribution_value(const KeySpec& spec, std::string_view text) {
  auto d = parse_distribution(text, spec.unit);
  if (!d)
    return Error{std::string(spec.name), d.error().message + "; allowed: " + allowed_text(spec)};
  // Every value the distribution names must be in the key's range (its draws are not bounded
  // above for the exponential and lognormal; the mean is what the range checks there).
  for (const std::int64_t v : {d.value().a_ns, d.value().b_ns}) {
    if (v < spec.min || v > spec.max) {
      return Error{std::string(spec.name),
                   format_distribution(d.value()) + " is out of range; allowed: values from " +
                       bound_text(spec, spec.min) + " to " + bound_text(spec, spec.max)};
    }
  }
  return Value{d.value()};
}

Expected<Value> cpu_list_value(const KeySpec& spec, std::string_view text) {
  auto cores = parse_cpu_list(text);
  if (!cores) return Error{std::string(spec.name), cores.error().message};
  for (const std::uint32_t core : cores.value()) {
    if (core < spec.min || core > spec.max) {
      return Error{std::string(spec.name), "core " + std::to_string(core) +
                                               " is out of range; allowed: " + allowed_text(spec)};
    }
  }
  return Value{format_cpu_list(cores.value())};
}

Error type_error(const KeySpec& spec, std::string_view got) {
  return Error{std::string(spec.name),
               "expected " + allowed_text(spec) + "; got " + std::string(got)};
}

std::optional<Error> range_error(const KeySpec& spec, std::int64_t v) {
  if (v >= spec.min && v <= spec.max) return std::nullopt;
  return Error{std::string(spec.name),
               value_text(spec, v) + " is out of range; allowed: " + bound_text(spec, spec.min) +
                   " to " + bound_text(spec, spec.max)};
}

Expected<Value> choice_value(const KeySpec& spec, std::string_view text) {
  const std::vector<std::string_view> choices = choices_of(spec);
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == text) return Value{static_cast<std::int64_t>(i)};
  }
  std::string message = "'" + std::string(text) + "' is not allowed";
  if (const auto near = closest(text, choices))
    message += "; did you mean '" + std::string(*near) + "'?";
  return Error{std::string(spec.name), message + "; allowed: " + join(choices)};
}

Expected<Value> checked(const KeySpec& spec, std::int64_t v) {
  if (auto e = range_error(spec, v)) return *e;
  return Value{v};
}

// A value written as text: --set values and the schema's defaults.
Expected<Value> parse_text(const KeySpec& spec, std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  switch (spec.kind) {
    case ValueKind::integer: {
      std::string digits(text);
      digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec == std::errc::result_out_of_range) {
        return Error{std::string(spec.name),
                     "'" + std::string(text) + "' is out of range; allowed: " +
                         bound_text(spec, spec.min) + " to " + bound_text(spec, spec.max)};
      }
      if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
        return type_error(spec, "'" + std::string(text) + "'");
      }
      return checked(spec, v);
    }
    case ValueKind::boolean:
      if (text == "true" || text == "on") return Value{true};
      if (text == "false" || text == "off") return Value{false};
      return type_error(spec, "'" + std::string(text) + "'");
    case ValueKind::text:
    case ValueKind::path:
      return Value{std::string(text)};
    case ValueKind::choice:
      return choice_value(spec, text);
    case ValueKind::duration: {
      const auto ns = parse_duration_ns(text, spec.unit);
      if (!ns) return type_error(spec, "'" + std::string(text) + "'");
      return checked(spec, *ns);
    }
    case ValueKind::bitrate: {
      const auto bps = parse_bitrate(text);
      if (!bps) return type_error(spec, "'" + std::string(text) + "'");
      return checked(spec, static_cast<std::int64_t>(*bps));
    }
    case ValueKind::distribution:
      return distribution_value(spec, text);
    case ValueKind::cpu_list: {
      // --set cpu.irq-cores=[0,1] as well as =0-1
      if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
        std::string list(text.substr(1, text.size() - 2));
        list.erase(std::remove(list.begin(), list.end(), ' '), list.end());
        return cpu_list_value(spec, list);
      }
      return cpu_list_value(spec, text);
    }
  }
  return type_error(spec, "'" + std::string(text) + "'");
}

std::string_view toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// A value from the file: TOML types must match the key's kind.
Expected<Value> from_toml(const KeySpec& spec, const toml::node& node) {
  const auto got = [&] {
    std::string text(toml_type_name(node));
    if (const auto* s = node.as_string()) text += " '" + s->get() + "'";
    if (const auto* i = node.as_integer()) text += " " + std::to_string(i->get());
    return text;
  };
  switch (spec.kind) {
    case ValueKind::integer:
      if (const auto* i = node.as_integer()) return checked(spec, i->get());
      return type_error(spec, got());
    case ValueKind::boolean:
      if (const auto* b = node.as_boolean()) return Value{b->get()};
      if (const auto* s = node.as_string(); s && (s->get() == "on" || s->get() == "off")) {
        return Value{s->get() == "on"};
      }
      return type_error(spec, got());
    case ValueKind::text:
    case ValueKind::path:
      if (const auto* s = node.as_string()) return Value{s->get()};
      return type_error(spec, got());
    case ValueKind::choice:
      if (const auto* s = node.as_string()) return choice_value(spec, s->get());
      return type_error(spec, got());
    case ValueKind::duration:
    case ValueKind::bitrate:
      if (const auto* i = node.as_integer()) {
        if (spec.kind == ValueKind::bitrate) {
          if (i->get() < 0 || i->get() > std::numeric_limits<std::int64_t>::max() / 1'000'000) {
            return Error{std::string(spec.name),
                         std::to_string(i->get()) + " Mbit/s is out of range; allowed: " +
                             bound_text(spec, spec.min) + " to " + bound_text(spec, spec.max)};
          }
          return checked(spec, i->get() * 1'000'000);
        }
        const std::int64_t unit = duration_unit_ns(spec.unit).value_or(1);
        if (i->get() < 0 || i->get() > std::numeric_limits<std::int64_t>::max() / unit) {
          return Error{std::string(spec.name),
                       std::to_string(i->get()) + " " + std::string(spec.unit) +
                           " is out of range; allowed: " + bound_text(spec, spec.min) + " to " +
                           bound_text(spec, spec.max)};
        }
        return checked(spec, i->get() * unit);
      }
      if (const auto* s = node.as_string()) return parse_text(spec, s->get());
      return type_error(spec, got());
    case ValueKind::distribution:
      if (const auto* i = node.as_integer()) {
        const std::int64_t unit = duration_unit_ns(spec.unit).value_or(1);
        if (i->get() < 0 || i->get() > std::numeric_limits<std::int64_t>::max() / unit) {
          return Error{std::string(spec.name),
                       std::to_string(i->get()) + " " + std::string(spec.unit) +
                           " is out of range; allowed: " + bound_text(spec, spec.min) + " to " +
                           bound_text(spec, spec.max)};
        }
        return distribution_value(spec, std::to_string(i->get()));
      }
      if (const auto* s = node.as_string()) return distribution_value(spec, s->get());
      return type_error(spec, got());
    case ValueKind::cpu_list:
      if (const auto* s = node.as_string()) return cpu_list_value(spec, s->get());
      if (const auto* array = node.as_array()) {
        std::string list;
        for (const toml::node& element : *array) {
          const auto* core = element.as_integer();
          if (!core || core->get() < 0)
            return type_error(spec, "an array holding " + std::string(toml_type_name(element)));
          list += (list.empty() ? "" : ",") + std::to_string(core->get());
        }
        return cpu_list_value(spec, list);
      }
      return type_error(spec, got());
  }
  return type_error(spec, got());
}

std::uint32_t line_of(const toml::node& node) {
  return static_cast<std::uint32_t>(node.source().begin.line);
}

}  // namespace detail

Expected<std::vector<std::uint32_t>> parse_cpu_list(std::string_view text) {
  std::vector<std::uint32_t> cores;
  const auto bad = [&](std::string_view why) {
    return Error{"", "'" + std::string(text) + "' " + std::string(why) +
                         "; allowed: core numbers and ranges separated by commas, such as "
                         "\"0-3,6\""};
  };
  if (text.empty()) return bad("is empty");
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t dash = item.find('-');
    const auto number = [](std::string_view digits) -> std::optional<std::uint32_t> {
      std::uint32_t v = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty())
        return std::nullopt;
      return v;
    };
    const auto first = number(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : number(item.substr(dash + 1));
    if (!first || !last) return bad("is not a cpulist");
    if (*last < *first) return bad("has a range that runs backwards");
    if (*last - *first > 4096) return bad("has a range of more than 4096 cores");
    for (std::uint32_t c = *first; c <= *last; ++c) {
      if (std::find(cores.begin(), cores.end(), c) != cores.end()) return bad("names a core twice");
      cores.push_back(c);
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return cores;
}
}  // namespace irqmod::sim
