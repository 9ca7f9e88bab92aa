// Seed 002's AF_XDP runs: xdp.app != "none" builds cores, one zero-copy queue with its NAPI
// context, one AF_XDP socket and the xdpsock application, instead of the network host's stack
// (docs/simulator.md, "AF_XDP").
#pragma once

#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {

// The cross-key checks of [xdp]: keys that would do nothing are refused by name.
std::optional<Error> validate_xdp(const Scenario& s);

Expected<RunReport> simulate_xdp(const Scenario& s, const RunOptions& options);

}  // namespace irqmod::sim
