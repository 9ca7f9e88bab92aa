// irqmod napi list|set: the kernel's NAPI instances and their settings over netlink
// (irqmod/rt/netdev_netlink.hpp), in the current or a named network namespace.
#include <net/if.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "commands.hpp"
#include "irqmod/rt/netdev_netlink.hpp"
#include "irqmod/rt/netns.hpp"

namespace irqmod::cli {
namespace {

namespace netdev = rt::netdev;

// The kernel's own bound on defer-hard-irqs (netdev.yaml: max s32-max).
constexpr std::uint32_t kMaxDeferHardIrqs = std::numeric_limits<std::int32_t>::max();
// The timeouts' bound: the kernel arms its hrtimers with them as ktime_t (signed 64-bit ns), so
// more would run negative. The check also stops CLI11 2.1 from taking "-5" as 2^64 - 5.
constexpr std::uint64_t kMaxTimeoutNs = std::numeric_limits<std::int64_t>::max();

std::string device_name(std::uint32_t ifindex) {
  char name[IF_NAMESIZE] = {};
  return ::if_indextoname(ifindex, name) ? name : "?";
}

template <typename T>
std::string text(const std::optional<T>& v, const char* unit = "") {
  return v ? std::to_string(*v) + unit : "n/a";
}

void print_text(const netdev::Napi& n) {
  std::printf("NAPI %u (%s, ifindex %u):\n", n.id, device_name(n.ifindex).c_str(), n.ifindex);
  std::printf("  IRQ:                  %s\n", text(n.irq).c_str());
  std::printf("  poll thread pid:      %s\n", n.pid ? std::to_string(*n.pid).c_str() : "none");
  std::printf("  threaded:             %s\n",
              n.threaded ? (*n.threaded ? "on" : "off") : "n/a (kernel before 6.17)");
  std::printf("  defer-hard-irqs:      %s\n", text(n.defer_hard_irqs).c_str());
  std::printf("  gro-flush-timeout:    %s\n", text(n.gro_flush_timeout_ns, " ns").c_str());
  std::printf("  irq-suspend-timeout:  %s\n", text(n.irq_suspend_timeout_ns, " ns").c_str());
}

template <typename T>
std::string json_value(const std::optional<T>& v) {
  return v ? std::to_string(*v) : "null";
}

void print_json(const netdev::Napi& n) {
  std::printf(
      "{\"id\": %u, \"ifindex\": %u, \"dev\": \"%s\", \"irq\": %s, \"pid\": %s, "
      "\"threaded\": %s, \"defer_hard_irqs\": %s, \"gro_flush_timeout_ns\": %s, "
      "\"irq_suspend_timeout_ns\": %s}\n",
      n.id, n.ifindex, device_name(n.ifindex).c_str(), json_value(n.irq).c_str(),
      json_value(n.pid).c_str(), json_value(n.threaded).c_str(),
      json_value(n.defer_hard_irqs).c_str(), json_value(n.gro_flush_timeout_ns).c_str(),
      json_value(n.irq_suspend_timeout_ns).c_str());
}

// The ifindex of --dev in the current namespace.
Expected<std::uint32_t> resolve_device(const std::string& dev, const std::string& netns) {
  const unsigned ifindex = ::if_nametoindex(dev.c_str());
  if (ifindex == 0)
    return Error{"--dev", "no device '" + dev + "' in " +
                              (netns.empty() ? "this network namespace" : "netns " + netns)};
  return static_cast<std::uint32_t>(ifindex);
}

}  // namespace

void add_napi_command(CLI::App& app, int& status) {
  struct Args {
    std::string netns;
    std::string dev;
    std::optional<std::uint32_t> id;
    netdev::NapiSettings settings;
    std::string threaded;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "napi", "The kernel's NAPI instances and their settings (netdev netlink family)");
  cmd->require_subcommand(1);
  const auto report = [&status](const Error& e) {
    std::cerr << "irqmod napi: " << e.what() << "\n";
    status = exit_status_for(e);
  };

  CLI::App* list = cmd->add_subcommand("list", "Show each NAPI: id, device, IRQ, thread, settings");
  list->add_option("--netns", args->netns, "Look inside this `ip netns` namespace");
  list->add_option("--dev", args->dev, "Only this device's NAPIs");
  list->add_flag("--json", args->json, "One JSON object per line");
  list->callback([args, report, &status] {
    rt::NetnsGuard guard(args->netns);
    if (guard.error()) return report(*guard.error());
    std::optional<std::uint32_t> ifindex;
    if (!args->dev.empty()) {
      const auto resolved = resolve_device(args->dev, args->netns);
      if (!resolved) return report(resolved.error());
      ifindex = *resolved;
    }
    const auto napis = netdev::list_napis(ifindex);
    if (!napis) return report(napis.error());
    for (const auto& n : *napis)
      args->json ? print_json(n) : print_text(n);
    if (napis->empty() && !args->json)
      std::printf("no NAPI instances%s\n",
                  args->netns.empty() ? "" : (" in " + args->netns).c_str());
    status = kExitOk;
  });

  CLI::App* set = cmd->add_subcommand("set", "Change NAPI settings (napi-set)");
  set->add_option("--netns", args->netns, "Act inside this `ip netns` namespace");
  auto* id = set->add_option("--id", args->id, "The NAPI id (irqmod napi list)");
  auto* dev = set->add_option("--dev", args->dev, "Every NAPI of this device");
  id->excludes(dev);
  set->add_option("--defer-hard-irqs", args->settings.defer_hard_irqs,
                  "Empty polls before the IRQ is re-enabled (0 to 2147483647)")
      ->check(CLI::Range(std::uint32_t{0}, kMaxDeferHardIrqs));
  set->add_option("--gro-flush-timeout", args->settings.gro_flush_timeout_ns,
                  "Watchdog that polls again and holds GRO, in ns (0: off)")
      ->check(CLI::Range(std::uint64_t{0}, kMaxTimeoutNs));
  set->add_option("--irq-suspend-timeout", args->settings.irq_suspend_timeout_ns,
                  "IRQ suspension while an application busy-polls, in ns (0: off)")
      ->check(CLI::Range(std::uint64_t{0}, kMaxTimeoutNs));
  set->add_option("--threaded", args->threaded, "Poll in a kernel thread: on or off")
      ->check(CLI::IsMember({"on", "off"}));
  set->callback([args, report, &status] {
    if (!args->threaded.empty()) args->settings.threaded = args->threaded == "on";
    if (!args->id && args->dev.empty())
      return report(Error{"--id/--dev", "give the NAPI id or the device whose NAPIs to change"});
    if (args->settings.empty())
      return report(Error{"--defer-hard-irqs/--gro-flush-timeout/--irq-suspend-timeout/--threaded",
                          "nothing to set: give at least one"});
    rt::NetnsGuard guard(args->netns);
    if (guard.error()) return report(*guard.error());
    std::vector<std::uint32_t> ids;
    if (args->id) {
      ids.push_back(*args->id);
    } else {
      const auto ifindex = resolve_device(args->dev, args->netns);
      if (!ifindex) return report(ifindex.error());
      const auto napis = netdev::list_napis(*ifindex);
      if (!napis) return report(napis.error());
      for (const auto& n : *napis)
        ids.push_back(n.id);
      if (ids.empty())
        return report(Error{"--dev", "'" + args->dev +
                                         "' has no NAPI instances now (veth has them with GRO "
                                         "on or an XDP program attached)"});
    }
    for (const std::uint32_t napi_id : ids)
      if (auto e = netdev::set_napi(napi_id, args->settings)) return report(*e);
    status = kExitOk;
  });
}

}  // namespace irqmod::cli
