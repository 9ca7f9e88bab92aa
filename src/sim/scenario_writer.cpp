// Writing a scenario back as TOML (irqmod sim --print-scenario): every key in schema order, the
// platform and the array entries; it loads back to the same Scenario.
#include <charconv>
#include <cstdio>
#include <ostream>
#include <string>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/units.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim {
using namespace detail;

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

void append_value(std::string& line, const KeySpec& spec, const Value& value) {
  switch (spec.kind) {
    case ValueKind::integer:
      line += std::to_string(std::get<std::int64_t>(value));
      break;
    case ValueKind::boolean:
      line += std::get<bool>(value) ? "true" : "false";
      break;
    case ValueKind::text:
    case ValueKind::cpu_list:
      append_toml_string(line, std::get<std::string>(value));
      break;
    case ValueKind::choice:
      append_toml_string(line,
                         choices_of(spec)[static_cast<std::size_t>(std::get<std::int64_t>(value))]);
      break;
    case ValueKind::duration:
      append_toml_string(line, format_duration(std::get<std::int64_t>(value)));
      break;
    case ValueKind::bitrate:
      append_toml_string(line,
                         format_bitrate(static_cast<std::uint64_t>(std::get<std::int64_t>(value))));
      break;
    case ValueKind::distribution:
      append_toml_string(line, format_distribution(std::get<Distribution>(value)));
      break;
  }
}

// Every key of `section` in schema order, for table `entry`.
void write_table(std::ostream& out, const Scenario& scenario, std::string_view section,
                 std::size_t entry) {
  std::string line;
  for (const KeySpec& spec : schema()) {
    if (section_of(spec.name) != section) continue;
    line.assign(spec.name.substr(section.size() + 1));
    line += " = ";
    append_value(line, spec, spec.binding.load(scenario, entry));
    out << line << "\n";
  }
}

}  // namespace

void write_toml(std::ostream& out, const Scenario& scenario) {
  if (!scenario.platform.empty()) {
    std::string line = "platform = ";
    append_toml_string(line, scenario.platform);
    out << line << "\n\n";
  }
  if (!scenario.kernel.empty()) {
    // Every key is written below, so the kernel's switches load back as they are.
    std::string line = "kernel = ";
    append_toml_string(line, scenario.kernel);
    out << line << "\n\n";
  }
  bool first = true;
  for (const std::string_view section : sections()) {
    if (section == kThreadArray) continue;
    out << (first ? "" : "\n") << "[" << section << "]\n";
    first = false;
    write_table(out, scenario, section, 0);
  }
  for (std::size_t i = 1; i <= scenario.flows.size(); ++i) {
    out << "\n[[" << kFlowArray << "]]\n";
    write_table(out, scenario, "traffic", i);
  }
  for (std::size_t i = 1; i <= scenario.threads.size(); ++i) {
    out << "\n[[" << kThreadArray << "]]\n";
    write_table(out, scenario, kThreadArray, i);
  }
  for (const SeedRow& row : scenario.seed_rows) {
    out << "\n[[" << kSeedRowArray << "]]\n";
    const auto text = [&](std::string_view key, const std::string& value) {
      std::string line(key);
      line += " = ";
      append_toml_string(line, value);
      out << line << "\n";
    };
    text("seed", row.seed);
    text("table", row.table);
    text("row", row.row);
    text("metric", row.metric);
    text("unit", row.unit);
    char number[64];
    const auto [end, ec] = std::to_chars(number, number + sizeof number, row.seed_value);
    std::string value(number, end);
    if (value.find_first_of(".eEn") == std::string::npos) value += ".0";  // a TOML float
    out << "seed_value = " << value << "\n";
    if (!row.seed_text.empty()) text("seed_text", row.seed_text);
    text("role", std::string(to_string(row.role)));
    if (!row.versus.empty()) text("versus", row.versus);
    if (!row.missing.empty()) text("missing", row.missing);
    if (!row.variant.empty()) text("variant", row.variant);
  }
  for (const Variant& variant : scenario.variants) {
    out << "\n[[" << kVariantArray << "]]\n";
    std::string line = "name = ";
    append_toml_string(line, variant.name);
    line += "\nset = [";
    for (std::size_t i = 0; i < variant.sets.size(); ++i) {
      line += i ? ", " : "";
      append_toml_string(line, variant.sets[i]);
    }
    out << line << "]\n";
  }
}

}  // namespace irqmod::sim
