// Receive-side scaling. See rss.hpp.
#include "sim/nic/rss.hpp"

#include <bit>
#include <string>

namespace irqmod::sim {
namespace {

// Appends `value` in network byte order (most significant byte first).
template <typename Unsigned>
std::uint8_t* put_big_endian(std::uint8_t* out, Unsigned value) {
  for (int shift = 8 * static_cast<int>(sizeof(Unsigned)) - 8; shift >= 0; shift -= 8)
    *out++ = static_cast<std::uint8_t>(value >> shift);
  return out;
}

// RFC 2544 benchmark network 198.18.0.0/15 (RFC 5735 §3): 131072 addresses.
constexpr std::uint32_t kBenchmarkNetwork = 0xc612'0000;  // 198.18.0.0
constexpr std::uint32_t kBenchmarkServer = 0xc613'0001;   // 198.19.0.1
constexpr std::uint16_t kSockperfPort = 11111;            // sockperf's default --port
constexpr std::uint16_t kFirstUnprivilegedPort = 1024;    // below it only root may bind
constexpr std::uint32_t kUnprivilegedPorts = 65536 - kFirstUnprivilegedPort;

// 131072 addresses minus network, broadcast and the server's.
static_assert(kMaxBenchmarkFlows == (1U << 17) - 3);

}  // namespace

RssKey microsoft_rss_key() {
  // Microsoft, "Verifying the RSS Hash Calculation"; the bytes after the 40th stay zero.
  return RssKey{0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
                0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
                0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};
}

RssKey random_rss_key(Rng& rng) {
  RssKey key{};
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (i % 8 == 0) word = rng.next();
    key[i] = static_cast<std::uint8_t>(word >> (8 * (i % 8)));
  }
  return key;
}

std::uint32_t toeplitz_hash(const RssKey& key, std::span<const std::uint8_t> input) {
  assert(input.size() <= kMaxToeplitzInputBytes);
  // `window` holds the 64 key bits from bit 8 * byte on, its top bit first: at bit b of the
  // byte the key shifted by 8 * byte + b has its leftmost 32 bits at window bits 63-b .. 32-b.
  std::uint64_t window = 0;
  for (std::size_t i = 0; i < 8; ++i)
    window = (window << 8) | key[i];
  std::uint32_t hash = 0;
  for (std::size_t byte = 0; byte < input.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      if (input[byte] & (0x80U >> bit)) hash ^= static_cast<std::uint32_t>(window >> (32 - bit));
    }
    const std::size_t next_key_byte = byte + 8;
    window = (window << 8) | (next_key_byte < key.size() ? key[next_key_byte] : 0U);
  }
  return hash;
}

std::uint32_t rss_hash_4tuple(const RssKey& key, const FlowTuple& flow) {
  std::array<std::uint8_t, 12> input{};
  std::uint8_t* out = input.data();
  out = put_big_endian(out, flow.source_address);
  out = put_big_endian(out, flow.destination_address);
  out = put_big_endian(out, flow.source_port);
  put_big_endian(out, flow.destination_port);
  return toeplitz_hash(key, input);
}

std::uint32_t rss_hash_2tuple(const RssKey& key, const FlowTuple& flow) {
  std::array<std::uint8_t, 8> input{};
  put_big_endian(put_big_endian(input.data(), flow.source_address), flow.destination_address);
  return toeplitz_hash(key, input);
}

std::optional<Error> IndirectionTable::validate(std::uint32_t entries, std::uint32_t queues) {
  if (entries == 0 || entries > kMaxEntries || !std::has_single_bit(entries)) {
    return Error{"nic.rss-table",
                 std::to_string(entries) +
                     " entries is not allowed; a power of two from 1 to 4096 (the NIC indexes the "
                     "table by the hash's low bits; ixgbe has 128, i40e 512, ice 2048)"};
  }
  if (queues == 0) return Error{"nic.queues", "0 queues is not allowed; at least 1"};
  return std::nullopt;
}

IndirectionTable::IndirectionTable(std::uint32_t entries, std::uint32_t queues)
    : table_(entries), index_mask_(entries - 1), queues_(queues) {
  assert(!validate(entries, queues) && "use IndirectionTable::create");
  for (std::uint32_t i = 0; i < entries; ++i)
    table_[i] = i % queues;  // ethtool_rxfh_indir_default
}

Expected<IndirectionTable> IndirectionTable::create(std::uint32_t entries, std::uint32_t queues) {
  if (std::optional<Error> error = validate(entries, queues)) return *error;
  return IndirectionTable(entries, queues);
}

FlowTuple benchmark_flow(std::uint32_t index) {
  assert(index < kMaxBenchmarkFlows);
  std::uint32_t source = kBenchmarkNetwork + 1 + index;
  if (source >= kBenchmarkServer) ++source;  // never the server's own address
  return FlowTuple{
      .source_address = source,
      .destination_address = kBenchmarkServer,
      .source_port =
          static_cast<std::uint16_t>(kFirstUnprivilegedPort + index % kUnprivilegedPorts),
      .destination_port = kSockperfPort,
  };
}

}  // namespace irqmod::sim
