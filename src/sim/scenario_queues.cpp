// Per-NAPI settings: [napi.queue.N] tables and napi.queue.N.KEY=VALUE assignments, whose keys are
// the schema's napi.queue.N.* (netdev netlink napi-set, Linux 6.13), stored per queue pair.
#include <charconv>
#include <string>
#include <vector>

#include "sim/scenario_loading.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim::detail {
namespace {

Expected<std::uint32_t> queue_number(std::string_view text, const std::string& key) {
  std::uint32_t queue = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), queue);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || queue > 255 ||
      (text.size() > 1 && text.front() == '0')) {
    return Error{key, "'" + std::string(text) +
                          "' is not a queue number; allowed: napi.queue.N with N a queue pair, 0 "
                          "to 255 (below nic.queues)"};
  }
  return queue;
}

// The names a [napi.queue.N] table takes: the schema's napi.queue.N.* keys without the prefix.
std::vector<std::string_view> queue_key_names() {
  std::vector<std::string_view> names;
  for (const KeySpec& spec : schema()) {
    if (is_queue_key(spec)) names.push_back(spec.name.substr(kQueueKeyPrefix.size()));
  }
  return names;
}

// The schema's spec of per-queue key `name`, or an error naming the keys allowed.
Expected<const KeySpec*> queue_napi_spec(std::string_view name, const std::string& key) {
  if (const KeySpec* spec = find_queue_key(name)) return spec;
  const std::vector<std::string_view> keys = queue_key_names();
  std::string message = "unknown per-NAPI key";
  if (const auto near = closest(name, keys))
    message += "; did you mean " + std::string(*near) + "?";
  return Error{key, message + "; allowed in [napi.queue.N]: " + join(keys)};
}

}  // namespace

// "napi.queue.N.KEY=VALUE" from --set or a variant; nothing when `key` is not of that form.
std::optional<std::optional<Diagnostic>> apply_queue_override(Scenario& scenario,
                                                              std::string_view key,
                                                              std::string_view text,
                                                              const std::string& from) {
  constexpr std::string_view kPrefix = "napi.queue.";
  if (key.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view rest = key.substr(kPrefix.size());
  const std::size_t dot = rest.find('.');
  const std::string name(key);
  const auto fail = [&](Error e) { return std::optional<Diagnostic>(Diagnostic{from, 0, e}); };
  if (dot == std::string_view::npos) {
    return fail(
        Error{name, "expected napi.queue.N.KEY with KEY one of " + join(queue_key_names())});
  }
  const auto queue = queue_number(rest.substr(0, dot), name);
  if (!queue) return fail(queue.error());
  const auto spec = queue_napi_spec(rest.substr(dot + 1), name);
  if (!spec) return fail(spec.error());
  auto value = parse_text(*spec.value(), text);
  if (!value) {
    Error error = value.error();
    error.key = name;
    return fail(error);
  }
  spec.value()->binding.store(scenario, queue.value() + 1, value.value());
  return std::optional<Diagnostic>{};
}

// [napi.queue.N] tables: `node` is the table under napi.queue, one table per queue number.
std::optional<Diagnostic> apply_queue_tables(const toml::node& node, const std::string& file,
                                             Scenario& scenario, KeyLines& lines) {
  const auto* queues = node.as_table();
  if (!queues) {
    return Diagnostic{file, line_of(node),
                      Error{"napi.queue", "expected [napi.queue.N] tables (N a queue pair); got " +
                                              std::string(toml_type_name(node))}};
  }
  for (auto&& [number, entry] : *queues) {
    const std::string prefix = "napi.queue." + std::string(number.str());
    const std::uint32_t line = static_cast<std::uint32_t>(number.source().begin.line);
    const auto queue = queue_number(number.str(), prefix);
    if (!queue) return Diagnostic{file, line, queue.error()};
    const auto* settings = entry.as_table();
    if (!settings) {
      return Diagnostic{file, line,
                        Error{prefix, "expected a table [" + prefix + "]; got " +
                                          std::string(toml_type_name(entry))}};
    }
    scenario.napi.queue.try_emplace(queue.value());  // an empty table is a queue's too
    for (auto&& [key, value_node] : *settings) {
      const std::string dotted = prefix + "." + std::string(key.str());
      const std::uint32_t key_line = static_cast<std::uint32_t>(key.source().begin.line);
      const auto spec = queue_napi_spec(key.str(), dotted);
      if (!spec) return Diagnostic{file, key_line, spec.error()};
      auto value = from_toml(*spec.value(), value_node);
      if (!value) {
        Error e = value.error();
        e.key = dotted;
        return Diagnostic{file, key_line, e};
      }
      spec.value()->binding.store(scenario, queue.value() + 1, value.value());
      lines[dotted] = key_line;
    }
  }
  return std::nullopt;
}

}  // namespace irqmod::sim::detail
