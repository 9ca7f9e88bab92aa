// The lab runs (issue 28): lab.device != "none" builds a server and its client on one machine's
// cores, joined by the device the kernel's lab really has: a veth pair (irqmod lab) or loopback
// (127.0.0.1), instead of a NIC and a peer across a link. The server is the Application of the
// network host (sockperf-like, answering every request: irqmod serve); the client is sockperf
// ping-pong or irqmod load as a thread of its own (app/lab_client.hpp). Each side has its stack
// (two namespaces' sockets); each direction its device queue: veth's receive queue of the
// receiving end, or the sending core's backlog. docs/simulator.md, "Lab runs".
#pragma once

#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {

// The cross-key checks of [lab]: keys that would do nothing are refused by name, with the run's
// kind.
std::optional<Error> validate_lab(const Scenario& s);

Expected<RunReport> simulate_lab(const Scenario& s, const RunOptions& options);

}  // namespace irqmod::sim
