// What irqmod tune tells a host to run, in the vocabulary of the scenario's host: the ethtool -C
// parameters its driver has (the driver's supported_coalesce_params), what its adaptive-rx means
// (Intel's adaptive ITR, or net_dim), and the knobs its kernel has (the feature rows of
// napi/kernel.hpp for the scenario's `kernel`). A setting outside that vocabulary is not printed
// as a command: it is left out with a line saying why.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/sim/scenario.hpp"

namespace irqmod::sweep {

// What kind of host the scenario models, for the commands that can apply to it.
enum class Host : std::uint8_t {
  linux_nic,  // Linux with a NIC driver: ethtool -C, the net.core sysctls, the NAPI knobs
  loopback,   // Linux with no NIC (a loopback preset): no coalescing, no NAPI context to tune
  veth,       // a veth lab run ([lab] device = veth): NAPI knobs per veth queue, no ethtool -C
  openbsd,    // OpenBSD 5.x (napi.poll-in-irq): none of Linux's commands
  storage,    // a storage run ([storage]): NVMe completions, no NIC
};

struct Vocabulary {
  Host host = Host::linux_nic;
  std::string driver;         // "i40e", "ice", "mlx5", "enetc" (linux_nic), else the host's name
  std::string why;            // what named it: "nic.driver", "nic.dim-driver", ...
  bool rx_frames = false;     // ethtool -C rx-frames: ETHTOOL_COALESCE_MAX_FRAMES is supported
  bool net_dim = false;       // ethtool adaptive-rx switches net_dim
  bool adaptive_itr = false;  // ethtool adaptive-rx switches Intel's adaptive ITR
  std::string kernel;         // the scenario's `kernel`; empty: not set (every knob is there)
};

// The vocabulary of `base`: the scenario as its file and --set give it, before any searched
// setting (a grid point's nic.moderation = dim does not make an i40e host a net_dim one).
Vocabulary vocabulary_of(const sim::Scenario& base);
// "i40e (nic.driver), Linux 6.1"; "OpenBSD 5.x (napi.poll-in-irq)".
std::string describe(const Vocabulary& vocabulary);

// Why the host of `vocabulary` has no `key` to set (a scenario key: nic.rx-frames,
// napi.irq_suspend_timeout, ...) for scenario `s`, or nullopt when it has it.
std::optional<std::string> lacks(const Vocabulary& vocabulary, const sim::Scenario& s,
                                 std::string_view key);

// Why setting `point` cannot be applied on the host: a moderation kind its driver does not have,
// adaptive-rx with ethtool coalescing (which is a driver's adaptive ITR or net_dim, not rate
// bands), rx-frames on a driver without them. One line each; none when it can.
std::vector<std::string> outside_vocabulary(const Vocabulary& vocabulary,
                                            const sim::Scenario& point);

struct ApplyPlan {
  std::vector<std::string> commands;  // one command per line (a "# ..." line explains one)
  std::vector<std::string> left_out;  // "KEY...: why it is not among the commands"
};
// The commands that apply `s`'s moderation and NAPI settings: ethtool -C, sysctl
// net.core.busy_read / busy_poll, /sys/class/net/DEV/napi_defer_hard_irqs, gro_flush_timeout
// and threaded, irq-suspend-timeout by netdev netlink's napi-set (irqmod napi set, or the
// kernel's ynl), in `vocabulary`. `no_effect`: the searched "KEY=VALUE"s that changed nothing in
// the prediction (keys_without_effect), left out and said so.
ApplyPlan apply_plan(const sim::Scenario& s, std::string_view dev, const Vocabulary& vocabulary,
                     const std::vector<std::string>& no_effect = {});

}  // namespace irqmod::sweep
