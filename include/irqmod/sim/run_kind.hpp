// The kinds of run a scenario can be, and sets of them: which models read a scenario key
// (KeySpec::readers in scenario.hpp).
#pragma once

#include <cstdint>
#include <string_view>

namespace irqmod::sim {

struct Scenario;

// The models a scenario runs on, one per run (simulate() in simulation.cpp picks it): a network
// host with its NIC and kernel stack (the default), seed 002's AF_XDP socket (xdp.app set),
// seed 003's drives (storage.drives > 0), and the lab's server and client sharing this
// machine's cores through veth or loopback (lab.device set). Checked in that order.
enum class RunKind : std::uint8_t { nic, xdp, storage, lab };
inline constexpr RunKind kRunKinds[] = {RunKind::nic, RunKind::xdp, RunKind::storage, RunKind::lab};

// The kind `scenario` runs as.
RunKind run_kind(const Scenario& scenario);
// "a NIC run", "an AF_XDP run (xdp.app set)", ...: the words messages use.
std::string_view describe(RunKind kind);

// A set of run kinds: the models that read a key.
class RunKinds {
 public:
  constexpr RunKinds() = default;
  constexpr RunKinds(RunKind kind) : bits_(bit(kind)) {}  // NOLINT: implicit by design
  constexpr bool has(RunKind kind) const { return (bits_ & bit(kind)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  friend constexpr RunKinds operator|(RunKinds a, RunKinds b) {
    RunKinds both;
    both.bits_ = static_cast<std::uint8_t>(a.bits_ | b.bits_);
    return both;
  }
  friend constexpr bool operator==(RunKinds, RunKinds) = default;

 private:
  static constexpr std::uint8_t bit(RunKind kind) {
    return static_cast<std::uint8_t>(1U << static_cast<unsigned>(kind));
  }
  std::uint8_t bits_ = 0;
};
constexpr RunKinds operator|(RunKind a, RunKind b) {
  return RunKinds(a) | RunKinds(b);
}
inline constexpr RunKinds kEveryRun = RunKind::nic | RunKind::xdp | RunKind::storage | RunKind::lab;

}  // namespace irqmod::sim
