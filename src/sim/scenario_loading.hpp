// The parts of loading a scenario file that live in files of their own: the file's sections
// (scenario.cpp), its [[variant]] and [[seed_row]] tables (scenario_variants.cpp), and the
// platform and kernel applied before them (scenario_platform.cpp). Not part of the public API.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/sim/scenario.hpp"

namespace irqmod::sim::detail {

// Lines of the keys a file set, by dotted key ("nic.rx-usecs", "flow.2.rate"), to point the
// cross-key checks' messages at them.
using KeyLines = std::map<std::string, std::uint32_t, std::less<>>;

// "napi.queue.N.KEY=VALUE" from --set or a variant (`from` names it in messages); nothing when
// `key` is not of that form, else the Diagnostic of a bad one or none.
std::optional<std::optional<Diagnostic>> apply_queue_override(Scenario& scenario,
                                                              std::string_view key,
                                                              std::string_view text,
                                                              const std::string& from);
// [napi.queue.N] tables: `node` is the table under napi.queue, one table per queue number.
std::optional<Diagnostic> apply_queue_tables(const toml::node& node, const std::string& file,
                                             Scenario& scenario, KeyLines& lines);

// `text` as TOML, or nothing with `error` set to the syntax error's line and description.
std::optional<toml::table> parse_toml(std::string_view text, const std::string& file,
                                      std::optional<Diagnostic>& error);
// The sections of a file: plain sections, [[flow]] and [[thread]] entries, [[variant]] and
// [[seed_row]] tables. A platform file may hold only [link], [nic], [napi] and [cpu].
std::optional<Diagnostic> apply_file(const toml::table& root, const std::string& file,
                                     bool platform, Scenario& scenario, KeyLines& lines);

// One [[seed_row]] table, entry `entry` (1-based) at `table_line`.
std::optional<Diagnostic> apply_seed_row(const toml::table& table, const std::string& file,
                                         std::uint32_t table_line, std::size_t entry, SeedRow& row);
// One [[variant]] table: `name` and `set`; the assignments are checked by check_variants.
std::optional<Diagnostic> apply_variant(const toml::table& table, const std::string& file,
                                        std::uint32_t table_line, std::size_t entry,
                                        Variant& variant);
// The file's variants: unique names, assignments that load (each variant validated as a whole).
std::optional<Diagnostic> check_variants(const Scenario& scenario, const std::string& file);
// Seed rows name a variant exactly when the file has variants.
std::optional<Diagnostic> check_variant_rows(const Scenario& scenario, const std::string& file);

// The key (or [[flow]], [[thread]], [napi.queue.N] entry) set in `s` that no model of its run
// kind reads (KeySpec::readers), as an Error naming it, the run's kind and the kinds that read it.
// What the platform and kernel set is the machine's and not checked (Scenario::machine).
std::optional<Error> check_readers(const Scenario& s);

// Applies platform `name` (found for the scenario `file`, whose `line` names it) to `scenario`.
std::optional<Diagnostic> apply_platform(std::string_view name, const std::string& file,
                                         std::uint32_t line, Scenario& scenario);
// Sets every kernel switch of the core and of `driver` to its value on `text`'s release.
std::optional<Diagnostic> apply_kernel(std::string_view text, std::string_view driver,
                                       const std::string& file, std::uint32_t line,
                                       Scenario& scenario);
// Where platform files are looked for, in order (find_platform's comment in scenario.hpp).
std::vector<std::filesystem::path> platform_dirs(std::string_view scenario_file);
// The platform names in `searched`, sorted, joined by ", ".
std::string platforms_in(const std::vector<std::filesystem::path>& searched);

}  // namespace irqmod::sim::detail
