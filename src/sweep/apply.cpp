#include "irqmod/sweep/apply.hpp"

#include <algorithm>

#include "irqmod/napi/kernel.hpp"

namespace irqmod::sweep {
namespace {

// A driver's ethtool -C vocabulary: its ethtool_ops.supported_coalesce_params and what its
// adaptive-rx switches. `frames` is empty when rx-frames is a setting, else why it is not.
struct DriverWords {
  std::string_view driver;
  bool net_dim;
  bool adaptive_itr;
  std::string_view frames;
  std::uint32_t fixed_frames;  // the one rx-frames it takes (0: none, the model's "not set")
};

constexpr DriverWords kDrivers[] = {
    // i40e_ethtool.c: USECS | MAX_FRAMES_IRQ | USE_ADAPTIVE | RX_USECS_HIGH | TX_USECS_HIGH;
    // adaptive-rx sets I40E_ITR_DYNAMIC (i40e_set_itr_per_queue): its adaptive ITR.
    {"i40e", false, true,
     "i40e has no rx-frames (not among i40e_ethtool.c's supported_coalesce_params; its "
     "rx-frames-irq is the Tx clean budget)",
     0},
    // ice_ethtool.c: USECS | USE_ADAPTIVE | RX_USECS_HIGH; adaptive-rx sets ITR_DYNAMIC
    // (ice_set_rc_coalesce): the same adaptive ITR.
    {"ice", false, true,
     "ice has no rx-frames (not among ice_ethtool.c's supported_coalesce_params)", 0},
    // mlx5e (en_ethtool.c): USECS | MAX_FRAMES | USE_ADAPTIVE | USE_CQE; adaptive-rx turns on
    // net_dim (mlx5e_handle_rx_dim), the first net_dim driver.
    {"mlx5", true, false, "", 0},
    // enetc_ethtool.c: USECS | MAX_FRAMES | USE_ADAPTIVE_RX, adaptive-rx being net_dim
    // (ae0e6a5d1627); enetc_set_coalesce refuses any rx-frames but ENETC_RXIC_PKTTHR (256).
    {"enetc", true, false,
     "enetc takes only rx-frames 256 (ENETC_RXIC_PKTTHR: enetc_set_coalesce returns "
     "-EOPNOTSUPP for another)",
     256},
};

constexpr const char kNoEffect[] =
    ": its value changes nothing in the prediction (the same metrics with the scenario's own)";

// Platforms whose host has no NIC (platforms/epyc-vm.toml: "It has no NIC ... loopback only").
constexpr std::string_view kLoopbackPlatforms[] = {"epyc-vm"};

const DriverWords& words(const Vocabulary& v) {
  for (const DriverWords& d : kDrivers) {
    if (d.driver == v.driver) return d;
  }
  return kDrivers[0];
}

std::string net_dim_drivers() {
  std::string out;
  for (const DriverWords& d : kDrivers) {
    if (d.net_dim) out += (out.empty() ? "" : ", ") + std::string(d.driver);
  }
  return out;
}

// A key of the NIC ([nic]): a host without one has no command for it.
bool is_nic_key(std::string_view key) {
  return key.starts_with("nic.");
}

}  // namespace

Vocabulary vocabulary_of(const sim::Scenario& base) {
  Vocabulary v;
  v.kernel = base.kernel;
  if (base.napi.poll_in_irq) {
    v.host = Host::openbsd;
    v.driver = "OpenBSD 5.x";
    v.why = "napi.poll-in-irq";
    return v;
  }
  if (base.storage.drives > 0) {
    v.host = Host::storage;
    v.driver = "NVMe storage";
    v.why = "[storage]";
    return v;
  }
  // A lab run models its own device, whatever the platform's NIC: veth (drivers/net/veth.c: no
  // hardirq, no ITR, a NAPI context per Rx queue) or loopback (the per-CPU backlog, no NAPI
  // context of a device).
  if (base.lab.device == sim::LabDevice::veth) {
    v.host = Host::veth;
    v.driver = "veth";
    v.why = "lab.device = veth";
    return v;
  }
  if (base.lab.device == sim::LabDevice::loopback) {
    v.host = Host::loopback;
    v.driver = "loopback";
    v.why = "lab.device = loopback";
    return v;
  }
  for (std::string_view p : kLoopbackPlatforms) {
    if (base.platform == p) {
      v.host = Host::loopback;
      v.driver = "loopback";
      v.why = "platform " + base.platform + ": no NIC";
      return v;
    }
  }
  // The driver: enetc wherever its net_dim glue or its kernel rows are asked for; a scenario
  // whose own moderation is net_dim with mlx5's glue models mlx5 (nic.driver then only picks
  // the kernel rows, of which mlx5 has none); else nic.driver.
  if (base.nic.dim_driver == sim::DimDriver::enetc) {
    v.driver = "enetc";
    v.why = "nic.dim-driver";
  } else if (base.nic.driver == sim::NicDriver::enetc) {
    v.driver = "enetc";
    v.why = "nic.driver";
  } else if (base.nic.moderation == sim::Moderation::dim) {
    v.driver = "mlx5";
    v.why = "nic.moderation = dim with nic.dim-driver = mlx5";
  } else {
    v.driver = std::string(sim::to_string(base.nic.driver));
    v.why = "nic.driver";
  }
  const DriverWords& d = words(v);
  v.rx_frames = d.frames.empty();
  v.net_dim = d.net_dim;
  v.adaptive_itr = d.adaptive_itr;
  return v;
}

std::string describe(const Vocabulary& v) {
  std::string out = v.driver + " (" + v.why + ")";
  if (v.host == Host::linux_nic || v.host == Host::loopback || v.host == Host::veth)
    out += v.kernel.empty() ? ", Linux (kernel not set: every knob)" : ", Linux " + v.kernel;
  return out;
}

std::optional<std::string> lacks(const Vocabulary& v, const sim::Scenario& s,
                                 std::string_view key) {
  const std::string k(key);
  switch (v.host) {
    case Host::openbsd:
      return "the scenario's host is OpenBSD 5.x (napi.poll-in-irq): no ethtool, net.core sysctl "
             "or NAPI knob; the ix driver's interrupt rate is fixed (IXGBE_INTS_PER_SEC, if_ix.h)";
    case Host::storage:
      if (is_nic_key(key) || key.starts_with("napi."))
        return "a storage run has no NIC: " + k + " does not apply";
      break;
    case Host::loopback:
      if (is_nic_key(key)) return "the loopback host has no NIC to coalesce (" + v.why + ")";
      if (key.starts_with("napi."))
        return "the loopback host has no NAPI context of a device for " + k + " (" + v.why + ")";
      break;
    case Host::veth:
      if (is_nic_key(key))
        return "veth has no interrupt and no coalescing to set (drivers/net/veth.c: the sender's "
               "xmit schedules the peer's NAPI; " +
               v.why + ")";
      break;
    case Host::linux_nic:
      break;
  }
  if (key == "nic.rx-frames" && !v.rx_frames) return std::string(words(v).frames);
  if (v.kernel.empty()) return std::nullopt;
  const auto version = napi::parse_kernel_version(v.kernel);
  if (!version) return std::nullopt;  // the scenario's loader refuses it first
  const std::string_view driver = sim::to_string(s.nic.driver);
  for (const napi::KernelBehaviour& b : napi::kernel_behaviours()) {
    if (b.kind != napi::BehaviourKind::feature || b.key != key) continue;
    if (!napi::applies_to_driver(b, driver)) continue;
    if (!b.when.empty() && !sim::kernel_condition_holds(b.when, s)) continue;
    if (napi::has_commit(b, *version)) continue;
    return "Linux " + v.kernel + " has no " + std::string(b.what) + " (from " +
           napi::to_string(b.release) + ", " + std::string(b.commit) + " \"" +
           std::string(b.title) + "\")";
  }
  return std::nullopt;
}

std::vector<std::string> outside_vocabulary(const Vocabulary& v, const sim::Scenario& p) {
  std::vector<std::string> out;
  if (v.host != Host::linux_nic) return out;  // lacks() says it, key by key
  const DriverWords& d = words(v);
  switch (p.nic.moderation) {
    case sim::Moderation::dim:
      if (!v.net_dim) {
        out.push_back("nic.moderation=dim: " + v.driver + " has no net_dim (its adaptive-rx is " +
                      (v.adaptive_itr ? "Intel's adaptive ITR, nic.moderation = adaptive-itr"
                                      : "not net_dim") +
                      "); net_dim drivers: " + net_dim_drivers() + " (nic.dim-driver)");
      }
      break;
    case sim::Moderation::adaptive_itr:
      if (!v.adaptive_itr) {
        out.push_back("nic.moderation=adaptive-itr: " + v.driver +
                      " has no Intel adaptive ITR (its adaptive-rx is net_dim, "
                      "nic.moderation = dim)");
      }
      break;
    case sim::Moderation::itr:
    case sim::Moderation::lli:
      out.push_back(std::string("nic.moderation=") +
                    (p.nic.moderation == sim::Moderation::itr ? "itr" : "lli") +
                    ": a register setting with no ethtool -C equivalent");
      break;
    case sim::Moderation::coalesce:
      if (p.nic.adaptive_rx) {
        out.push_back(
            "nic.adaptive-rx=true with nic.moderation=coalesce: ethtool's adaptive-rx "
            "on " +
            v.driver + " is " +
            (v.net_dim ? "net_dim (nic.moderation = dim)"
                       : "its adaptive ITR (nic.moderation = adaptive-itr)") +
            ", not coalescing's rate bands");
      }
      break;
    case sim::Moderation::none:
      break;
  }
  const bool frames_used = p.nic.moderation == sim::Moderation::coalesce;
  if (frames_used && !d.frames.empty() && p.nic.rx_frames != d.fixed_frames)
    out.push_back("nic.rx-frames=" + std::to_string(p.nic.rx_frames) + ": " +
                  std::string(d.frames));
  return out;
}

ApplyPlan apply_plan(const sim::Scenario& s, std::string_view dev_view, const Vocabulary& v,
                     const std::vector<std::string>& no_effect) {
  const std::string dev(dev_view);
  ApplyPlan plan;
  const auto us = [](Duration d) { return std::to_string(d.count() / 1000); };
  const auto ns = [](Duration d) { return std::to_string(d.count()); };
  // The override "KEY=VALUE" of `key` found to change nothing, or null.
  const auto without_effect = [&](std::string_view key) -> const std::string* {
    for (const std::string& o : no_effect) {
      if (o.size() > key.size() && o.starts_with(key) && o[key.size()] == '=') return &o;
    }
    return nullptr;
  };
  // A knob's command, unless the host lacks it or its value changed nothing.
  const auto knob = [&](std::string_view key, std::vector<std::string> commands) {
    if (const auto why = lacks(v, s, key)) {
      plan.left_out.push_back(std::string(key) + ": " + *why);
    } else if (const std::string* o = without_effect(key)) {
      plan.left_out.push_back(*o + kNoEffect);
    } else {
      plan.commands.insert(plan.commands.end(), commands.begin(), commands.end());
    }
  };
  if (v.host == Host::openbsd || v.host == Host::storage) {
    plan.left_out.push_back("every knob: " + *lacks(v, s, "nic.rx-usecs"));
    return plan;
  }

  // ethtool -C: the parameters the driver has, each unless it changed nothing; none when the
  // moderation is outside the driver's vocabulary (the prediction is of something it lacks).
  if (v.host == Host::linux_nic) {
    const std::vector<std::string> outside = outside_vocabulary(v, s);
    plan.left_out.insert(plan.left_out.end(), outside.begin(), outside.end());
    const auto param = [&](std::string_view key, const std::string& name, std::uint32_t value) {
      const std::string* o = without_effect(key);
      if (o == nullptr) return " " + name + " " + std::to_string(value);
      plan.left_out.push_back(*o + kNoEffect);
      return std::string();
    };
    const std::string ethtool = "ethtool -C " + dev;
    if (outside.empty()) {
      switch (s.nic.moderation) {
        case sim::Moderation::none:
          // rx-usecs 0: i40e, ice and ixgbe turn throttling off; with rx-frames, a frame each.
          plan.commands.push_back(ethtool + " adaptive-rx off rx-usecs 0" +
                                  (v.rx_frames ? " rx-frames 1" : ""));
          break;
        case sim::Moderation::coalesce:
          plan.commands.push_back(
              ethtool + " adaptive-rx off" + param("nic.rx-usecs", "rx-usecs", s.nic.rx_usecs) +
              (v.rx_frames ? param("nic.rx-frames", "rx-frames", s.nic.rx_frames) : ""));
          break;
        case sim::Moderation::dim:
          plan.commands.push_back(ethtool + " adaptive-rx on");
          if (!s.nic.rx_profile.empty())
            knob("nic.rx-profile", {ethtool + " rx-profile " + s.nic.rx_profile});
          break;
        case sim::Moderation::adaptive_itr: {
          const std::string usecs = param("nic.rx-usecs", "rx-usecs", s.nic.rx_usecs);
          // i40e and ice refuse a new rx-usecs while adaptive-rx is on ("RX interrupt moderation
          // cannot be changed if adaptive-rx is enabled"): the start value first, then the
          // switch.
          if (!s.nic.adaptive_rx) {
            plan.commands.push_back(ethtool + " adaptive-rx off" + usecs);
          } else {
            if (!usecs.empty()) plan.commands.push_back(ethtool + " adaptive-rx off" + usecs);
            plan.commands.push_back(ethtool + " adaptive-rx on");
          }
          break;
        }
        case sim::Moderation::itr:
        case sim::Moderation::lli:
          break;  // outside_vocabulary said why
      }
    }
  }

  knob("napi.busy_read", {"sysctl -w net.core.busy_read=" + us(s.napi.busy_read)});
  knob("napi.busy_poll", {"sysctl -w net.core.busy_poll=" + us(s.napi.busy_poll)});
  knob("napi.napi_defer_hard_irqs", {"echo " + std::to_string(s.napi.defer_hard_irqs) +
                                     " > /sys/class/net/" + dev + "/napi_defer_hard_irqs"});
  knob("napi.gro_flush_timeout", {"echo " + ns(s.napi.gro_flush_timeout) + " > /sys/class/net/" +
                                  dev + "/gro_flush_timeout"});
  if (s.napi.threaded) {
    knob("napi.threaded", {"echo 1 > /sys/class/net/" + dev + "/threaded"});
  }
  // The per-NAPI setting (Linux 6.13, netdev netlink napi-set): irqmod's own client, or the
  // kernel's ynl with the NAPI id `irqmod napi list --dev DEV` prints.
  knob("napi.irq_suspend_timeout",
       {"irqmod napi set --dev " + dev + " --irq-suspend-timeout " + ns(s.napi.irq_suspend_timeout),
        "# or: tools/net/ynl/cli.py --spec Documentation/netlink/specs/netdev.yaml "
        "--do napi-set --json '{\"id\": NAPI_ID, \"irq-suspend-timeout\": " +
            ns(s.napi.irq_suspend_timeout) + "}'"});
  if (s.napi.prefer_busy_poll) {
    knob("napi.prefer_busy_poll",
         {"# and in the application: setsockopt(SO_PREFER_BUSY_POLL, 1), or epoll's "
          "EPIOCSPARAMS with prefer_busy_poll = 1"});
  }
  return plan;
}

}  // namespace irqmod::sweep
