// Kernel versions as data: the Linux behaviours the model keeps both ways, each with the commit
// that changed it and the first mainline release that has it (docs/research/kernel-switches.md).
//
// A behaviour is one of two kinds. A switch is a scenario key whose value the kernel decides
// (its value before the commit and after). A feature is a scenario key that has no kernel
// behind it before the commit: on an older kernel it must stay at its default (off).
//
// The table names scenario keys and writes values in scenario-file syntax ("true", "50us"), so
// that the policy library stays free of the simulator; the simulator applies them
// (`kernel = "6.1"` in a scenario) and `irqmod kernel-diff A B` lists what changes.
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "irqmod/error.hpp"

namespace irqmod::napi {

// A Linux release: MAJOR.MINOR, and the stable PATCH level (0 = the mainline release).
struct KernelVersion {
  std::uint16_t major = 0;
  std::uint16_t minor = 0;
  std::uint16_t patch = 0;
  friend auto operator<=>(const KernelVersion&, const KernelVersion&) = default;
};

// "6.1", "6.18.34". Refuses ill-formed text and releases outside the known lines
// (known_kernel_lines()), naming the format and the versions known.
Expected<KernelVersion> parse_kernel_version(std::string_view text);
std::string to_string(KernelVersion version);  // "6.18.34"; "6.1" when patch is 0
// The release lines the table knows, for messages: "3.19, 4.0-4.20, 5.0-5.19, 6.0-6.19, 7.0-7.1".
std::string known_kernel_lines();

enum class BehaviourKind : std::uint8_t {
  switch_value,  // the key's value follows the kernel: `before` until the commit, `after` from it
  feature,       // the key has no effect before the commit: it must stay at its default there
};

struct KernelBehaviour {
  BehaviourKind kind;
  std::string_view key;        // the scenario key: "napi.epoll-prefer-busy-loop"
  std::string_view driver;     // "" for the core kernel; "i40e", "ice": that driver's change
  std::string_view what;       // one line: what changed
  std::string_view before;     // switch: the value before the commit, in scenario syntax
  std::string_view after;      // switch: the value from the commit on
  std::string_view commit;     // 12 hex digits of the mainline commit
  std::string_view title;      // its subject line, exactly
  KernelVersion release;       // the first mainline release that has it
  std::string_view backports;  // stable trees known to carry it ("" when none are known)
  // Stable releases confirmed to carry it (a release announcement or its shortlog): a version
  // of the same MAJOR.MINOR line at or above one of these has the behaviour too.
  std::span<const KernelVersion> stable = {};
  // A feature that exists only for some scenarios, as "KEY=VALUE" of another scenario key
  // ("cpu.app-wait=epoll": epoll's own busy-poll parameters); "" = always.
  std::string_view when = {};
};

// Every behaviour, in the order of the first release.
std::span<const KernelBehaviour> kernel_behaviours();

// The simulator's NIC model is i40e (its defaults are i40e's: I40E_ITR_20K, the swint on ITR
// index 2): a kernel version applies the core rows and this driver's; other drivers' rows are
// listed (kernel-diff) but their keys are set by hand.
inline constexpr std::string_view kModelledDriver = "i40e";
bool applies_to_model(const KernelBehaviour& behaviour);

// Whether `version` has the behaviour's commit: from its mainline release on, or in a stable
// line from the confirmed stable release on (`stable`). A backport only mentioned in `backports`
// (a review, not a release) is not counted.
bool has_commit(const KernelBehaviour& behaviour, KernelVersion version);
// A switch's value on `version`.
std::string_view value_on(const KernelBehaviour& behaviour, KernelVersion version);
// Whether the behaviour differs between `a` and `b`: one has the commit and the other not.
bool differs(const KernelBehaviour& behaviour, KernelVersion a, KernelVersion b);

}  // namespace irqmod::napi
