// irqmod napi list|queues|set: the kernel's NAPI instances, their settings and the packets of the
// queues they service, over netlink (irqmod/rt/netdev_netlink.hpp, queue_packets.hpp), in the
// current or a named network namespace.
#include <net/if.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "commands.hpp"
#include "irqmod/rt/netdev_netlink.hpp"
#include "irqmod/rt/netns.hpp"
#include "irqmod/rt/queue_packets.hpp"

namespace irqmod::cli {
namespace {

using rt::device_name;

namespace netdev = rt::netdev;

// The kernel's own bound on defer-hard-irqs (netdev.yaml: max s32-max).
constexpr std::uint32_t kMaxDeferHardIrqs = std::numeric_limits<std::int32_t>::max();
// The timeouts' bound: the kernel arms its hrtimers with them as ktime_t (signed 64-bit ns), so
// more would run negative. The check also stops CLI11 2.1 from taking "-5" as 2^64 - 5.
constexpr std::uint64_t kMaxTimeoutNs = std::numeric_limits<std::int64_t>::max();

template <typename T>
std::string text(const std::optional<T>& v, const char* unit = "") {
  return v ? std::to_string(*v) + unit : "n/a";
}

// The queues NAPI `id` services, as "rx 0: 1234, tx 0: 56".
std::string queue_list(const std::vector<rt::QueuePackets>& queues, std::uint32_t id) {
  std::string out;
  for (const auto& q : queues)
    if (q.napi_id == id)
      out += (out.empty() ? "" : ", ") + std::string(netdev::queue_type_name(q.type)) + " " +
             std::to_string(q.queue) + ": " + std::to_string(q.packets);
  return out;
}

// What the packet lines say when no queue count names the NAPI.
constexpr const char* kNoPackets =
    "n/a (the device reports no per-queue packets, or no queue names this NAPI)";

void print_text(const netdev::Napi& n, const std::vector<rt::QueuePackets>& queues) {
  std::printf("NAPI %u (%s, ifindex %u):\n", n.id, device_name(n.ifindex).c_str(), n.ifindex);
  std::printf("  IRQ:                  %s\n", text(n.irq).c_str());
  std::printf("  poll thread pid:      %s\n", n.pid ? std::to_string(*n.pid).c_str() : "none");
  std::printf("  threaded:             %s\n",
              n.threaded ? (*n.threaded ? "on" : "off") : "n/a (kernel before 6.17)");
  std::printf("  defer-hard-irqs:      %s\n", text(n.defer_hard_irqs).c_str());
  std::printf("  gro-flush-timeout:    %s\n", text(n.gro_flush_timeout_ns, " ns").c_str());
  std::printf("  irq-suspend-timeout:  %s\n", text(n.irq_suspend_timeout_ns, " ns").c_str());
  if (const auto p = rt::napi_packets(queues, n.id)) {
    std::printf("  packets:              rx %s, tx %s (%s)\n", text(p->rx).c_str(),
                text(p->tx).c_str(), std::string(rt::packet_source_name(p->source)).c_str());
    std::printf("  queues:               %s\n", queue_list(queues, n.id).c_str());
  } else {
    std::printf("  packets:              %s\n", kNoPackets);
  }
}

template <typename T>
std::string json_value(const std::optional<T>& v) {
  return v ? std::to_string(*v) : "null";
}

std::string json_queue(const rt::QueuePackets& q) {
  return "{\"ifindex\": " + std::to_string(q.ifindex) + ", \"dev\": \"" + device_name(q.ifindex) +
         "\", \"type\": \"" + std::string(netdev::queue_type_name(q.type)) +
         "\", \"queue\": " + std::to_string(q.queue) + ", \"napi_id\": " + json_value(q.napi_id) +
         ", \"napi_by_veth_order\": " + (q.napi_by_veth_order ? "true" : "false") +
         ", \"packets\": " + std::to_string(q.packets) + ", \"source\": \"" +
         std::string(rt::packet_source_name(q.source)) + "\"}";
}

void print_json(const netdev::Napi& n, const std::vector<rt::QueuePackets>& queues) {
  const auto p = rt::napi_packets(queues, n.id);
  std::string linked;
  for (const auto& q : queues)
    if (q.napi_id == n.id) linked += (linked.empty() ? "" : ", ") + json_queue(q);
  std::printf(
      "{\"id\": %u, \"ifindex\": %u, \"dev\": \"%s\", \"irq\": %s, \"pid\": %s, "
      "\"threaded\": %s, \"defer_hard_irqs\": %s, \"gro_flush_timeout_ns\": %s, "
      "\"irq_suspend_timeout_ns\": %s, \"rx_packets\": %s, \"tx_packets\": %s, "
      "\"packets_source\": %s, \"queues\": [%s]}\n",
      n.id, n.ifindex, device_name(n.ifindex).c_str(), json_value(n.irq).c_str(),
      json_value(n.pid).c_str(), json_value(n.threaded).c_str(),
      json_value(n.defer_hard_irqs).c_str(), json_value(n.gro_flush_timeout_ns).c_str(),
      json_value(n.irq_suspend_timeout_ns).c_str(), p ? json_value(p->rx).c_str() : "null",
      p ? json_value(p->tx).c_str() : "null",
      p ? ("\"" + std::string(rt::packet_source_name(p->source)) + "\"").c_str() : "null",
      linked.c_str());
}

// The ifindex of --dev in the current namespace.
Expected<std::uint32_t> resolve_device(const std::string& dev, const std::string& netns) {
  const unsigned ifindex = ::if_nametoindex(dev.c_str());
  if (ifindex == 0)
    return Error{"--dev", "no device '" + dev + "' in " +
                              (netns.empty() ? "this network namespace" : "netns " + netns)};
  return static_cast<std::uint32_t>(ifindex);
}

struct Args {
  std::string netns;
  std::string dev;
  std::optional<std::uint32_t> id;
  netdev::NapiSettings settings;
  std::string threaded;
  bool json = false;
};

// The options `list` and `queues` share: where to look, which device, JSON.
void add_view_options(CLI::App* view, Args& args, const std::string& dev_help) {
  view->add_option("--netns", args.netns, "Look inside this `ip netns` namespace");
  view->add_option("--dev", args.dev, dev_help);
  view->add_flag("--json", args.json, "One JSON object per line");
}

// --dev's ifindex (in the namespace entered), or none without --dev.
Expected<std::optional<std::uint32_t>> device_filter(const Args& args) {
  if (args.dev.empty()) return std::optional<std::uint32_t>{};
  const auto resolved = resolve_device(args.dev, args.netns);
  if (!resolved) return resolved.error();
  return std::optional<std::uint32_t>{*resolved};
}

}  // namespace

void add_napi_command(CLI::App& app, int& status) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "napi", "The kernel's NAPI instances and their settings (netdev netlink family)");
  cmd->require_subcommand(1);
  const auto report = [&status](const Error& e) {
    std::cerr << "irqmod napi: " << e.what() << "\n";
    status = exit_status_for(e);
  };

  CLI::App* list = cmd->add_subcommand("list", "Show each NAPI: id, device, IRQ, thread, settings");
  add_view_options(list, *args, "Only this device's NAPIs");
  list->callback([args, report, &status] {
    rt::NetnsGuard guard(args->netns);
    if (guard.error()) return report(*guard.error());
    const auto ifindex = device_filter(*args);
    if (!ifindex) return report(ifindex.error());
    const auto napis = netdev::list_napis(*ifindex);
    if (!napis) return report(napis.error());
    // Packets are shown where the kernel can say them; a kernel without queue-get (before 6.8)
    // still lists the NAPIs.
    const auto queues = rt::read_queue_packets(*ifindex);
    const std::vector<rt::QueuePackets> none;
    for (const auto& n : *napis)
      args->json ? print_json(n, queues ? *queues : none) : print_text(n, queues ? *queues : none);
    if (napis->empty() && !args->json)
      std::printf("no NAPI instances%s\n",
                  args->netns.empty() ? "" : (" in " + args->netns).c_str());
    status = kExitOk;
  });

  CLI::App* queues = cmd->add_subcommand(
      "queues", "Each device queue: its NAPI and packets (queue-get, qstats-get or ethtool -S)");
  add_view_options(queues, *args, "Only this device's queues");
  queues->callback([args, report, &status] {
    rt::NetnsGuard guard(args->netns);
    if (guard.error()) return report(*guard.error());
    const auto ifindex = device_filter(*args);
    if (!ifindex) return report(ifindex.error());
    const auto listed = rt::read_queue_packets(*ifindex);
    if (!listed) return report(listed.error());
    if (!args->json && !listed->empty())
      std::printf("%-16s %-4s %6s %8s %14s  %s\n", "device", "type", "queue", "NAPI", "packets",
                  "source");
    for (const auto& q : *listed) {
      if (args->json) {
        std::printf("%s\n", json_queue(q).c_str());
        continue;
      }
      std::printf("%-16s %-4s %6u %8s %14llu  %s\n", device_name(q.ifindex).c_str(),
                  std::string(netdev::queue_type_name(q.type)).c_str(), q.queue,
                  q.napi_id
                      ? (std::to_string(*q.napi_id) + (q.napi_by_veth_order ? "*" : "")).c_str()
                      : "-",
                  static_cast<unsigned long long>(q.packets),
                  std::string(rt::packet_source_name(q.source)).c_str());
    }
    if (!args->json && std::any_of(listed->begin(), listed->end(),
                                   [](const auto& q) { return q.napi_by_veth_order; }))
      std::printf("* veth links no queue to its NAPI; matched by order (one NAPI per Rx queue)\n");
    if (listed->empty() && !args->json)
      std::printf("no queue packet counts%s (the devices report none)\n",
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
