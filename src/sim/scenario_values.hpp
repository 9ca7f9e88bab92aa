// Scenario values: parsing one key's value from text (--set, defaults) or from TOML, with the
// messages that say what is wrong and what is allowed, and the schema's lookups. Shared by the
// loader (scenario.cpp) and the writer (scenario_writer.cpp); not part of the public API.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/sim/scenario.hpp"

namespace irqmod::sim::detail {

// "nic" of "nic.rx-usecs".
std::string_view section_of(std::string_view dotted);
// The per-NAPI keys' prefix: "napi.queue.N.gro_flush_timeout" is queue pair N's.
inline constexpr std::string_view kQueueKeyPrefix = "napi.queue.N.";
// A key of one queue pair's [napi.queue.N] table (bound per queue: entry N + 1).
bool is_queue_key(const KeySpec& spec);
// A key that belongs to an entry of a repeated table ([[thread]], [napi.queue.N]), not to a
// section: entry 0 is not one of its tables.
bool is_entry_key(const KeySpec& spec);
// "napi.queue.3.gro_flush_timeout": a queue key as queue pair `queue`'s.
std::string queue_key(const KeySpec& spec, std::uint32_t queue);
// The per-NAPI key named KEY ("gro_flush_timeout"), or nullptr.
const KeySpec* find_queue_key(std::string_view key);
// A choice key's words, in enum order.
std::vector<std::string_view> choices_of(const KeySpec& spec);
// The closest of `candidates` to `word`, within 2 edits (3 for words of 12 or more characters);
// '-' and '_' count as the same letter.
std::optional<std::string_view> closest(std::string_view word,
                                        const std::vector<std::string_view>& candidates);
// The schema's sections, in schema order.
std::vector<std::string_view> sections();
std::string join(const std::vector<std::string_view>& words);
// How a bound is shown in messages, in the key's unit when exact.
std::string bound_text(const KeySpec& spec, std::int64_t v);
// What a key accepts, for messages.
std::string allowed_text(const KeySpec& spec);
// A value written as text: --set values and the schema's defaults.
Expected<Value> parse_text(const KeySpec& spec, std::string_view text);
// A value from the file: TOML types must match the key's kind.
Expected<Value> from_toml(const KeySpec& spec, const toml::node& node);
std::string_view toml_type_name(const toml::node& node);
std::uint32_t line_of(const toml::node& node);

}  // namespace irqmod::sim::detail
