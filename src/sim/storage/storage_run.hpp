// A storage run (seed 003, [storage] drives > 0): cores, the drives with their completion
// queues, a completion path per core that has vectors, and one submitter thread per drive. The
// network model is not built: no port, no traffic.
#pragma once

#include <optional>
#include <string_view>

#include "irqmod/error.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {

// The cross-key checks of [storage] (cores exist; keys of the network model, the warm-up and
// the rate search are refused because a storage run would ignore them). An Error names the key.
std::optional<Error> validate_storage(const Scenario& scenario);

// Runs a validated storage scenario to its duration. Errors: broken conservation of I/Os or of
// MSIs (key "conservation").
Expected<RunReport> simulate_storage(const Scenario& scenario, const RunOptions& options);

}  // namespace irqmod::sim
