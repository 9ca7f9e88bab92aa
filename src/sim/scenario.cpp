// Loading scenario files: TOML through toml++, a platform file first, then the file's own
// sections and array entries, then --set overrides, then the cross-key checks (validate, in
// scenario_checks.cpp, which reuse the policy library's validators through policy_config).
#include "irqmod/sim/scenario.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include "irqmod/napi/kernel.hpp"
#include "irqmod/sim/share.hpp"
#include "irqmod/sim/units.hpp"
#include "sim/scenario_loading.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim {

std::string Diagnostic::what() const {
  std::string out;
  if (!file.empty()) out += file + ":";
  if (line != 0) out += std::to_string(line) + ":";
  if (!out.empty()) out += " ";
  return out + error.what();
}

// A kernel row's condition, "KEY=VALUE": whether the scenario's KEY has that value.
bool kernel_condition_holds(std::string_view condition, const Scenario& s) {
  const std::size_t eq = condition.find('=');
  const KeySpec* spec = find_key(condition.substr(0, eq));
  assert(spec != nullptr && eq != std::string_view::npos && "a kernel row's `when` names a key");
  const auto value = detail::parse_text(*spec, condition.substr(eq + 1));
  assert(value.ok() && "a kernel row's `when` has a valid value");
  return spec->binding.load(s, 0) == value.value();
}

namespace {

using namespace detail;

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

// An array entry's key ("flow.2.rate", "thread.1.core") as the schema's key ("traffic.rate",
// "thread.core") and the entry number, or nothing when `dotted` is not of that form.
struct EntryKey {
  std::string spec_name;
  std::size_t entry = 0;
};
std::optional<EntryKey> entry_key(std::string_view dotted) {
  const std::size_t first = dotted.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const std::string_view array = dotted.substr(0, first);
  if (array != kFlowArray && array != kThreadArray) return std::nullopt;
  const std::size_t second = dotted.find('.', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const std::string_view number = dotted.substr(first + 1, second - first - 1);
  std::size_t entry = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), entry);
  if (ec != std::errc{} || end != number.data() + number.size()) return std::nullopt;
  const std::string section = array == kFlowArray ? "traffic" : "thread";
  return EntryKey{section + "." + std::string(dotted.substr(second + 1)), entry};
}

std::vector<std::string_view> known_sections() {
  std::vector<std::string_view> all = sections();
  all.push_back(kFlowArray);
  all.push_back(kSeedRowArray);
  all.push_back(kVariantArray);
  return all;
}

bool is_array_section(std::string_view section) {
  return section == kFlowArray || section == kThreadArray || section == kSeedRowArray ||
         section == kVariantArray;
}

// The sections as a file writes them: [[flow]] and [[thread]] with double brackets.
std::string sections_text() {
  std::string out;
  for (const std::string_view s : known_sections()) {
    out += out.empty() ? "" : ", ";
    out += is_array_section(s) ? "[[" + std::string(s) + "]]" : std::string(s);
  }
  return out;
}

std::string unknown_section_message(std::string_view section) {
  const std::vector<std::string_view> all = known_sections();
  std::string message = "unknown section";
  if (const auto near = closest(section, all)) {
    message += is_array_section(*near) ? "; did you mean [[" + std::string(*near) + "]]?"
                                       : "; did you mean [" + std::string(*near) + "]?";
  }
  return message + "; allowed: " + sections_text();
}

// The schema's default of every key. The defaults are checked once by a unit test.
Scenario make_defaults() {
  Scenario scenario;
  for (const KeySpec& spec : schema()) {
    if (is_entry_key(spec)) continue;  // no [[thread]] or [napi.queue.N] entry by default
    const auto value = parse_text(spec, spec.default_value);
    if (value.ok()) spec.binding.store(scenario, 0, value.value());
  }
  scenario.machine = {scenario.link, scenario.nic, scenario.napi, scenario.cpu};
  return scenario;
}

// A new [[thread]] entry with every thread key at its default.
ThreadSection default_thread() {
  Scenario scenario;
  scenario.threads.emplace_back();
  for (const KeySpec& spec : schema()) {
    if (section_of(spec.name) != kThreadArray) continue;
    const auto value = parse_text(spec, spec.default_value);
    if (value.ok()) spec.binding.store(scenario, 1, value.value());
  }
  return scenario.threads.front();
}

std::string file_stem(std::string_view file) {
  return std::filesystem::path(std::string(file)).stem().string();
}

// A file a scenario (or platform) file names, as seen from the current directory: a relative
// name is relative to the directory of `file`, as a user reading that file expects; a name given
// with --set stays relative to the current directory.
std::string beside(std::string_view file, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path target(name);
  const fs::path dir = fs::path(std::string(file)).parent_path();
  if (name.empty() || target.is_absolute() || dir.empty()) return name;
  return (dir / target).lexically_normal().string();
}

// One table of keys (a section or an array entry) into `scenario`. `prefix` is how its keys are
// named in messages ("nic", "flow.2"); `section` the schema section they belong to.
std::optional<Diagnostic> apply_table(const toml::table& table, const std::string& file,
                                      std::string_view section, const std::string& prefix,
                                      std::size_t entry, Scenario& scenario, KeyLines& lines) {
  for (auto&& [key, node] : table) {
    if (section == "napi" && key.str() == "queue") {
      if (auto d = apply_queue_tables(node, file, scenario, lines)) return d;
      continue;
    }
    const std::string spec_name = std::string(section) + "." + std::string(key.str());
    const std::string dotted = prefix + "." + std::string(key.str());
    const std::uint32_t line = static_cast<std::uint32_t>(key.source().begin.line);
    const KeySpec* spec = find_key(spec_name);
    if (!spec) {
      std::string message = unknown_key_message(spec_name);
      if (prefix != section) {
        // "did you mean traffic.rate?" inside a [[flow]] entry: name the key as it is written.
        const std::string from = std::string(section) + ".";
        for (std::size_t at = message.find(from); at != std::string::npos;
             at = message.find(from, at))
          message.replace(at, from.size(), "");
      }
      return Diagnostic{file, line, Error{dotted, message}};
    }
    auto value = from_toml(*spec, node);
    if (!value) {
      Error e = value.error();
      e.key = dotted;
      return Diagnostic{file, line_of(node) ? line_of(node) : line, e};
    }
    if (spec->kind == ValueKind::path) value = Value{beside(file, std::get<std::string>(*value))};
    spec->binding.store(scenario, entry, value.value());
    lines[dotted] = line;
  }
  return std::nullopt;
}

}  // namespace

namespace detail {

std::optional<Diagnostic> apply_file(const toml::table& root, const std::string& file,
                                     bool platform, Scenario& scenario, KeyLines& lines) {
  const std::vector<std::string_view> known = known_sections();
  constexpr std::string_view kPlatformSections[] = {"link", "nic", "napi", "cpu"};
  for (auto&& [section_key, section_node] : root) {
    const std::string section(section_key.str());
    const std::uint32_t section_line = static_cast<std::uint32_t>(section_key.source().begin.line);
    if ((section == "platform" || section == "kernel") && !platform)
      continue;  // applied first, by the caller
    if (std::find(known.begin(), known.end(), section) == known.end()) {
      if (!section_node.is_table() && !section_node.is_array()) {
        return Diagnostic{
            file, section_line,
            Error{section, "a key outside any section; keys belong in one of " + sections_text() +
                               " (only platform = \"...\" and kernel = \"...\" stand alone)"}};
      }
      return Diagnostic{file, section_line, Error{section, unknown_section_message(section)}};
    }
    if (platform && std::find(std::begin(kPlatformSections), std::end(kPlatformSections),
                              section) == std::end(kPlatformSections)) {
      return Diagnostic{file, section_line,
                        Error{section,
                              "a platform file sets the machine only; allowed: [link], "
                              "[nic], [napi], [cpu]"}};
    }
    if (is_array_section(section)) {
      const toml::array* array = section_node.as_array();
      if (!array || !array->is_array_of_tables()) {
        return Diagnostic{
            file, section_line,
            Error{section, "expected [[" + section + "]] tables, one per " + section +
                               " beyond the first ([" +
                               (section == kFlowArray ? "traffic" : "cpu") + "] describes " +
                               section + " 0); got " + std::string(toml_type_name(section_node))}};
      }
      std::size_t entry = 0;
      for (const toml::node& element : *array) {
        ++entry;
        if (section == kVariantArray) {
          Variant& variant = scenario.variants.emplace_back();
          if (auto d = apply_variant(*element.as_table(), file, line_of(element), entry, variant))
            return d;
          continue;
        }
        if (section == kSeedRowArray) {
          SeedRow& row = scenario.seed_rows.emplace_back();
          if (auto d = apply_seed_row(*element.as_table(), file, line_of(element), entry, row))
            return d;
          continue;
        }
        if (section == kFlowArray) {
          scenario.flows.push_back(default_scenario().traffic);
        } else {
          scenario.threads.push_back(default_thread());
        }
        const std::string prefix = section + "." + std::to_string(entry);
        const std::string_view spec_section =
            section == kFlowArray ? std::string_view("traffic") : std::string_view(section);
        if (auto d = apply_table(*element.as_table(), file, spec_section, prefix, entry, scenario,
                                 lines))
          return d;
      }
      continue;
    }
    const toml::table* table = section_node.as_table();
    if (!table) {
      return Diagnostic{file, section_line,
                        Error{section, "expected a section [" + section + "]; got " +
                                           std::string(toml_type_name(section_node))}};
    }
    if (auto d = apply_table(*table, file, section, section, 0, scenario, lines)) return d;
  }
  return std::nullopt;
}

std::optional<toml::table> parse_toml(std::string_view text, const std::string& file,
                                      std::optional<Diagnostic>& error) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    error = Diagnostic{file, static_cast<std::uint32_t>(e.source().begin.line),
                       Error{"", "TOML syntax: " + std::string(e.description())}};
    return std::nullopt;
  }
}

}  // namespace detail

namespace {
// The value after "<top_key>=" (platform, kernel) in the overrides, if one sets it (the last
// one wins).
std::optional<std::string> top_level_override(std::span<const std::string> overrides,
                                              std::string_view top_key) {
  std::optional<std::string> name;
  for (const std::string& assignment : overrides) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string::npos) continue;
    std::string_view key = std::string_view(assignment).substr(0, eq);
    while (!key.empty() && key.back() == ' ')
      key.remove_suffix(1);
    if (key != top_key) continue;
    std::string_view value = std::string_view(assignment).substr(eq + 1);
    while (!value.empty() && value.front() == ' ')
      value.remove_prefix(1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    name = std::string(value);
  }
  return name;
}

// A top-level key (platform, kernel): its text and its line in the file.
struct TopLevel {
  std::string_view key;
  std::string_view expected;  // for the message when it is not a string
  std::optional<std::string> value;
  std::uint32_t line = 0;
};

// Reads `top` from --set (the last one wins) or else from the file.
std::optional<Diagnostic> read_top_level(const toml::table& root,
                                         std::span<const std::string> overrides,
                                         const std::string& file, TopLevel& top) {
  top.value = top_level_override(overrides, top.key);
  const toml::node* node = root.get(top.key);
  if (!node) return std::nullopt;
  top.line = line_of(*node);
  const auto* text = node->as_string();
  if (!text) {
    return Diagnostic{
        file, top.line,
        Error{std::string(top.key), "expected " + std::string(top.expected) + "; got " +
                                        std::string(toml_type_name(*node))}};
  }
  if (!top.value) top.value = text->get();
  return std::nullopt;
}

// nic.driver as --set or the file gives it, read before the file's keys are applied because it
// decides which kernel rows apply; a value that is not a driver is left for the file's own
// check to refuse (the default is used meanwhile).
std::string_view kernel_driver(const toml::table& root, std::span<const std::string> overrides) {
  std::optional<std::string> text = top_level_override(overrides, "nic.driver");
  if (!text) {
    if (const auto* node = root.at_path("nic.driver").as_string()) text = node->get();
  }
  for (const NicDriver d : {NicDriver::i40e, NicDriver::ice, NicDriver::enetc}) {
    if (text && *text == to_string(d)) return to_string(d);
  }
  return napi::kDefaultDriver;
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

std::optional<Diagnostic> apply_override(Scenario& scenario, std::string_view assignment,
                                         std::string_view origin) {
  const std::string from(origin);
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Diagnostic{from, 0,
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
  if (key == "platform" || key == "kernel") return std::nullopt;  // applied before the file
  if (auto queue = apply_queue_override(scenario, key, text, from)) return *queue;
  std::size_t entry = 0;
  const KeySpec* spec = nullptr;
  if (const auto e = entry_key(key)) {
    const bool flow = key.substr(0, key.find('.')) == kFlowArray;
    const std::size_t count = flow ? scenario.flows.size() : scenario.threads.size();
    if (e->entry == 0 || e->entry > count) {
      const std::string what = flow ? "[[flow]]" : "[[thread]]";
      return Diagnostic{
          from, 0,
          Error{std::string(key),
                "there is no " + what + " " + std::to_string(e->entry) + "; allowed: 1 to " +
                    std::to_string(count) + " (the scenario has " + std::to_string(count) + "; " +
                    (flow ? "[traffic] is flow 0" : "[cpu] app-core is thread 0") + ")"}};
    }
    spec = find_key(e->spec_name);
    entry = e->entry;
    if (!spec) {
      return Diagnostic{from, 0, Error{std::string(key), unknown_key_message(e->spec_name)}};
    }
  } else {
    spec = find_key(key);
    if (spec && section_of(spec->name) == kThreadArray) spec = nullptr;  // needs an entry
    if (!spec) return Diagnostic{from, 0, Error{std::string(key), unknown_key_message(key)}};
  }
  auto value = parse_text(*spec, text);
  if (!value) {
    Error error = value.error();
    error.key = std::string(key);
    return Diagnostic{from, 0, error};
  }
  spec->binding.store(scenario, entry, value.value());
  return std::nullopt;
}
std::string_view to_string(NicDriver driver) {
  switch (driver) {
    case NicDriver::ice:
      return "ice";
    case NicDriver::enetc:
      return "enetc";
    case NicDriver::i40e:
      break;
  }
  return "i40e";
}

LoadResult load_scenario_text(std::string_view text, std::string_view file_name,
                              std::span<const std::string> overrides) {
  const std::string file(file_name);
  std::optional<Diagnostic> error;
  const auto root = parse_toml(text, file, error);
  if (!root) return *error;
  Scenario scenario = default_scenario();
  KeyLines lines;
  // The platform first, then the kernel's switches, then the file's own keys (which win); a
  // --set platform=... or kernel=... replaces the file's.
  TopLevel platform{"platform", "a platform name such as \"x86-i40e\"", std::nullopt, 0};
  TopLevel kernel{"kernel", "a Linux release such as \"6.1\"", std::nullopt, 0};
  for (TopLevel* top : {&platform, &kernel}) {
    if (auto d = read_top_level(*root, overrides, file, *top)) return *d;
  }
  // No silent default for the physics (issue 30): without a platform every cost the file does not
  // set would be 0. "none" says so on purpose (the tests' own cost models, a fuzzer's input).
  if (!platform.value) {
    const std::string known = platforms_in(platform_dirs(file));
    return Diagnostic{
        file, 0,
        Error{"platform",
              "the scenario names no platform, so every machine cost it does not set ([cpu]'s, "
              "nic.dma-delay) would be 0; allowed: platform = \"NAME\" at the top of the file (or "
              "--set "
              "platform=NAME) with NAME one of " +
                  (known.empty() ? std::string("the files of platforms/") : known) +
                  ", or platform = \"none\" for the file's own costs only"}};
  }
  if (*platform.value == kNoPlatform) {
    scenario.platform = std::string(kNoPlatform);
  } else if (auto d = apply_platform(*platform.value, file, platform.line, scenario)) {
    return *d;
  }
  if (kernel.value) {
    if (auto d = apply_kernel(*kernel.value, kernel_driver(*root, overrides), file, kernel.line,
                              scenario))
      return *d;
  }
  scenario.machine = {scenario.link, scenario.nic, scenario.napi, scenario.cpu};
  if (auto d = apply_file(*root, file, false, scenario, lines)) return *d;
  // Variants are checked on the file as written: each is the file plus its own assignments.
  if (!scenario.variants.empty()) {
    Scenario written = scenario;
    if (written.scenario.name.empty()) written.scenario.name = file_stem(file);
    if (auto d = check_variants(written, file)) return *d;
  }
  for (const std::string& assignment : overrides) {
    if (auto d = apply_override(scenario, assignment)) return *d;
  }
  if (scenario.scenario.name.empty()) scenario.scenario.name = file_stem(file);
  if (auto d = check_variant_rows(scenario, file)) return *d;
  if (auto d = validate(scenario, file)) {
    // Point at the line of the key the check names, when the file set it.
    if (const auto it = lines.find(d->error.key); it != lines.end()) d->line = it->second;
    return *d;
  }
  return scenario;
}

LoadResult load_scenario_file(const std::string& path, std::span<const std::string> overrides) {
  namespace fs = std::filesystem;
  // A directory opens and reads as empty, which would be the default scenario: refuse it, and
  // anything else that is not a regular file (a FIFO would block, a device never end).
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) return Diagnostic{path, 0, Error{"", "cannot read the file: " + ec.message()}};
  if (fs::is_directory(status)) {
    return Diagnostic{path, 0,
                      Error{"", "is a directory; allowed: a scenario file (TOML), such as " +
                                    (fs::path(path) / "<name>.toml").string() +
                                    " (irqmod run --dir runs every one under a directory)"}};
  }
  if (!fs::is_regular_file(status))
    return Diagnostic{path, 0, Error{"", "is not a regular file; allowed: a scenario file (TOML)"}};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Diagnostic{path, 0,
                      Error{"", std::string("cannot read the file: ") + std::strerror(errno)}};
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    return Diagnostic{path, 0,
                      Error{"", std::string("cannot read the file: ") + std::strerror(errno)}};
  }
  return load_scenario_text(contents.str(), path, overrides);
}

LoadResult load_measured(const std::function<LoadResult(std::span<const std::string>)>& load,
                         std::vector<std::string> sets,
                         const std::optional<std::string>& duration) {
  if (!duration) return load(sets);
  const auto measured = parse_duration_ns(*duration, "s");
  if (!measured || *measured <= 0) {
    // The units and the limit both: "10h" or "2min" is a unit the parser lacks, and the run
    // could not be that long anyway.
    const KeySpec* key = find_key("scenario.duration");
    return Diagnostic{"", 0,
                      Error{"--duration", "'" + *duration +
                                              "' is not a duration; allowed: a time above 0 up "
                                              "to " +
                                              format_duration(key->max) +
                                              " (scenario.duration's limit, the warm-up "
                                              "included) in ns, us, ms or s, such as 100ms (a "
                                              "bare number is seconds)"}};
  }
  LoadResult first = load(sets);
  if (!first) return first;
  const std::int64_t warmup = first.value().scenario.warmup.count();
  const std::int64_t total = *measured > std::numeric_limits<std::int64_t>::max() - warmup
                                 ? std::numeric_limits<std::int64_t>::max()
                                 : warmup + *measured;
  const std::string assignment = "scenario.duration=" + std::to_string(total) + "ns";
  Scenario scratch = first.value();
  if (auto d = apply_override(scratch, assignment, "--duration")) {
    d->error.message += " (scenario.duration = the warm-up, " + format_duration(warmup) +
                        ", + --duration " + *duration + ")";
    return *d;
  }
  sets.insert(sets.begin(), assignment);
  return load(sets);
}

}  // namespace irqmod::sim
