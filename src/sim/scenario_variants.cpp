// A scenario file's [[variant]] tables (runs of the file with keys changed) and its [[seed_row]]
// tables (the seed numbers it reproduces): read with the file, checked once it is loaded.
#include <algorithm>
#include <string>
#include <vector>

#include "irqmod/sim/seed_rows.hpp"
#include "sim/scenario_loading.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim::detail {

// One [[seed_row]] table: its keys are fixed here, not in the schema (they describe the report).
std::optional<Diagnostic> apply_seed_row(const toml::table& table, const std::string& file,
                                         std::uint32_t table_line, std::size_t entry,
                                         SeedRow& row) {
  const std::string prefix = std::string(kSeedRowArray) + "." + std::to_string(entry) + ".";
  static const std::vector<std::string_view> kKeys = {"seed",   "table",      "row",       "metric",
                                                      "unit",   "seed_value", "seed_text", "role",
                                                      "versus", "missing",    "variant"};
  bool has_value = false;
  for (auto&& [key, node] : table) {
    const std::string name(key.str());
    const std::uint32_t line = static_cast<std::uint32_t>(key.source().begin.line);
    const auto fail = [&](const std::string& message) {
      return Diagnostic{file, line, Error{prefix + name, message}};
    };
    if (std::find(kKeys.begin(), kKeys.end(), name) == kKeys.end()) {
      std::string message = "unknown key";
      if (const auto near = closest(name, kKeys))
        message += "; did you mean " + std::string(*near) + "?";
      return fail(message + "; allowed: " + join(kKeys));
    }
    if (name == "seed_value") {
      if (const auto* i = node.as_integer()) {
        row.seed_value = static_cast<double>(i->get());
      } else if (const auto* f = node.as_floating_point()) {
        row.seed_value = f->get();
      } else {
        return fail("expected a number (the seed's, in the row's unit); got " +
                    std::string(toml_type_name(node)));
      }
      has_value = true;
      continue;
    }
    const auto* text = node.as_string();
    if (!text) return fail("expected a string; got " + std::string(toml_type_name(node)));
    const std::string& v = text->get();
    if (name == "seed") row.seed = v;
    if (name == "table") row.table = v;
    if (name == "row") row.row = v;
    if (name == "metric") row.metric = v;
    if (name == "unit") row.unit = v;
    if (name == "seed_text") row.seed_text = v;
    if (name == "missing") row.missing = v;
    if (name == "versus") row.versus = v;
    if (name == "variant") row.variant = v;
    if (name == "role") {
      if (v != "fitted" && v != "predicted") {
        return fail("'" + v +
                    "' is not a role; allowed: fitted (a platform number was fitted on "
                    "this row), predicted");
      }
      row.role = v == "fitted" ? SeedRole::fitted : SeedRole::predicted;
    }
  }
  if (!has_value) {
    return Diagnostic{file, table_line,
                      Error{prefix + "seed_value", "missing; allowed: the seed's number"}};
  }
  if (auto e = check_seed_row(row)) {
    e->key = prefix + e->key;
    return Diagnostic{file, table_line, *e};
  }
  return std::nullopt;
}

// One [[variant]] table: `name` (lower-case letters, digits and '-') and `set`, an array of
// "key=value" strings as --set takes them. The assignments are checked once the file is loaded.
std::optional<Diagnostic> apply_variant(const toml::table& table, const std::string& file,
                                        std::uint32_t table_line, std::size_t entry,
                                        Variant& variant) {
  const std::string prefix = std::string(kVariantArray) + "." + std::to_string(entry) + ".";
  for (auto&& [key, node] : table) {
    const std::string name(key.str());
    const std::uint32_t line = static_cast<std::uint32_t>(key.source().begin.line);
    const auto fail = [&](const std::string& message) {
      return Diagnostic{file, line, Error{prefix + name, message}};
    };
    if (name == "name") {
      const auto* text = node.as_string();
      if (!text) return fail("expected a string; got " + std::string(toml_type_name(node)));
      variant.name = text->get();
      const bool well_formed =
          !variant.name.empty() &&
          std::all_of(variant.name.begin(), variant.name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
          });
      if (!well_formed) {
        return fail("'" + variant.name +
                    "' is not a variant name; allowed: lower-case letters, digits and '-'");
      }
    } else if (name == "set") {
      const auto* array = node.as_array();
      if (!array) {
        return fail("expected an array of \"key=value\" strings; got " +
                    std::string(toml_type_name(node)));
      }
      for (const toml::node& element : *array) {
        const auto* text = element.as_string();
        if (!text || text->get().find('=') == std::string::npos) {
          return fail("expected \"key=value\" strings, as --set takes them");
        }
        variant.sets.push_back(text->get());
      }
    } else {
      return fail("unknown key; allowed: name, set");
    }
  }
  if (variant.name.empty()) {
    return Diagnostic{file, table_line, Error{prefix + "name", "missing; allowed: a name"}};
  }
  return std::nullopt;
}

// The file's variants: unique names, assignments that load (each variant validated as a whole).
std::optional<Diagnostic> check_variants(const Scenario& scenario, const std::string& file) {
  for (std::size_t i = 0; i < scenario.variants.size(); ++i) {
    const Variant& v = scenario.variants[i];
    const std::string prefix = std::string(kVariantArray) + "." + std::to_string(i + 1) + ".";
    for (std::size_t j = 0; j < i; ++j) {
      if (scenario.variants[j].name == v.name) {
        return Diagnostic{file, 0, Error{prefix + "name", "'" + v.name + "' names two variants"}};
      }
    }
    Scenario copy = scenario;
    for (const std::string& assignment : v.sets) {
      if (auto d = apply_override(copy, assignment)) {
        d->file = file;
        d->error = Error{prefix + "set",
                         "'" + assignment + "': " + d->error.key + ": " + d->error.message};
        return d;
      }
    }
    if (auto d = validate(copy, file)) {
      d->error = Error{prefix + "set",
                       "variant '" + v.name + "': " + d->error.key + ": " + d->error.message};
      return d;
    }
  }
  return std::nullopt;
}

// Seed rows name a variant exactly when the file has variants.
std::optional<Diagnostic> check_variant_rows(const Scenario& scenario, const std::string& file) {
  for (std::size_t i = 0; i < scenario.seed_rows.size(); ++i) {
    const SeedRow& row = scenario.seed_rows[i];
    const std::string key = std::string(kSeedRowArray) + "." + std::to_string(i + 1) + ".variant";
    if (scenario.variants.empty()) {
      if (!row.variant.empty()) {
        return Diagnostic{file, 0,
                          Error{key, "'" + row.variant + "': the file has no [[variant]]"}};
      }
      continue;
    }
    const bool known = std::any_of(scenario.variants.begin(), scenario.variants.end(),
                                   [&](const Variant& v) { return v.name == row.variant; });
    if (!known) {
      std::string names;
      for (const Variant& v : scenario.variants)
        names += (names.empty() ? "" : ", ") + v.name;
      return Diagnostic{file, 0,
                        Error{key, "'" + row.variant +
                                       "' is not a variant of this file (a file with variants runs "
                                       "only them); allowed: " +
                                       names}};
    }
  }
  return std::nullopt;
}
}  // namespace irqmod::sim::detail
