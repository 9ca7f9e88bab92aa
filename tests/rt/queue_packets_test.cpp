// The pure parts of the per-queue packet counts: ethtool counter names, sums per NAPI, rates.
#include "irqmod/rt/queue_packets.hpp"

#include <gtest/gtest.h>

namespace irqmod::rt {
namespace {

using netdev::QueueType;

TEST(queue_packets, reads_the_per_queue_packet_counters_drivers_name) {
  const auto check = [](std::string_view name, std::string_view driver, QueueType type,
                        std::uint32_t queue) {
    const auto c = parse_ethtool_queue_counter(name, driver);
    ASSERT_TRUE(c) << name;
    EXPECT_EQ(c->type, type) << name;
    EXPECT_EQ(c->queue, queue) << name;
  };
  check("rx_queue_3_packets", "ixgbe", QueueType::rx, 3);
  check("tx_queue_12_packets", "ice", QueueType::tx, 12);
  check("rx0_packets", "mlx5_core", QueueType::rx, 0);
  check("tx7_packets", "mlx5_core", QueueType::tx, 7);
  check("rx-5.packets", "i40e", QueueType::rx, 5);
  check("tx-1.packets", "i40e", QueueType::tx, 1);
  check("rx_queue_1_xdp_packets", "veth", QueueType::rx, 1);
}

TEST(queue_packets, leaves_out_bytes_totals_and_other_drivers_xdp_counts) {
  for (const char* name : {"rx_queue_3_bytes", "rx_packets", "rx_queue__packets",
                           "rx_queue_3_packets_x", "rx_queue_x_packets", "rx3_drops"})
    EXPECT_FALSE(parse_ethtool_queue_counter(name, "ixgbe")) << name;
  // xdp_packets counts every polled frame only on veth; elsewhere only XDP's.
  EXPECT_FALSE(parse_ethtool_queue_counter("rx_queue_1_xdp_packets", "virtio_net"));
  EXPECT_FALSE(parse_ethtool_queue_counter("rx0_xdp_packets", "virtio_net"));
  // veth's Tx side counts XDP transmissions only, and veth names no plain packet counter.
  EXPECT_FALSE(parse_ethtool_queue_counter("tx_queue_0_xdp_xmit", "veth"));
  EXPECT_FALSE(parse_ethtool_queue_counter("rx_queue_0_packets", "veth"));
}

QueuePackets queue(QueueType type, std::uint32_t id, std::uint64_t packets,
                   std::optional<std::uint32_t> napi) {
  QueuePackets q;
  q.ifindex = 2;
  q.type = type;
  q.queue = id;
  q.packets = packets;
  q.napi_id = napi;
  return q;
}

TEST(queue_packets, sums_a_napis_queues_per_direction) {
  const std::vector<QueuePackets> queues{
      queue(QueueType::rx, 0, 100, 7), queue(QueueType::rx, 1, 50, 8),
      queue(QueueType::tx, 0, 30, 7), queue(QueueType::rx, 2, 5, 7),
      queue(QueueType::tx, 1, 9, std::nullopt)};
  const auto seven = napi_packets(queues, 7);
  ASSERT_TRUE(seven);
  EXPECT_EQ(seven->rx, 105u);
  EXPECT_EQ(seven->tx, 30u);
  const auto eight = napi_packets(queues, 8);
  ASSERT_TRUE(eight);
  EXPECT_EQ(eight->rx, 50u);
  EXPECT_FALSE(eight->tx);  // no Tx queue names NAPI 8: unknown, not 0
  EXPECT_FALSE(napi_packets(queues, 9));
}

TEST(queue_packets, rates_are_the_difference_over_the_interval_and_skip_restarted_counters) {
  const std::vector<QueuePackets> before{queue(QueueType::rx, 0, 1000, 7),
                                         queue(QueueType::rx, 1, 500, 8)};
  const std::vector<QueuePackets> after{queue(QueueType::rx, 0, 1600, 7),
                                        queue(QueueType::rx, 1, 20, 8),   // device recreated
                                        queue(QueueType::tx, 0, 40, 7)};  // new: no rate yet
  const auto rates = queue_rates(before, after, 2.0);
  ASSERT_EQ(rates.size(), 1u);
  EXPECT_EQ(rates[0].queue.queue, 0u);
  EXPECT_DOUBLE_EQ(rates[0].per_second, 300.0);
  const auto r = napi_rate(rates, 7);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r->rx, 300.0);
  EXPECT_FALSE(r->tx);
  EXPECT_FALSE(napi_rate(rates, 8));
  EXPECT_TRUE(queue_rates(before, after, 0.0).empty());
}

TEST(queue_packets, a_count_from_another_source_is_not_differenced) {
  auto a = queue(QueueType::rx, 0, 1000, 7);
  auto b = queue(QueueType::rx, 0, 5000, 7);
  b.source = PacketSource::ethtool;
  EXPECT_TRUE(queue_rates({a}, {b}, 1.0).empty());
}

}  // namespace
}  // namespace irqmod::rt
