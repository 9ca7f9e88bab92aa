// Loading scenario files: TOML through toml++, checked against the schema, then --set overrides,
// then the cross-key checks (which reuse the policy library's validators).
#include "irqmod/sim/scenario.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "irqmod/sim/units.hpp"
#include "sim/policy_config.hpp"

namespace irqmod::sim {

std::string Diagnostic::what() const {
  std::string out;
  if (!file.empty()) out += file + ":";
  if (line != 0) out += std::to_string(line) + ":";
  if (!out.empty()) out += " ";
  return out + error.what();
}

namespace {

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
    case ValueKind::duration: {
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
    case ValueKind::choice:
      return "one of " + join(choices_of(spec));
    case ValueKind::duration:
      return "a duration from " + range + ": an integer in " + std::string(spec.unit) +
             ", or a string with a unit (ns, us, ms, s) such as \"50us\"";
    case ValueKind::bitrate:
      return "a speed from " + range +
             ": an integer in Mbit/s (ethtool), or a string such as "
             "\"10G\" or \"2.5Gbit/s\"";
  }
  return "";
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
  }
  return type_error(spec, got());
}

std::uint32_t line_of(const toml::node& node) {
  return static_cast<std::uint32_t>(node.source().begin.line);
}

std::string unknown_key_message(std::string_view dotted) {
  std::vector<std::string_view> names;
  for (const KeySpec& spec : schema())
    names.push_back(spec.name);
  if (const auto near = closest(dotted, names)) {
    return "unknown key; did you mean " + std::string(*near) + "?";
  }
  std::vector<std::string_view> in_section;
  for (const KeySpec& spec : schema()) {
    if (section_of(spec.name) == section_of(dotted))
      in_section.push_back(spec.name.substr(spec.name.find('.') + 1));
  }
  return "unknown key; allowed in [" + std::string(section_of(dotted)) + "]: " + join(in_section);
}

std::string unknown_section_message(std::string_view section) {
  const std::vector<std::string_view> all = sections();
  std::string message = "unknown section";
  if (const auto near = closest(section, all))
    message += "; did you mean [" + std::string(*near) + "]?";
  return message + "; allowed: " + join(all);
}

// The schema's default of every key. The defaults are checked once by a unit test.
Scenario make_defaults() {
  Scenario scenario;
  for (const KeySpec& spec : schema()) {
    const auto value = parse_text(spec, spec.default_value);
    if (value.ok()) spec.binding.store(scenario, value.value());
  }
  return scenario;
}

std::string file_stem(std::string_view file) {
  return std::filesystem::path(std::string(file)).stem().string();
}

}  // namespace

Scenario default_scenario() {
  static const Scenario defaults = make_defaults();
  return defaults;
}

std::optional<std::string_view> suggest_key(std::string_view unknown) {
  std::vector<std::string_view> names;
  for (const KeySpec& spec : schema())
    names.push_back(spec.name);
  return closest(unknown, names);
}

std::optional<Diagnostic> apply_override(Scenario& scenario, std::string_view assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Diagnostic{"--set", 0,
                      Error{"", "'" + std::string(assignment) +
                                    "' is not key=value; allowed: a dotted key such as "
                                    "nic.rx-usecs=50"}};
  }
  std::string_view key = assignment.substr(0, eq);
  while (!key.empty() && key.back() == ' ')
    key.remove_suffix(1);
  std::string_view text = assignment.substr(eq + 1);
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  const KeySpec* spec = find_key(key);
  if (!spec) return Diagnostic{"--set", 0, Error{std::string(key), unknown_key_message(key)}};
  auto value = parse_text(*spec, text);
  if (!value) return Diagnostic{"--set", 0, value.error()};
  spec->binding.store(scenario, value.value());
  return std::nullopt;
}

std::optional<Diagnostic> validate(const Scenario& s, std::string_view file) {
  const auto fail = [&](Error e) { return Diagnostic{std::string(file), 0, std::move(e)}; };
  const TrafficSection& t = s.traffic;
  if (t.kind == TrafficKind::pcap && t.pcap.empty()) {
    return fail({"traffic.pcap", "traffic.kind = \"pcap\" needs a capture file; allowed: a path"});
  }
  if (t.kind == TrafficKind::on_off && t.on_time == Duration::zero()) {
    return fail({"traffic.on-time",
                 "traffic.kind = \"on-off\" needs a burst length; allowed: a duration above 0"});
  }
  if (t.kind == TrafficKind::request_response && t.rate == 0) {
    return fail({"traffic.rate",
                 "traffic.kind = \"request-response\" needs a request rate; allowed: 1 request/s "
                 "or more"});
  }
  if (t.kind == TrafficKind::poisson && t.rate == 0) {
    return fail({"traffic.rate",
                 "traffic.kind = \"poisson\" needs an average rate; allowed: 1 frame/s or more"});
  }
  if (auto e = validate_policies(s)) return fail(std::move(*e));
  const CpuSection& cpu = s.cpu;
  if (cpu.irq_core >= cpu.cores) {
    return fail({"cpu.irq-core", std::to_string(cpu.irq_core) + " is not a core; allowed: 0 to " +
                                     std::to_string(cpu.cores - 1) +
                                     " (cpu.cores = " + std::to_string(cpu.cores) + ")"});
  }
  if (cpu.app_core >= cpu.cores) {
    return fail({"cpu.app-core", std::to_string(cpu.app_core) + " is not a core; allowed: 0 to " +
                                     std::to_string(cpu.cores - 1) +
                                     " (cpu.cores = " + std::to_string(cpu.cores) + ")"});
  }
  return std::nullopt;
}

LoadResult load_scenario_text(std::string_view text, std::string_view file_name,
                              std::span<const std::string> overrides) {
  const std::string file(file_name);
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    return Diagnostic{file, static_cast<std::uint32_t>(e.source().begin.line),
                      Error{"", "TOML syntax: " + std::string(e.description())}};
  }
  Scenario scenario = default_scenario();
  std::vector<std::uint32_t> lines(schema().size(), 0);
  for (auto&& [section_key, section_node] : root) {
    const std::string section(section_key.str());
    const std::uint32_t section_line = static_cast<std::uint32_t>(section_key.source().begin.line);
    const std::vector<std::string_view> known = sections();
    if (std::find(known.begin(), known.end(), section) == known.end()) {
      if (!section_node.is_table()) {
        return Diagnostic{
            file, section_line,
            Error{section, "a key outside any section; keys belong in one of " + join(known)}};
      }
      return Diagnostic{file, section_line, Error{section, unknown_section_message(section)}};
    }
    const toml::table* table = section_node.as_table();
    if (!table) {
      return Diagnostic{file, section_line,
                        Error{section, "expected a section [" + section + "]; got " +
                                           std::string(toml_type_name(section_node))}};
    }
    for (auto&& [key, node] : *table) {
      const std::string dotted = section + "." + std::string(key.str());
      const std::uint32_t line = static_cast<std::uint32_t>(key.source().begin.line);
      const auto spec_it = std::find_if(schema().begin(), schema().end(),
                                        [&](const KeySpec& s) { return s.name == dotted; });
      if (spec_it == schema().end()) {
        return Diagnostic{file, line, Error{dotted, unknown_key_message(dotted)}};
      }
      auto value = from_toml(*spec_it, node);
      if (!value) return Diagnostic{file, line_of(node) ? line_of(node) : line, value.error()};
      spec_it->binding.store(scenario, value.value());
      lines[static_cast<std::size_t>(spec_it - schema().begin())] = line;
    }
  }
  for (const std::string& assignment : overrides) {
    if (auto d = apply_override(scenario, assignment)) return *d;
  }
  if (scenario.scenario.name.empty()) scenario.scenario.name = file_stem(file);
  if (auto d = validate(scenario, file)) {
    // Point at the line of the key the check names, when the file set it.
    if (const KeySpec* spec = find_key(d->error.key)) {
      d->line = lines[static_cast<std::size_t>(spec - schema().data())];
    }
    return *d;
  }
  return scenario;
}

LoadResult load_scenario_file(const std::string& path, std::span<const std::string> overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Diagnostic{path, 0,
                      Error{"", std::string("cannot read the file: ") + std::strerror(errno)}};
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return load_scenario_text(contents.str(), path, overrides);
}

namespace {

// A TOML basic string: quotes, backslash and every control character escaped (DEL included).
void append_toml_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace

void write_toml(std::ostream& out, const Scenario& scenario) {
  std::string_view current;
  std::string line;
  for (const KeySpec& spec : schema()) {
    const std::string_view section = section_of(spec.name);
    if (section != current) {
      out << (current.empty() ? "" : "\n") << "[" << section << "]\n";
      current = section;
    }
    line.assign(spec.name.substr(section.size() + 1));
    line += " = ";
    const Value value = spec.binding.load(scenario);
    switch (spec.kind) {
      case ValueKind::integer:
        line += std::to_string(std::get<std::int64_t>(value));
        break;
      case ValueKind::boolean:
        line += std::get<bool>(value) ? "true" : "false";
        break;
      case ValueKind::text:
        append_toml_string(line, std::get<std::string>(value));
        break;
      case ValueKind::choice:
        append_toml_string(
            line, choices_of(spec)[static_cast<std::size_t>(std::get<std::int64_t>(value))]);
        break;
      case ValueKind::duration:
        append_toml_string(line, format_duration(std::get<std::int64_t>(value)));
        break;
      case ValueKind::bitrate:
        append_toml_string(
            line, format_bitrate(static_cast<std::uint64_t>(std::get<std::int64_t>(value))));
        break;
    }
    out << line << "\n";
  }
}

}  // namespace irqmod::sim
