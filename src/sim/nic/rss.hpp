// Receive-side scaling: the Toeplitz hash of a flow's addresses and ports, and the indirection
// table that turns the hash into an Rx queue, as Linux drivers set them up by default (sources
// next to each piece: include/linux/ethtool.h, include/linux/netdevice.h, the i40e, ixgbe and ice
// drivers, and Microsoft's "Verifying the RSS Hash Calculation").
//
// The hash is computed once per flow when the scenario is set up, not per packet; a frame then
// carries its flow's queue. So toeplitz_hash is a plain bit loop (8 steps per input byte: 96 for
// an IPv4 4-tuple), and only IndirectionTable::queue_of, a mask and a load, sits on a hot path.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/random.hpp"

namespace irqmod::sim {

// An IPv4 flow as the NIC hashes it. Addresses and ports are in host byte order
// (198.18.0.1 is 0xc6120001); the hash reads them in network order, as they are on the wire.
struct FlowTuple {
  std::uint32_t source_address = 0;
  std::uint32_t destination_address = 0;
  std::uint16_t source_port = 0;
  std::uint16_t destination_port = 0;
  friend bool operator==(const FlowTuple&, const FlowTuple&) = default;
};

// NETDEV_RSS_KEY_LEN (include/linux/netdevice.h), also i40e's key (13 PFQF_HKEY registers).
// Drivers with a shorter key take its prefix (netdev_rss_key_fill copies the first len bytes):
// ixgbe's 40-byte key is the first 40 bytes of this one. An IPv4 4-tuple reads only 16.
inline constexpr std::size_t kRssKeyBytes = 52;
using RssKey = std::array<std::uint8_t, kRssKeyBytes>;

// The longest input a key can hash: every input bit needs the 32 key bits that start at it.
inline constexpr std::size_t kMaxToeplitzInputBytes = kRssKeyBytes - 4;

// The 40-byte key of Microsoft's "Verifying the RSS Hash Calculation" (also the 82599
// datasheet's RSS verification suite), zero-padded to 52 bytes. For the test vectors.
RssKey microsoft_rss_key();

// netdev_rss_key_fill fills the kernel's key with random bytes once per boot and every device
// shares it. The simulator's "boot" is the run, so the key comes from the run's seed: 52 bytes
// from seven draws of `rng`, each 64-bit draw split least significant byte first.
RssKey random_rss_key(Rng& rng);

// The Toeplitz hash of `input`, read most significant bit first: for every 1 bit, the result is
// XORed with the key's leftmost 32 bits; the key shifts left one bit per input bit. O(bits of
// input). Precondition: input.size() <= kMaxToeplitzInputBytes (asserted).
std::uint32_t toeplitz_hash(const RssKey& key, std::span<const std::uint8_t> input);

// IPv4 with TCP (or UDP when the driver hashes its ports): source address, destination address,
// source port, destination port, 12 bytes in network order.
std::uint32_t rss_hash_4tuple(const RssKey& key, const FlowTuple& flow);
// IPv4 addresses only: source address, destination address, 8 bytes. ixgbe hashes UDP this way
// unless `ethtool -N rx-flow-hash udp4 sdfn` adds the ports.
std::uint32_t rss_hash_2tuple(const RssKey& key, const FlowTuple& flow);

// The RSS indirection table (RETA, i40e's HLUT, ice's LUT): the hash's low bits pick an entry,
// the entry names the Rx queue.
class IndirectionTable {
 public:
  // Sizes seen in drivers: ixgbe 128 (X550: 512), i40e 512, ice PF 2048. The bound is twice the
  // largest of those, so a typo in a scenario is an error rather than a huge table.
  static constexpr std::uint32_t kMaxEntries = 4096;

  // An error naming nic.rss-table or nic.queues unless `entries` is a power of two in
  // 1..kMaxEntries (the hardware indexes by the hash's low bits) and `queues` is at least 1.
  // More queues than entries is allowed: the table then names queues 0..entries-1 only, and the
  // rest receive frames only through flow rules.
  static std::optional<Error> validate(std::uint32_t entries, std::uint32_t queues);

  // The default table, ethtool_rxfh_indir_default: entry i names queue i % queues (i40e's
  // i40e_fill_rss_lut and ixgbe's ixgbe_setup_reta fill the same round robin).
  // Precondition: validate(entries, queues) found nothing (asserted); use create() at the edge.
  IndirectionTable(std::uint32_t entries, std::uint32_t queues);

  // Validates, then constructs.
  static Expected<IndirectionTable> create(std::uint32_t entries, std::uint32_t queues);

  // The queue of a frame with this hash: the entry at the hash's low log2(entries) bits.
  std::uint32_t queue_of(std::uint32_t hash) const { return table_[hash & index_mask_]; }

  // `ethtool -X`: entry `index` names `queue` from now on.
  // Precondition: index < entries() and queue < queues() (asserted; ethtool_set_rxfh rejects a
  // queue beyond the device's rings with EINVAL; a scenario's table must be checked on loading).
  void set(std::uint32_t index, std::uint32_t queue) {
    assert(index < entries() && queue < queues_);
    table_[index] = queue;
  }

  // The queue entry `index` names (ethtool -x). Precondition: index < entries().
  std::uint32_t entry(std::uint32_t index) const { return table_[index]; }
  std::uint32_t entries() const { return index_mask_ + 1; }
  std::uint32_t queues() const { return queues_; }

 private:
  std::vector<std::uint32_t> table_;  // entry -> Rx queue
  std::uint32_t index_mask_;          // entries - 1: the hash bits that pick an entry
  std::uint32_t queues_;              // Rx queues the device has (nic.queues)
};

// Flows a traffic generator can number: every host address of RFC 2544's benchmark range
// 198.18.0.0/15 except the destination's.
inline constexpr std::uint32_t kMaxBenchmarkFlows = 131'069;

// The 4-tuple of a generator's flow `index` (0..count-1), as a load generator would spread them:
//   - destination 198.19.0.1:11111, one server (sockperf's default port); the /15 is RFC 2544's
//     (RFC 5735) range for benchmarks, so no flow looks like a real network;
//   - source address 198.18.0.1 + index: a different address per flow, so the 2-tuple hash that
//     ixgbe uses for UDP spreads flows as well as the 4-tuple hash. The /15's first and last
//     address (network and broadcast) are not used, nor 198.19.0.1 itself: flows from 65536 on
//     skip it, so no flow is sent from the server to itself;
//   - source port 1024 + index % 64512: the unprivileged ports, so the 4-tuple differs in its
//     ports too, as connections from one client would.
// Precondition: index < kMaxBenchmarkFlows (asserted).
FlowTuple benchmark_flow(std::uint32_t index);

}  // namespace irqmod::sim
