// Packets per queue and per NAPI: qstats-get, else the driver's ethtool counters
// (queue_packets.hpp).
#include "irqmod/rt/queue_packets.hpp"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <set>
#include <tuple>

#include "fd.hpp"

namespace irqmod::rt {
namespace {

using netdev::QueueType;

// Reads the decimal number that `text` starts with and returns what follows it, or nothing.
std::optional<std::string_view> take_number(std::string_view text, std::uint32_t& number) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), number);
  if (r.ec != std::errc{} || r.ptr == text.data()) return std::nullopt;
  return text.substr(static_cast<std::size_t>(r.ptr - text.data()));
}

// "<prefix><N><suffix>" exactly, giving N.
std::optional<std::uint32_t> match(std::string_view name, std::string_view prefix,
                                   std::string_view suffix) {
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::uint32_t n = 0;
  const auto rest = take_number(name.substr(prefix.size()), n);
  if (!rest || *rest != suffix) return std::nullopt;
  return n;
}

bool ethtool_ioctl(int fd, const char* device, void* command) {
  ifreq request{};
  std::memcpy(request.ifr_name, device, ::strnlen(device, IFNAMSIZ - 1));
  request.ifr_data = static_cast<char*>(command);
  return ::ioctl(fd, SIOCETHTOOL, &request) == 0;
}

// The per-queue packet counters of `ifindex` from its ethtool statistics; empty when the device
// has none (or the ioctls fail: the device went away, or it keeps no statistics).
struct EthtoolReading {
  std::string driver;
  std::vector<QueuePackets> queues;
};
EthtoolReading ethtool_queue_packets(std::uint32_t ifindex) {
  EthtoolReading reading;
  auto& out = reading.queues;
  char device[IF_NAMESIZE] = {};
  if (!::if_indextoname(ifindex, device)) return reading;
  // An AF_INET datagram socket for the ethtool ioctls.
  const detail::Fd socket{::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
  if (!socket.ok()) return reading;
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  if (!ethtool_ioctl(socket.get(), device, &info) || info.n_stats == 0) return reading;
  const std::uint32_t n = info.n_stats;
  std::vector<unsigned char> names(sizeof(ethtool_gstrings) + std::size_t{n} * ETH_GSTRING_LEN);
  auto* strings = reinterpret_cast<ethtool_gstrings*>(names.data());
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_STATS;
  strings->len = n;
  std::vector<unsigned char> values(sizeof(ethtool_stats) + std::size_t{n} * sizeof(std::uint64_t));
  auto* stats = reinterpret_cast<ethtool_stats*>(values.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = n;
  if (!ethtool_ioctl(socket.get(), device, strings) ||
      !ethtool_ioctl(socket.get(), device, stats) || strings->len != n || stats->n_stats != n)
    return reading;  // the set changed between the calls: no reading this time
  reading.driver.assign(info.driver, ::strnlen(info.driver, sizeof info.driver));
  const std::string_view driver = reading.driver;
  for (std::uint32_t i = 0; i < n; ++i) {
    const char* raw =
        reinterpret_cast<const char*>(strings->data) + std::size_t{i} * ETH_GSTRING_LEN;
    const std::string_view name(raw, ::strnlen(raw, ETH_GSTRING_LEN));
    if (const auto counter = parse_ethtool_queue_counter(name, driver)) {
      std::uint64_t value = 0;
      std::memcpy(&value, values.data() + sizeof(ethtool_stats) + std::size_t{i} * sizeof value,
                  sizeof value);
      out.push_back(
          {ifindex, counter->type, counter->queue, value, std::nullopt, PacketSource::ethtool});
    }
  }
  return reading;
}

// veth's Rx queues matched to its NAPIs by order (queue_packets.hpp), when every Rx queue counted
// has one.
void link_veth_queues_by_order(std::uint32_t ifindex, std::vector<QueuePackets>& queues) {
  const auto napis = netdev::list_napis(ifindex);  // ordered by NAPI id
  if (!napis) return;
  std::vector<QueuePackets*> rx;
  for (auto& q : queues)
    if (q.type == QueueType::rx) rx.push_back(&q);
  std::sort(rx.begin(), rx.end(), [](auto* a, auto* b) { return a->queue < b->queue; });
  if (rx.size() != napis->size()) return;
  for (std::size_t k = 0; k < rx.size(); ++k) {
    if (rx[k]->queue != k) return;
    rx[k]->napi_id = (*napis)[k].id;
    rx[k]->napi_by_veth_order = true;
  }
}

}  // namespace

std::string_view packet_source_name(PacketSource s) {
  return s == PacketSource::qstats ? "qstats" : "ethtool";
}

std::optional<EthtoolQueueCounter> parse_ethtool_queue_counter(std::string_view name,
                                                               std::string_view driver) {
  for (const auto type : {QueueType::rx, QueueType::tx}) {
    const std::string_view dir = netdev::queue_type_name(type);
    const std::string d(dir);
    std::optional<std::uint32_t> q;
    if (driver == "veth") {
      if (type == QueueType::rx) q = match(name, "rx_queue_", "_xdp_packets");
    } else {
      q = match(name, d + "_queue_", "_packets");
      if (!q) q = match(name, d, "_packets");
      if (!q) q = match(name, d + "-", ".packets");
    }
    if (q) return EthtoolQueueCounter{type, *q};
  }
  return std::nullopt;
}

Expected<std::vector<QueuePackets>> read_queue_packets(std::optional<std::uint32_t> ifindex) {
  const auto queues = netdev::list_queues(ifindex);
  if (!queues) return queues.error();
  std::vector<QueuePackets> out;
  std::set<std::uint32_t> counted;  // devices qstats-get answered for
  // qstats-get arrived a release after queue-get: on 6.8 every device falls back to ethtool.
  if (const auto stats = netdev::list_queue_stats(ifindex)) {
    for (const auto& s : *stats) {
      if (!s.packets) continue;
      out.push_back({s.ifindex, s.type, s.id, *s.packets, std::nullopt, PacketSource::qstats});
      counted.insert(s.ifindex);
    }
  }
  std::set<std::uint32_t> devices;
  for (const auto& q : *queues)
    devices.insert(q.ifindex);
  const auto link = [&queues](QueuePackets& p) {
    for (const auto& q : *queues)
      if (q.ifindex == p.ifindex && q.type == p.type && q.id == p.queue) p.napi_id = q.napi_id;
  };
  for (auto& p : out)
    link(p);
  for (const std::uint32_t dev : devices) {
    if (counted.count(dev)) continue;
    auto reading = ethtool_queue_packets(dev);
    for (auto& p : reading.queues)
      link(p);
    const bool unlinked = std::none_of(reading.queues.begin(), reading.queues.end(),
                                       [](const QueuePackets& q) { return q.napi_id.has_value(); });
    if (reading.driver == "veth" && unlinked) link_veth_queues_by_order(dev, reading.queues);
    out.insert(out.end(), reading.queues.begin(), reading.queues.end());
  }
  std::sort(out.begin(), out.end(), [](const QueuePackets& a, const QueuePackets& b) {
    return std::tuple(a.ifindex, a.type, a.queue) < std::tuple(b.ifindex, b.type, b.queue);
  });
  return out;
}

std::optional<NapiPackets> napi_packets(const std::vector<QueuePackets>& queues,
                                        std::uint32_t napi_id) {
  std::optional<NapiPackets> sum;
  for (const auto& q : queues) {
    if (q.napi_id != napi_id) continue;
    if (!sum) sum = NapiPackets{std::nullopt, std::nullopt, q.source};
    auto& counted = q.type == QueueType::rx ? sum->rx : sum->tx;
    counted = counted.value_or(0) + q.packets;
  }
  return sum;
}

std::vector<QueueRate> queue_rates(const std::vector<QueuePackets>& before,
                                   const std::vector<QueuePackets>& after, double seconds) {
  std::vector<QueueRate> rates;
  if (!(seconds > 0)) return rates;
  for (const auto& a : after) {
    const auto b = std::find_if(before.begin(), before.end(), [&a](const QueuePackets& q) {
      return q.ifindex == a.ifindex && q.type == a.type && q.queue == a.queue &&
             q.source == a.source;
    });
    if (b == before.end() || a.packets < b->packets) continue;
    rates.push_back({a, static_cast<double>(a.packets - b->packets) / seconds});
  }
  return rates;
}

std::optional<NapiRate> napi_rate(const std::vector<QueueRate>& rates, std::uint32_t napi_id) {
  std::optional<NapiRate> sum;
  for (const auto& r : rates) {
    if (r.queue.napi_id != napi_id) continue;
    if (!sum) sum = NapiRate{};
    auto& counted = r.queue.type == QueueType::rx ? sum->rx : sum->tx;
    counted = counted.value_or(0) + r.per_second;
  }
  return sum;
}

}  // namespace irqmod::rt
