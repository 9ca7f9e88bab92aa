// The scenario schema's bindings: how a KeySpec stores a value into its Scenario field and reads
// it back (one template per field kind), the per-NAPI queue keys' fallback to the device-wide key,
// and the range and run-kind shorthands the schema table (scenario_schema.cpp) is written in.
// Private to the schema; not part of the public API.
#pragma once

#include <limits>
#include <type_traits>
#include <vector>

#include "irqmod/sim/scenario.hpp"

namespace irqmod::sim::binding {

// The table a key of `Section` lives in for `entry` (see Binding): [traffic] keys also serve the
// [[flow]] entries, thread keys the [[thread]] entries.
template <auto Section>
auto& table_of(Scenario& scenario, std::size_t entry) {
  if constexpr (std::is_same_v<decltype(Section), TrafficSection Scenario::*>) {
    return entry == 0 ? scenario.traffic : scenario.flows[entry - 1];
  } else if constexpr (std::is_same_v<decltype(Section), std::vector<ThreadSection> Scenario::*>) {
    return scenario.threads[entry - 1];
  } else {
    return scenario.*Section;
  }
}

template <auto Section>
const auto& table_of(const Scenario& scenario, std::size_t entry) {
  return table_of<Section>(const_cast<Scenario&>(scenario), entry);
}

template <auto Section, auto Field>
void store_field(Scenario& scenario, std::size_t entry, const Value& value) {
  auto& field = table_of<Section>(scenario, entry).*Field;
  using F = std::remove_cvref_t<decltype(field)>;
  if constexpr (std::is_same_v<F, bool>) {
    field = std::get<bool>(value);
  } else if constexpr (std::is_same_v<F, std::string>) {
    field = std::get<std::string>(value);
  } else if constexpr (std::is_same_v<F, Duration>) {
    field = Duration{std::get<std::int64_t>(value)};
  } else if constexpr (std::is_same_v<F, Distribution>) {
    field = std::get<Distribution>(value);
  } else {
    field = static_cast<F>(std::get<std::int64_t>(value));  // in range: checked by the loader
  }
}

template <auto Section, auto Field>
Value load_field(const Scenario& scenario, std::size_t entry) {
  const auto& field = table_of<Section>(scenario, entry).*Field;
  using F = std::remove_cvref_t<decltype(field)>;
  if constexpr (std::is_same_v<F, bool> || std::is_same_v<F, std::string> ||
                std::is_same_v<F, Distribution>) {
    return field;
  } else if constexpr (std::is_same_v<F, Duration>) {
    return static_cast<std::int64_t>(field.count());
  } else {
    return static_cast<std::int64_t>(field);
  }
}

template <auto Section, auto Field>
constexpr Binding bind() {
  return Binding{&store_field<Section, Field>, &load_field<Section, Field>};
}

// A per-NAPI key, napi.queue.N.KEY: entry N + 1 is queue pair N's own setting; a queue without
// one, and entry 0, read as the device-wide key (`Device`), which is what the queue's context
// then has (napi_config in policy_config.cpp). Store: entry >= 1.
template <auto Field, auto Device>
void store_queue(Scenario& scenario, std::size_t entry, const Value& value) {
  auto& field = scenario.napi.queue[static_cast<std::uint32_t>(entry - 1)].*Field;
  using F = typename std::remove_cvref_t<decltype(field)>::value_type;
  if constexpr (std::is_same_v<F, Duration>) {
    field = Duration{std::get<std::int64_t>(value)};
  } else {
    field = static_cast<F>(std::get<std::int64_t>(value));  // in range: checked by the loader
  }
}

template <auto Field, auto Device>
Value load_queue(const Scenario& scenario, std::size_t entry) {
  const auto as_value = [](const auto& v) -> Value {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, Duration>) {
      return static_cast<std::int64_t>(v.count());
    } else {
      return static_cast<std::int64_t>(v);
    }
  };
  if (entry > 0) {
    const auto it = scenario.napi.queue.find(static_cast<std::uint32_t>(entry - 1));
    if (it != scenario.napi.queue.end() && (it->second.*Field))
      return as_value(*(it->second.*Field));
  }
  return as_value(scenario.napi.*Device);
}

template <auto Field, auto Device>
constexpr Binding bind_queue() {
  return Binding{&store_queue<Field, Device>, &load_queue<Field, Device>};
}

constexpr std::int64_t kU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::int64_t kS32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kHour = 3600 * kS;

using S = Scenario;
using V = ValueKind;

// The run kinds that read a key (KeySpec::readers): traced per field through simulation.cpp,
// builder.cpp, policy_config.cpp, run_setup.cpp, sampler.cpp and the xdp, storage and lab runs;
// a key a kind only validates is not read there. scenario_readers.cpp refuses the rest.
constexpr RunKinds kNic = RunKind::nic;
constexpr RunKinds kXdp = RunKind::xdp;
constexpr RunKinds kStorage = RunKind::storage;
constexpr RunKinds kLab = RunKind::lab;

}  // namespace irqmod::sim::binding
