// Packets per device queue, and so per NAPI instance, where the device counts them: the netdev
// family's qstats-get first (Linux 6.9; drivers with netdev_stat_ops: virtio_net, mlx5, bnxt,
// ice, ...), else the driver's own per-queue ethtool counters (`ethtool -S`), which is where veth
// keeps them. queue-get (Linux 6.8) says which NAPI services each queue. Linux only; acts on the
// network namespace the process is in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/rt/netdev_netlink.hpp"

namespace irqmod::rt {

// Where a queue's count came from.
enum class PacketSource { qstats, ethtool };
std::string_view packet_source_name(PacketSource s);

struct QueuePackets {
  std::uint32_t ifindex = 0;
  netdev::QueueType type = netdev::QueueType::rx;
  std::uint32_t queue = 0;
  std::uint64_t packets = 0;
  std::optional<std::uint32_t> napi_id;  // from queue-get, when the driver linked the two
  PacketSource source = PacketSource::qstats;
  // veth links no queue to its NAPI in queue-get; its NAPIs are then matched to its Rx queues
  // in order (below), and this says so.
  bool napi_by_veth_order = false;
};

// An ethtool statistic's name read as a per-queue packet count of `driver`, or nothing. The
// spellings drivers use: "rx_queue_<N>_packets" (ixgbe, igb, ice, ...), "rx<N>_packets" (mlx5),
// "rx-<N>.packets" (i40e), the same with tx; and veth's "rx_queue_<N>_xdp_packets", which veth's
// NAPI poll (veth_xdp_rcv) counts for every frame it takes, XDP program or not (measured on
// Linux 6.18: 25 of 26 frames a namespace sent, the first having left before GRO was on). Other
// drivers' xdp_packets count only frames an XDP program saw, so they are not read as packets.
struct EthtoolQueueCounter {
  netdev::QueueType type = netdev::QueueType::rx;
  std::uint32_t queue = 0;
};
std::optional<EthtoolQueueCounter> parse_ethtool_queue_counter(std::string_view name,
                                                               std::string_view driver);

// Every queue's packets in this namespace (only `ifindex`'s when given), ordered by device, type
// and queue: qstats-get's for the devices that have them; for the others that queue-get lists,
// their ethtool per-queue counters. A device with neither is absent. veth's Rx queues, which
// queue-get leaves unlinked, get their NAPI by order: veth adds one NAPI per Rx queue, queue 0
// first (veth_napi_add_range, drivers/net/veth.c), and NAPI ids grow in the order NAPIs are
// added (napi_hash_add, net/core/dev.c), so the k-th smallest of the device's NAPI ids is queue
// k's, when the counts agree. An error only when the
// netdev family cannot be asked at all (before Linux 6.8).
Expected<std::vector<QueuePackets>> read_queue_packets(
    std::optional<std::uint32_t> ifindex = std::nullopt);

// The packets of the queues NAPI `napi_id` services (Rx and Tx), or nothing when no queue with a
// count names it.
struct NapiPackets {
  std::optional<std::uint64_t> rx;  // empty: no Rx queue with a count names the NAPI
  std::optional<std::uint64_t> tx;
  PacketSource source = PacketSource::qstats;
};
std::optional<NapiPackets> napi_packets(const std::vector<QueuePackets>& queues,
                                        std::uint32_t napi_id);

// Packets per second of each queue counted in both readings `seconds` apart, in `after`'s order
// and with its NAPI. A counter is unsigned 64-bit; a reading lower than the one before is taken
// as a restart of the counter (the device was recreated), not a wrap, and that queue is left out.
struct QueueRate {
  QueuePackets queue;  // `after`'s reading
  double per_second = 0;
};
std::vector<QueueRate> queue_rates(const std::vector<QueuePackets>& before,
                                   const std::vector<QueuePackets>& after, double seconds);

// The rates of the queues NAPI `napi_id` services, summed per direction, or nothing.
struct NapiRate {
  std::optional<double> rx;
  std::optional<double> tx;
};
std::optional<NapiRate> napi_rate(const std::vector<QueueRate>& rates, std::uint32_t napi_id);

}  // namespace irqmod::rt
