// irqmod top: interrupts/s per vector, NET_RX / NET_TX softirqs/s per CPU, busy-poll packets/s,
// packets/s per queue and NAPI where the device counts them, and each NAPI's settings, refreshed
// every interval (irqmod/rt/proc_counters.hpp, queue_packets.hpp).
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "irqmod/rt/netdev_netlink.hpp"
#include "irqmod/rt/netns.hpp"
#include "irqmod/rt/proc_counters.hpp"
#include "irqmod/rt/queue_packets.hpp"
#include "irqmod/sim/json.hpp"

namespace irqmod::cli {
namespace {

using rt::device_name;

namespace proc = rt::proc;

// Refresh interval bounds: below 0.1 s the counts are too few to be a rate worth reading; above
// a minute it is no longer a live view.
constexpr double kMinIntervalSeconds = 0.1;
constexpr double kMaxIntervalSeconds = 60.0;
// Vectors shown in the text view, busiest first.
constexpr std::size_t kTextVectors = 12;

Instant steady_now() {
  return Instant{
      std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now().time_since_epoch())};
}

void sleep_for(Duration d) {
  timespec left{static_cast<time_t>(d.count() / 1'000'000'000),
                static_cast<long>(d.count() % 1'000'000'000)};
  while (::nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

// The vectors that fired, busiest first.
std::vector<proc::Rates::VectorRate> active(const proc::Rates& r) {
  std::vector<proc::Rates::VectorRate> v;
  for (const auto& x : r.interrupts)
    if (x.per_second > 0) v.push_back(x);
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.per_second > b.per_second; });
  return v;
}

void print_json(const proc::Rates& r, const std::optional<std::vector<rt::netdev::Napi>>& napis,
                const std::vector<rt::QueueRate>& queues, const std::string& netns) {
  sim::JsonWriter w(std::cout);
  w.begin_object();
  w.key("seconds");
  w.value(r.seconds, 6);
  w.field("netns", netns);
  w.key("interrupts");
  w.begin_array();
  for (const auto& v : active(r)) {
    w.begin_object();
    w.field("vector", v.label);
    w.field("description", v.description);
    w.key("per_s");
    w.value(v.per_second, 6);
    w.key("per_cpu_per_s");
    w.begin_array();
    for (const double c : v.per_cpu)
      w.value(c, 6);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  for (const auto& [name, rates] :
       {std::pair{"net_rx_per_s", &r.net_rx}, std::pair{"net_tx_per_s", &r.net_tx}}) {
    w.key(name);
    w.begin_array();
    for (const double c : *rates)
      w.value(c, 6);
    w.end_array();
  }
  w.key("busy_poll_rx_packets_per_s");
  r.busy_poll_rx_packets ? w.value(*r.busy_poll_rx_packets, 6) : w.null();
  w.key("napis");
  if (napis) {
    w.begin_array();
    for (const auto& n : *napis) {
      w.begin_object();
      w.field("id", std::uint64_t{n.id});
      w.field("ifindex", std::uint64_t{n.ifindex});
      const auto optional = [&w](const char* key, const auto& v) {
        w.key(key);
        v ? w.value(std::uint64_t{*v}) : w.null();
      };
      optional("pid", n.pid);
      optional("threaded", n.threaded);
      optional("defer_hard_irqs", n.defer_hard_irqs);
      optional("gro_flush_timeout_ns", n.gro_flush_timeout_ns);
      optional("irq_suspend_timeout_ns", n.irq_suspend_timeout_ns);
      const auto rate = rt::napi_rate(queues, n.id);
      for (const auto& [key, v] : {std::pair{"rx_packets_per_s", rate ? rate->rx : std::nullopt},
                                   std::pair{"tx_packets_per_s", rate ? rate->tx : std::nullopt}}) {
        w.key(key);
        v ? w.value(*v, 6) : w.null();
      }
      w.end_object();
    }
    w.end_array();
  } else {
    w.null();
  }
  w.key("queues");
  w.begin_array();
  for (const auto& q : queues) {
    w.begin_object();
    w.field("ifindex", std::uint64_t{q.queue.ifindex});
    w.field("dev", device_name(q.queue.ifindex));
    w.field("type", std::string(rt::netdev::queue_type_name(q.queue.type)));
    w.field("queue", std::uint64_t{q.queue.queue});
    w.key("napi_id");
    q.queue.napi_id ? w.value(std::uint64_t{*q.queue.napi_id}) : w.null();
    w.key("packets_per_s");
    w.value(q.per_second, 6);
    w.field("source", std::string(rt::packet_source_name(q.queue.source)));
    w.end_object();
  }
  w.end_array();
  w.end_object();
  std::cout << "\n" << std::flush;
}

void print_text(const proc::Rates& r, const std::optional<std::vector<rt::netdev::Napi>>& napis,
                const std::vector<rt::QueueRate>& queues, const std::string& netns, bool clear) {
  if (clear) std::printf("\033[H\033[2J");
  std::printf("irqmod top: per second over %.2f s%s\n\n", r.seconds,
              netns.empty() ? "" : (", netns " + netns).c_str());
  std::printf("%-8s %12s  %-24s %s\n", "vector", "interrupts/s", "per CPU", "description");
  const auto vectors = active(r);
  for (std::size_t i = 0; i < vectors.size() && i < kTextVectors; ++i) {
    std::string cpus;
    for (const double c : vectors[i].per_cpu)
      cpus += (cpus.empty() ? "" : " ") + std::to_string(std::lround(c));
    std::printf("%-8s %12.0f  %-24s %s\n", vectors[i].label.c_str(), vectors[i].per_second,
                cpus.c_str(), vectors[i].description.c_str());
  }
  if (vectors.empty()) std::printf("(no interrupts)\n");
  std::printf("\n%-8s", "softirq/s");
  for (std::size_t c = 0; c < r.net_rx.size(); ++c)
    std::printf(" %10s", ("CPU" + std::to_string(c)).c_str());
  for (const auto& [name, rates] :
       {std::pair{"NET_RX", &r.net_rx}, std::pair{"NET_TX", &r.net_tx}}) {
    std::printf("\n%-8s", name);
    for (const double c : *rates)
      std::printf(" %10.0f", c);
  }
  std::printf("\n\nbusy-poll rx packets/s  %s\n",
              r.busy_poll_rx_packets ? std::to_string(std::lround(*r.busy_poll_rx_packets)).c_str()
                                     : "n/a");
  if (napis && !napis->empty()) {
    std::printf("\n%-6s %-8s %-7s %-9s %-15s %-16s %-17s %s\n", "NAPI", "ifindex", "pid",
                "threaded", "defer (polls)", "gro-flush (ns)", "irq-suspend (ns)", "rx pkts/s");
    const auto num = [](const auto& v) { return v ? std::to_string(*v) : std::string("n/a"); };
    for (const auto& n : *napis) {
      const auto rate = rt::napi_rate(queues, n.id);
      std::printf("%-6u %-8u %-7s %-9s %-15s %-16s %-17s %s\n", n.id, n.ifindex,
                  n.pid ? std::to_string(*n.pid).c_str() : "-", num(n.threaded).c_str(),
                  num(n.defer_hard_irqs).c_str(), num(n.gro_flush_timeout_ns).c_str(),
                  num(n.irq_suspend_timeout_ns).c_str(),
                  rate && rate->rx ? std::to_string(std::lround(*rate->rx)).c_str() : "n/a");
    }
  }
  if (!queues.empty()) {
    std::printf("\n%-16s %-4s %6s %8s %12s  %s\n", "queue of", "type", "queue", "NAPI", "packets/s",
                "source");
    for (const auto& q : queues)
      std::printf("%-16s %-4s %6u %8s %12ld  %s\n", device_name(q.queue.ifindex).c_str(),
                  std::string(rt::netdev::queue_type_name(q.queue.type)).c_str(), q.queue.queue,
                  q.queue.napi_id ? std::to_string(*q.queue.napi_id).c_str() : "-",
                  std::lround(q.per_second),
                  std::string(rt::packet_source_name(q.queue.source)).c_str());
  }
  std::fflush(stdout);
}

}  // namespace

void add_top_command(CLI::App& app, int& status) {
  struct Args {
    double interval = 1.0;
    bool once = false;
    std::optional<unsigned> count;
    bool json = false;
    std::string netns;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "top", "Interrupts/s per vector, NET_RX/NET_TX softirqs/s per CPU, busy-poll packets/s");
  cmd->add_option("--interval", args->interval, "Seconds between refreshes (0.1 to 60)")
      ->capture_default_str();
  auto* once = cmd->add_flag("--once", args->once, "One interval, then exit");
  auto* count = cmd->add_option("--count", args->count,
                                "Refreshes before exiting (default: run "
                                "until interrupted)");
  once->excludes(count);
  cmd->add_flag("--json", args->json, "One JSON object per refresh, one a line");
  cmd->add_option("--netns", args->netns,
                  "Read busy-poll packets and NAPIs in this `ip netns` namespace");
  cmd->callback([args, &status] {
    const auto fail = [&status](const Error& e) {
      std::cerr << "irqmod top: " << e.what() << "\n";
      status = exit_status_for(e);
    };
    if (!(args->interval >= kMinIntervalSeconds && args->interval <= kMaxIntervalSeconds))
      return fail(Error{"--interval", "must be between 0.1 and 60 seconds"});
    if (args->count && *args->count == 0) return fail(Error{"--count", "must be at least 1"});
    rt::NetnsGuard guard(args->netns);
    if (guard.error()) return fail(*guard.error());
    const std::optional<unsigned> refreshes = args->once ? std::optional<unsigned>{1} : args->count;
    const Duration interval{static_cast<std::int64_t>(std::llround(args->interval * 1e9))};
    const bool clear = !args->json && !refreshes && ::isatty(STDOUT_FILENO);
    auto before = proc::read_snapshot(steady_now());
    if (!before) return fail(before.error());
    // Queue counts where the kernel and device give them; none (an older kernel) is no error.
    const auto read_queues = [] {
      auto q = rt::read_queue_packets();
      return q ? std::move(q.value()) : std::vector<rt::QueuePackets>{};
    };
    auto queues_before = read_queues();
    for (unsigned n = 0; !refreshes || n < *refreshes; ++n) {
      sleep_for(interval);
      auto after = proc::read_snapshot(steady_now());
      if (!after) return fail(after.error());
      auto queues_after = read_queues();
      const auto rates = proc::rates_between(*before, *after);
      std::optional<std::vector<rt::netdev::Napi>> napis;
      if (auto listed = rt::netdev::list_napis()) napis = std::move(listed.value());
      if (rates) {
        const auto queue_rates = rt::queue_rates(queues_before, queues_after, rates->seconds);
        args->json ? print_json(*rates, napis, queue_rates, args->netns)
                   : print_text(*rates, napis, queue_rates, args->netns, clear);
      }
      before = std::move(after);
      queues_before = std::move(queues_after);
    }
    status = kExitOk;
  });
}

}  // namespace irqmod::cli
