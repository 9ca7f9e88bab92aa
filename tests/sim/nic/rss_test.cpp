// Receive-side scaling: the Toeplitz hash against Microsoft's verification vectors, the default
// indirection table, seeded keys, and how benchmark flows spread over queues.
#include "sim/nic/rss.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "irqmod/sim/random.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint32_t ipv4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return a << 24 | b << 16 | c << 8 | d;
}

struct Vector {
  FlowTuple flow;
  std::uint32_t hash_2tuple;  // "IPv4 only"
  std::uint32_t hash_4tuple;  // "IPv4 with TCP"
};

// Microsoft, "Verifying the RSS Hash Calculation", IPv4 table (the same values are in DPDK's
// app/test/test_thash.c). The table lists destination first; FlowTuple is source first.
constexpr std::array<Vector, 5> kMicrosoftVectors = {{
    {{ipv4(66, 9, 149, 187), ipv4(161, 142, 100, 80), 2794, 1766}, 0x323e8fc2, 0x51ccc178},
    {{ipv4(199, 92, 111, 2), ipv4(65, 69, 140, 83), 14230, 4739}, 0xd718262a, 0xc626b0ea},
    {{ipv4(24, 19, 198, 95), ipv4(12, 22, 207, 184), 12898, 38024}, 0xd2d0a5de, 0x5c2b394a},
    {{ipv4(38, 27, 205, 30), ipv4(209, 142, 163, 6), 48228, 2217}, 0x82989176, 0xafc7327f},
    {{ipv4(153, 39, 163, 191), ipv4(202, 188, 127, 2), 44251, 1303}, 0x5d1809c5, 0x10e828a2},
}};

TEST(rss_hash, matches_microsofts_ipv4_with_tcp_vectors) {
  const RssKey key = microsoft_rss_key();
  for (const Vector& v : kMicrosoftVectors)
    EXPECT_EQ(rss_hash_4tuple(key, v.flow), v.hash_4tuple) << std::hex << v.hash_4tuple;
}

TEST(rss_hash, matches_microsofts_ipv4_only_vectors) {
  const RssKey key = microsoft_rss_key();
  for (const Vector& v : kMicrosoftVectors)
    EXPECT_EQ(rss_hash_2tuple(key, v.flow), v.hash_2tuple) << std::hex << v.hash_2tuple;
}

TEST(rss_hash, of_an_all_zero_input_is_zero_and_of_one_top_bit_is_the_keys_first_word) {
  const RssKey key = microsoft_rss_key();
  std::array<std::uint8_t, 12> input{};
  EXPECT_EQ(toeplitz_hash(key, input), 0U);
  input[0] = 0x80;
  EXPECT_EQ(toeplitz_hash(key, input), 0x6d5a56daU);
  input[0] = 0x01;  // the key shifted left by 7 bits: 0x6d5a56da25 << 7, top 32 bits
  EXPECT_EQ(toeplitz_hash(key, input), 0xad2b6d12U);
}

TEST(rss_hash, reads_the_key_to_its_last_byte_for_the_longest_input) {
  RssKey key{};
  // Key bit 414 (of 0..415): the last input bit's 32-bit window is key bits 383..414.
  key[kRssKeyBytes - 1] = 0x02;
  std::array<std::uint8_t, kMaxToeplitzInputBytes> input{};
  input.back() = 0x01;
  EXPECT_EQ(toeplitz_hash(key, input), 0x1U);
}

TEST(microsoft_rss_key, is_the_40_byte_key_padded_with_zeros) {
  const RssKey key = microsoft_rss_key();
  EXPECT_EQ(key[0], 0x6d);
  EXPECT_EQ(key[39], 0xfa);
  for (std::size_t i = 40; i < kRssKeyBytes; ++i)
    EXPECT_EQ(key[i], 0) << i;
}

TEST(random_rss_key, is_reproducible_from_a_seed_and_differs_between_seeds) {
  Rng first(42);
  Rng again(42);
  Rng other(43);
  const RssKey key = random_rss_key(first);
  EXPECT_EQ(key, random_rss_key(again));
  EXPECT_NE(key, random_rss_key(other));
  EXPECT_NE(key, random_rss_key(first));  // the next key of the same stream
}

TEST(random_rss_key, takes_each_draw_least_significant_byte_first) {
  Rng reference(7);
  const std::uint64_t word = reference.next();
  Rng rng(7);
  const RssKey key = random_rss_key(rng);
  EXPECT_EQ(key[0], static_cast<std::uint8_t>(word));
  EXPECT_EQ(key[7], static_cast<std::uint8_t>(word >> 56));
}

TEST(indirection_table, spreads_512_entries_round_robin_over_4_queues_128_each) {
  const IndirectionTable table(512, 4);
  std::array<int, 4> per_queue{};
  for (std::uint32_t i = 0; i < table.entries(); ++i) {
    EXPECT_EQ(table.entry(i), i % 4) << i;
    ++per_queue[table.entry(i)];
  }
  EXPECT_EQ(per_queue, (std::array<int, 4>{128, 128, 128, 128}));
}

TEST(indirection_table, picks_the_entry_by_the_hashs_low_bits) {
  IndirectionTable table(512, 4);
  table.set(0x1a5, 3);
  table.set(0x0a5, 2);
  // 0x1a5 is 421: entry 421 % 4 = 1 by default, now 3.
  EXPECT_EQ(table.queue_of(0x0000'01a5), 3U);
  EXPECT_EQ(table.queue_of(0xffff'fda5), 3U);  // differs only in bits 9 and up
  EXPECT_EQ(table.queue_of(0x0000'00a5), 2U);  // bit 8 is an index bit
  EXPECT_EQ(table.queue_of(0x8000'0200), table.entry(0));
}

TEST(indirection_table, names_only_the_first_entries_queues_when_queues_outnumber_entries) {
  const IndirectionTable table(4, 16);
  EXPECT_EQ(table.entry(3), 3U);
  EXPECT_EQ(table.queues(), 16U);
}

TEST(indirection_table, rejects_sizes_that_are_not_a_power_of_two_up_to_4096) {
  for (std::uint32_t entries : {0U, 3U, 500U, 8192U}) {
    const Expected<IndirectionTable> table = IndirectionTable::create(entries, 4);
    ASSERT_FALSE(table.ok()) << entries;
    EXPECT_EQ(table.error().key, "nic.rss-table");
  }
  for (std::uint32_t entries : {1U, 128U, 512U, 2048U, 4096U})
    EXPECT_TRUE(IndirectionTable::create(entries, 4).ok()) << entries;
}

TEST(indirection_table, rejects_zero_queues) {
  const Expected<IndirectionTable> table = IndirectionTable::create(128, 0);
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().key, "nic.queues");
}

TEST(benchmark_flow, starts_at_198_18_0_1_port_1024_to_198_19_0_1_port_11111) {
  EXPECT_EQ(benchmark_flow(0), (FlowTuple{ipv4(198, 18, 0, 1), ipv4(198, 19, 0, 1), 1024, 11111}));
  EXPECT_EQ(benchmark_flow(1), (FlowTuple{ipv4(198, 18, 0, 2), ipv4(198, 19, 0, 1), 1025, 11111}));
}

TEST(benchmark_flow, wraps_its_port_and_never_uses_the_servers_address_or_leaves_the_range) {
  EXPECT_EQ(benchmark_flow(64511).source_port, 65535);
  EXPECT_EQ(benchmark_flow(64512).source_port, 1024);
  EXPECT_EQ(benchmark_flow(65534).source_address, ipv4(198, 18, 255, 255));
  EXPECT_EQ(benchmark_flow(65535).source_address, ipv4(198, 19, 0, 0));
  EXPECT_EQ(benchmark_flow(65536).source_address, ipv4(198, 19, 0, 2));  // 198.19.0.1 skipped
  EXPECT_EQ(benchmark_flow(kMaxBenchmarkFlows - 1).source_address, ipv4(198, 19, 255, 254));
}

// A statistical check with a fixed seed. A Toeplitz hash is linear over GF(2), so with most keys
// 1024 flows that count up in their address and port split almost evenly (seed 1: 256/255/256/257
// by 4-tuple, 257/256/255/256 by 2-tuple); about 1 key in 150 of seeds 0..9999 misses the bound,
// when the queue's two hash bits depend on too few of the bits that vary.
TEST(rss, spreads_1024_benchmark_flows_over_4_queues_within_a_quarter_of_even) {
  Rng rng(1);
  const RssKey key = random_rss_key(rng);
  const IndirectionTable table(512, 4);
  std::array<int, 4> by_4tuple{};
  std::array<int, 4> by_2tuple{};
  for (std::uint32_t i = 0; i < 1024; ++i) {
    ++by_4tuple[table.queue_of(rss_hash_4tuple(key, benchmark_flow(i)))];
    ++by_2tuple[table.queue_of(rss_hash_2tuple(key, benchmark_flow(i)))];
  }
  for (std::size_t q = 0; q < 4; ++q) {
    EXPECT_GE(by_4tuple[q], 192) << q;
    EXPECT_LE(by_4tuple[q], 320) << q;
    EXPECT_GE(by_2tuple[q], 192) << q;
    EXPECT_LE(by_2tuple[q], 320) << q;
  }
}

}  // namespace
}  // namespace irqmod::sim
