// The machine under a scenario: its platform file (platforms/<name>.toml, found beside the
// scenario, in IRQMOD_PLATFORM_PATH or in the installed share directory) and its kernel's
// switches (irqmod/napi/kernel.hpp), both applied before the file's own keys.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "irqmod/napi/kernel.hpp"
#include "irqmod/sim/share.hpp"
#include "sim/scenario_loading.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim {
namespace detail {

// Applies platform `name` (found for the scenario `file`) to `scenario`.
std::optional<Diagnostic> apply_platform(std::string_view name, const std::string& file,
                                         std::uint32_t line, Scenario& scenario) {
  auto path = find_platform(name, file);
  if (!path) return Diagnostic{file, line, Error{"platform", path.error().message}};
  std::ifstream in(path.value(), std::ios::binary);
  if (!in) {
    return Diagnostic{
        file, line,
        Error{"platform", "cannot read '" + path.value() + "': " + std::strerror(errno)}};
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  std::optional<Diagnostic> error;
  const auto root = parse_toml(contents.str(), path.value(), error);
  if (!root) return error;
  KeyLines ignored;
  if (auto d = apply_file(*root, path.value(), true, scenario, ignored)) return d;
  scenario.platform = std::string(name);
  return std::nullopt;
}

// Sets every kernel switch of the core and of `driver` to its value on `text`'s release
// (irqmod/napi/kernel.hpp); the file's own keys and --set come after, so an explicit key wins.
std::optional<Diagnostic> apply_kernel(std::string_view text, std::string_view driver,
                                       const std::string& file, std::uint32_t line,
                                       Scenario& scenario) {
  const auto version = napi::parse_kernel_version(text);
  if (!version) return Diagnostic{file, line, version.error()};
  for (const napi::KernelBehaviour& b : napi::kernel_behaviours()) {
    if (b.kind != napi::BehaviourKind::switch_value || !napi::applies_to_driver(b, driver))
      continue;
    if (!b.when.empty() && !kernel_condition_holds(b.when, scenario)) continue;
    const KeySpec* spec = find_key(b.key);
    const auto value = spec ? parse_text(*spec, napi::value_on(b, *version))
                            : Expected<Value>(Error{std::string(b.key), "not a scenario key"});
    if (!value) return Diagnostic{file, line, Error{"kernel", value.error().what()}};
    spec->binding.store(scenario, 0, value.value());
  }
  scenario.kernel = napi::to_string(*version);
  return std::nullopt;
}

// Where platform files are looked for, in order (find_platform's comment in scenario.hpp).
std::vector<std::filesystem::path> platform_dirs(std::string_view scenario_file) {
  namespace fs = std::filesystem;
  std::vector<fs::path> searched;
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(std::string(scenario_file)), ec).parent_path();
  while (!ec && !dir.empty()) {
    searched.push_back(dir / "platforms");
    if (dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  if (const char* extra = std::getenv("IRQMOD_PLATFORM_PATH")) {
    std::string_view rest = extra;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      if (colon != 0) searched.emplace_back(std::string(rest.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      rest = rest.substr(colon + 1);
    }
  }
  searched.emplace_back(fs::path(share_dir()) / "platforms");
  return searched;
}

// The platform names in `searched`, sorted, joined by ", ".
std::string platforms_in(const std::vector<std::filesystem::path>& searched) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> found;
  for (const fs::path& d : searched) {
    for (auto it = fs::directory_iterator(d, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      if (it->path().extension() == ".toml") found.push_back(it->path().stem().string());
    }
    ec.clear();
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::string known;
  for (const std::string& f : found)
    known += (known.empty() ? "" : ", ") + f;
  return known;
}

}  // namespace detail

Expected<std::string> find_platform(std::string_view name, std::string_view scenario_file) {
  namespace fs = std::filesystem;
  if (name.empty() || name.find('/') != std::string_view::npos || name.front() == '.') {
    return Error{"platform", "'" + std::string(name) +
                                 "' is not a platform name; allowed: the name of a file in "
                                 "platforms/ without its .toml, such as \"x86-i40e\""};
  }
  const std::string file = std::string(name) + ".toml";
  const std::vector<fs::path> searched = detail::platform_dirs(scenario_file);
  std::error_code ec;
  for (const fs::path& d : searched) {
    if (fs::is_regular_file(d / file, ec)) return (d / file).string();
  }
  const std::string known = detail::platforms_in(searched);
  return Error{"platform", "no platform '" + std::string(name) + "' (" + file +
                               ") beside the scenario, in IRQMOD_PLATFORM_PATH or in " +
                               searched.back().string() +
                               "; allowed: " + (known.empty() ? std::string("none found") : known)};
}

Scenario default_scenario_on(const Scenario& s) {
  Scenario defaults = default_scenario();
  if (!s.kernel.empty()) {
    // The kernel was checked when `s` was loaded; a failure here leaves the plain defaults.
    (void)detail::apply_kernel(s.kernel, to_string(s.nic.driver), "", 0, defaults);
  }
  return defaults;
}
}  // namespace irqmod::sim
