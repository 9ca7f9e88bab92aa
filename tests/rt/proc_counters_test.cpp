// Parsing /proc/interrupts, /proc/softirqs and /proc/net/netstat text, and rates between readings.
#include "irqmod/rt/proc_counters.hpp"

#include <gtest/gtest.h>

namespace irqmod::rt::proc {
namespace {

// Shapes taken from this machine's /proc files (Linux 6.18, 2 vCPU), counts changed.
constexpr const char* kInterrupts =
    "           CPU0       CPU1       \n"
    " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
    " 42:        100       4000  PCI-MSIX-0000:00:04.0   2-edge      virtio3-tx\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:       5000       6000   Local timer interrupts\n"
    "ERR:          0\n";

constexpr const char* kSoftirqs =
    "                    CPU0       CPU1\n"
    "          HI:          0          0\n"
    "      NET_TX:         34         43\n"
    "      NET_RX:   74032827   74398299\n";

constexpr const char* kNetstat =
    "TcpExt: SyncookiesSent BusyPollRxPackets TCPAutoCorking\n"
    "TcpExt: 0 1234 7\n"
    "IpExt: InNoRoutes\n"
    "IpExt: 0\n";

TEST(proc_counters, reads_each_vector_with_its_per_cpu_counts_and_description) {
  const auto v = parse_interrupts(kInterrupts);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[1].label, "42");
  EXPECT_EQ(v[1].per_cpu, (std::vector<std::uint64_t>{100, 4000}));
  EXPECT_EQ(v[1].description, "PCI-MSIX-0000:00:04.0 2-edge virtio3-tx");
  EXPECT_EQ(v[3].label, "LOC");
  EXPECT_EQ(v[3].description, "Local timer interrupts");
  EXPECT_EQ(v[4].label, "ERR");
  EXPECT_EQ(v[4].per_cpu, (std::vector<std::uint64_t>{0}));  // one column only
}

TEST(proc_counters, reads_a_softirq_row_per_cpu_and_nothing_for_a_missing_row) {
  EXPECT_EQ(parse_softirq_row(kSoftirqs, "NET_RX"),
            (std::vector<std::uint64_t>{74032827, 74398299}));
  EXPECT_EQ(parse_softirq_row(kSoftirqs, "NET_TX"), (std::vector<std::uint64_t>{34, 43}));
  EXPECT_TRUE(parse_softirq_row(kSoftirqs, "BLOCK").empty());
}

TEST(proc_counters, finds_a_netstat_counter_by_group_and_name) {
  EXPECT_EQ(parse_netstat(kNetstat, "TcpExt", "BusyPollRxPackets"), 1234u);
  EXPECT_EQ(parse_netstat(kNetstat, "IpExt", "InNoRoutes"), 0u);
  EXPECT_FALSE(parse_netstat(kNetstat, "TcpExt", "NoSuchCounter"));
}

TEST(proc_counters, a_delta_survives_one_wrap_of_a_32_bit_counter) {
  EXPECT_EQ(counter_delta(0xFFFF'FFF0u, 0x10u, 32), 0x20u);
  EXPECT_EQ(counter_delta(5, 9, 32), 4u);
  EXPECT_EQ(counter_delta(~std::uint64_t{0}, 1, 64), 2u);
}

TEST(proc_counters, rates_are_per_second_and_not_reliable_over_no_time) {
  Snapshot a;
  a.taken = Instant{seconds(10)};
  a.interrupts = parse_interrupts(kInterrupts);
  a.net_rx = {100, 200};
  a.busy_poll_rx_packets = 1000;
  Snapshot b = a;
  b.taken = a.taken + milliseconds(500);
  b.interrupts[1].per_cpu = {150, 4100};
  b.net_rx = {300, 200};
  b.busy_poll_rx_packets = 1500;
  const auto r = rates_between(a, b);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->seconds, 0.5);
  EXPECT_DOUBLE_EQ(r->interrupts[1].per_second, 300.0);
  EXPECT_EQ(r->interrupts[1].per_cpu, (std::vector<double>{100.0, 200.0}));
  EXPECT_EQ(r->net_rx, (std::vector<double>{400.0, 0.0}));
  EXPECT_DOUBLE_EQ(*r->busy_poll_rx_packets, 1000.0);
  EXPECT_FALSE(rates_between(a, a));
}

}  // namespace
}  // namespace irqmod::rt::proc
