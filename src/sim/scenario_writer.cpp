// Writing a scenario back as TOML (irqmod sim --print-scenario): every key in schema order, the
// platform and the array entries; it loads back to the same Scenario.
#include <charconv>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <utility>

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
    case ValueKind::path:
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
    if (section_of(spec.name) != section || is_queue_key(spec)) continue;
    line.assign(spec.name.substr(section.size() + 1));
    line += " = ";
    append_value(line, spec, spec.binding.load(scenario, entry));
    out << line << "\n";
  }
}

// ValueKind as the key reference names it.
std::string_view kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::integer:
      return "integer";
    case ValueKind::boolean:
      return "boolean";
    case ValueKind::text:
      return "text";
    case ValueKind::path:
      return "path";
    case ValueKind::choice:
      return "choice";
    case ValueKind::duration:
      return "duration";
    case ValueKind::bitrate:
      return "bitrate";
    case ValueKind::cpu_list:
      return "cpu list";
    case ValueKind::distribution:
      return "distribution";
  }
  return "";
}

// An integer bound; the C types' limits by name ("2^32-1").
std::string integer_bound(std::int64_t v) {
  constexpr std::pair<std::int64_t, std::string_view> kLimits[] = {
      {std::numeric_limits<std::int64_t>::max(), "2^63-1"},
      {std::numeric_limits<std::uint32_t>::max(), "2^32-1"},
      {std::numeric_limits<std::int32_t>::max(), "2^31-1"}};
  for (const auto& [limit, name] : kLimits) {
    if (v == limit) return std::string(name);
  }
  return std::to_string(v);
}

// A duration bound in the largest unit that holds it exactly ("1 h", "60 us"); 0 in the key's
// unit; a C type's limit of the key's unit by name ("(2^31-1) us").
std::string duration_bound(const KeySpec& spec, std::int64_t ns) {
  const std::int64_t key_unit = duration_unit_ns(spec.unit).value_or(1);
  if (ns == 0) return "0 " + std::string(spec.unit);
  if (ns % key_unit == 0 && integer_bound(ns / key_unit).find('^') != std::string::npos)
    return "(" + integer_bound(ns / key_unit) + ") " + std::string(spec.unit);
  constexpr std::pair<std::int64_t, std::string_view> kUnits[] = {
      {3'600'000'000'000, "h"}, {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}};
  for (const auto& [unit, name] : kUnits) {
    if (ns % unit == 0) return std::to_string(ns / unit) + " " + std::string(name);
  }
  return std::to_string(ns) + " ns";
}

// A bit rate bound in the largest unit that holds it exactly ("800 Gbit/s").
std::string bitrate_bound(std::int64_t bps) {
  constexpr std::pair<std::int64_t, std::string_view> kUnits[] = {{1'000'000'000'000, "Tbit/s"},
                                                                  {1'000'000'000, "Gbit/s"},
                                                                  {1'000'000, "Mbit/s"},
                                                                  {1'000, "kbit/s"}};
  for (const auto& [unit, name] : kUnits) {
    if (bps != 0 && bps % unit == 0) return std::to_string(bps / unit) + " " + std::string(name);
  }
  return std::to_string(bps) + " bit/s";
}

// The range column: the bounds the loader checks, or the choices.
std::string range_text(const KeySpec& spec) {
  switch (spec.kind) {
    case ValueKind::integer:
      return integer_bound(spec.min) + " .. " + integer_bound(spec.max);
    case ValueKind::duration:
    case ValueKind::distribution:
      return duration_bound(spec, spec.min) + " .. " + duration_bound(spec, spec.max);
    case ValueKind::bitrate:
      return bitrate_bound(spec.min) + " .. " + bitrate_bound(spec.max);
    case ValueKind::choice: {
      std::string out;
      for (const std::string_view c : choices_of(spec))
        out += (out.empty() ? "" : ", ") + std::string(c);
      return out;
    }
    case ValueKind::cpu_list:
      return "cores " + std::to_string(spec.min) + " .. " + std::to_string(spec.max);
    case ValueKind::boolean:
    case ValueKind::text:
    case ValueKind::path:
      return "";
  }
  return "";
}

// A key as written in its table: thread keys in each [[thread]] table.
std::string reference_name(const KeySpec& spec) {
  const std::string name(spec.name);
  if (section_of(spec.name) == kThreadArray)
    return "[[thread]] " + name.substr(kThreadArray.size() + 1);
  return name;
}

// A table cell: "|" would end it.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// "nic, lab": the kinds of run that read a key (KeySpec::readers), or "every run".
std::string readers_text(RunKinds readers) {
  constexpr std::string_view kNames[] = {"nic", "xdp", "storage", "lab"};
  if (readers == kEveryRun) return "every run";
  std::string out;
  for (const RunKind kind : kRunKinds) {
    if (readers.has(kind))
      out += (out.empty() ? "" : ", ") + std::string(kNames[static_cast<int>(kind)]);
  }
  return out;
}

}  // namespace

void write_key_reference(std::ostream& out, bool markdown) {
  if (markdown) {
    out << "| key | type | bare number in | default | range | read by | source of the default |\n"
        << "|---|---|---|---|---|---|---|\n";
    for (const KeySpec& spec : schema()) {
      out << "| `" << reference_name(spec) << "` | " << kind_name(spec.kind) << " | "
          << cell(spec.unit) << " | `" << cell(spec.default_value) << "` | "
          << cell(range_text(spec)) << " | " << readers_text(spec.readers) << " | "
          << cell(spec.source) << " |\n";
    }
    return;
  }
  for (const KeySpec& spec : schema()) {
    out << reference_name(spec) << " (" << kind_name(spec.kind);
    if (!spec.unit.empty()) out << ", a bare number in " << spec.unit;
    out << ")\n  default:  " << (spec.default_value.empty() ? "(none)" : spec.default_value)
        << " -- " << spec.source << "\n  allowed:  " << allowed_text(spec)
        << "\n  read by:  " << readers_text(spec.readers) << "\n";
  }
}

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
  // Per-NAPI settings: each a bare number in its device-wide key's unit (polls, ns).
  for (const auto& [queue, q] : scenario.napi.queue) {
    out << "\n[napi.queue." << queue << "]\n";
    if (q.defer_hard_irqs) out << "napi_defer_hard_irqs = " << *q.defer_hard_irqs << "\n";
    if (q.gro_flush_timeout) out << "gro_flush_timeout = " << q.gro_flush_timeout->count() << "\n";
    if (q.irq_suspend_timeout) {
      out << "irq_suspend_timeout = " << q.irq_suspend_timeout->count() << "\n";
    }
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
