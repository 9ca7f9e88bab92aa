// The kernel's interrupt, softirq and busy-poll counters as /proc prints them, and their rates
// between two readings (for `irqmod top`). Parsing is pure; read_snapshot does the I/O.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::rt::proc {

// One line of /proc/interrupts: a numbered vector ("24") or an architecture counter ("LOC").
struct Vector {
  std::string label;                   // before the colon
  std::string description;             // chip, hardware IRQ and handler names, spaces collapsed
  std::vector<std::uint64_t> per_cpu;  // one count per CPU column (fewer for ERR, MIS)
};

struct Snapshot {
  Instant taken{};
  std::vector<Vector> interrupts;
  std::vector<std::uint64_t> net_rx;                  // NET_RX softirqs per CPU (/proc/softirqs)
  std::vector<std::uint64_t> net_tx;                  // NET_TX softirqs per CPU
  std::optional<std::uint64_t> busy_poll_rx_packets;  // TcpExt BusyPollRxPackets, this netns
};

std::vector<Vector> parse_interrupts(std::string_view text);
// The per-CPU counts of one /proc/softirqs row ("NET_RX"); empty when absent.
std::vector<std::uint64_t> parse_softirq_row(std::string_view text, std::string_view row);
// A counter of /proc/net/netstat ("TcpExt", "BusyPollRxPackets"): a header line of names and a
// line of values, both starting with the group's name.
std::optional<std::uint64_t> parse_netstat(std::string_view text, std::string_view group,
                                           std::string_view name);

// Reads /proc/interrupts, /proc/softirqs and /proc/self/net/netstat (the calling thread's
// network namespace) now.
Expected<Snapshot> read_snapshot(Instant now);

// The increase of a counter the kernel keeps in `bits` bits, across one wrap-around.
std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, int bits);

// Per-second rates between two snapshots; empty (not reliable) when no time passed.
struct Rates {
  double seconds = 0;
  struct VectorRate {
    std::string label;
    std::string description;
    double per_second = 0;        // all CPUs
    std::vector<double> per_cpu;  // per CPU column
  };
  std::vector<VectorRate> interrupts;  // vectors present in both, in /proc order
  std::vector<double> net_rx;          // per CPU
  std::vector<double> net_tx;
  std::optional<double> busy_poll_rx_packets;
};
std::optional<Rates> rates_between(const Snapshot& before, const Snapshot& after);

}  // namespace irqmod::rt::proc
