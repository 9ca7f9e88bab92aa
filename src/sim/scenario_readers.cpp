// No silent key: the one check that refuses a key set in a scenario (its file, --set, a variant,
// but not its platform's) when no model of the run reads it. Each key's readers are in the
// schema (KeySpec::readers, scenario_schema.cpp); a test sets every key a kind does not read and
// expects the refusal, and another runs each shipped scenario through it.
#include <string>
#include <vector>

#include "sim/scenario_loading.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim {

RunKind run_kind(const Scenario& s) {
  if (s.storage.drives > 0) return RunKind::storage;
  if (s.xdp.app != XdpApp::none) return RunKind::xdp;
  if (s.lab.device != LabDevice::none) return RunKind::lab;
  return RunKind::nic;
}

std::string_view describe(RunKind kind) {
  switch (kind) {
    case RunKind::xdp:
      return "an AF_XDP run (xdp.app set)";
    case RunKind::storage:
      return "a storage run (storage.drives > 0)";
    case RunKind::lab:
      return "a lab run (lab.device set)";
    case RunKind::nic:
      break;
  }
  return "a NIC run";
}

namespace detail {
namespace {

// What the run's model is, for the message: why the key has nothing to act on.
std::string_view what_it_models(RunKind kind) {
  switch (kind) {
    case RunKind::xdp:
      return "its one queue pair is driven by the xsk rings and one xdpsock thread, fed by "
             "constant-rate frames, without warm-up or rate search";
    case RunKind::storage:
      return "it builds drives and their completion vectors only (storage.irq-cores, "
             "storage.thread-cores), with no network path, warm-up or rate search";
    case RunKind::lab:
      return "its client and server share this machine's cores and talk through the device "
             "(lab.device), with no NIC, link or traffic generator";
    case RunKind::nic:
      break;
  }
  return "it models the network host: the NIC's queues and vectors, NAPI and the kernel stack";
}

// "a NIC run and a lab run (lab.device set)".
std::string kinds_text(RunKinds kinds) {
  std::vector<std::string_view> names;
  for (const RunKind kind : kRunKinds) {
    if (kinds.has(kind)) names.push_back(describe(kind));
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

Error not_read(std::string key, RunKind kind, RunKinds readers, std::string_view allowed) {
  std::string message =
      "is not read by " + std::string(describe(kind)) + ": " + std::string(what_it_models(kind));
  if (!readers.empty()) message += "; it is read by " + kinds_text(readers);
  return Error{std::move(key), message + "; allowed: " + std::string(allowed)};
}

// The readers of the repeated tables: [[flow]] and [[thread]] entries exist in the network
// host's model only (an AF_XDP run has one flow and one xdpsock thread, a lab run one server
// thread and the client's connections).
constexpr RunKinds kFlowReaders = RunKind::nic;
constexpr RunKinds kThreadReaders = RunKind::nic;
// [napi.queue.N] tables: the NIC's queue pairs (the AF_XDP queue polls with the device-wide
// settings; a lab's veth end has the [napi] keys). The schema's napi.queue.N.* keys say the same
// (a test compares them).
constexpr RunKinds kQueueReaders = RunKind::nic;

}  // namespace

std::optional<Error> check_readers(const Scenario& s) {
  const RunKind kind = run_kind(s);
  const Scenario defaults = default_scenario_on(s);
  // What the platform and kernel set is the machine's: its parts this run lacks stay unread.
  Scenario machine = defaults;
  machine.link = s.machine.link;
  machine.nic = s.machine.nic;
  machine.napi = s.machine.napi;
  machine.cpu = s.machine.cpu;
  for (const KeySpec& spec : schema()) {
    if (spec.readers.has(kind) || is_entry_key(spec)) continue;
    const Value value = spec.binding.load(s, 0);
    if (value == spec.binding.load(defaults, 0)) continue;
    if (value == spec.binding.load(machine, 0)) continue;
    return not_read(std::string(spec.name), kind, spec.readers, "the default");
  }
  if (!s.flows.empty() && !kFlowReaders.has(kind))
    return not_read(std::string(kFlowArray), kind, kFlowReaders, "no [[flow]] entry");
  if (!s.threads.empty() && !kThreadReaders.has(kind))
    return not_read(std::string(kThreadArray), kind, kThreadReaders, "no [[thread]] entry");
  if (!s.napi.queue.empty() && !kQueueReaders.has(kind)) {
    return not_read("napi.queue." + std::to_string(s.napi.queue.begin()->first), kind,
                    kQueueReaders, "no [napi.queue.N] table");
  }
  return std::nullopt;
}

}  // namespace detail
}  // namespace irqmod::sim
