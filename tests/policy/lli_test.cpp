// Unit tests for low-latency interrupts: each cause, the LLI interval, the counters, the
// register encodings, every rejection, and seed 004's storm with and without its fix.
#include "irqmod/policy/lli.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

namespace irqmod::lli {
namespace {

Config must(const Settings& settings) {
  const Expected<Config> config = make_config(settings);
  if (!config) {
    ADD_FAILURE() << config.error().what();
    return Config{};
  }
  return *config;
}

Settings with_filters(std::span<const Matcher> filters, std::uint32_t ring_threshold = 0) {
  Settings s;
  s.ring_threshold = ring_threshold;
  s.filters = filters;
  return s;
}

PacketInfo tcp(std::uint16_t port, std::uint32_t length = 1000, bool push = false) {
  PacketInfo p;
  p.length = length;
  p.l4 = L4::tcp;
  p.dst_port = port;
  p.tcp_push = push;
  return p;
}

PacketInfo udp(std::uint16_t port) {
  PacketInfo p = tcp(port);
  p.l4 = L4::udp;
  return p;
}

constexpr std::uint32_t kPlenty = 512;  // free descriptors well above any threshold

std::string error_key(const Settings& settings) {
  const Expected<Config> config = make_config(settings);
  return config ? std::string("(accepted)") : config.error().key;
}

// ---- the ring-depletion cause ----------------------------------------------------------------

TEST(lli, ring_below_the_threshold_causes_an_lli) {
  const Config config = must(Settings{});  // 64, seed 004's default
  EXPECT_EQ(classify(config, 63, PacketInfo{}), Cause::ring_low);
  EXPECT_EQ(classify(config, 0, PacketInfo{}), Cause::ring_low);
  EXPECT_EQ(classify(config, 64, PacketInfo{}), std::nullopt);  // "below", not at
}

TEST(lli, threshold_zero_turns_the_ring_cause_off) {
  Settings s;
  s.ring_threshold = 0;
  const Config config = must(s);
  EXPECT_EQ(classify(config, 0, PacketInfo{}), std::nullopt);
  EXPECT_EQ(config.srrctl_rdmts_bits(), 0U);
}

// ---- filters ---------------------------------------------------------------------------------

TEST(lli, port_filter_matches_the_destination_port_of_its_protocol) {
  const std::array filters = {Matcher::port(PortProtocol::tcp, 11111)};
  const Config config = must(with_filters(filters));
  EXPECT_EQ(classify(config, kPlenty, tcp(11111)), Cause::port);
  EXPECT_EQ(classify(config, kPlenty, tcp(11112)), std::nullopt);
  EXPECT_EQ(classify(config, kPlenty, udp(11111)), std::nullopt);

  const std::array either = {Matcher::port(PortProtocol::tcp_or_udp, 53)};
  const Config both = must(with_filters(either));
  EXPECT_EQ(classify(both, kPlenty, tcp(53)), Cause::port);
  EXPECT_EQ(classify(both, kPlenty, udp(53)), Cause::port);
  PacketInfo other = udp(53);
  other.l4 = L4::other;
  EXPECT_EQ(classify(both, kPlenty, other), std::nullopt);

  const std::array udp_only = {Matcher::port(PortProtocol::udp, 53)};
  const Config u = must(with_filters(udp_only));
  EXPECT_EQ(classify(u, kPlenty, udp(53)), Cause::port);
  EXPECT_EQ(classify(u, kPlenty, tcp(53)), std::nullopt);
}

TEST(lli, push_filter_matches_tcp_segments_with_psh) {
  const std::array filters = {Matcher::tcp_push()};
  const Config config = must(with_filters(filters));
  EXPECT_EQ(classify(config, kPlenty, tcp(80, 1000, true)), Cause::tcp_push);
  EXPECT_EQ(classify(config, kPlenty, tcp(80, 1000, false)), std::nullopt);
  PacketInfo not_tcp = udp(80);
  not_tcp.tcp_push = true;  // meaningless outside TCP
  EXPECT_EQ(classify(config, kPlenty, not_tcp), std::nullopt);
}

TEST(lli, size_filter_matches_frames_shorter_than_the_size) {
  const std::array filters = {Matcher::size_below(128)};
  const Config config = must(with_filters(filters));
  EXPECT_EQ(classify(config, kPlenty, tcp(80, 127)), Cause::size);
  EXPECT_EQ(classify(config, kPlenty, tcp(80, 128)), std::nullopt);
}

TEST(lli, vlan_priority_filter_matches_tagged_frames_at_or_above_the_threshold) {
  const std::array filters = {Matcher::vlan_priority_at_least(5)};
  const Config config = must(with_filters(filters));
  PacketInfo p = tcp(80);
  p.vlan_tagged = true;
  p.vlan_priority = 5;
  EXPECT_EQ(classify(config, kPlenty, p), Cause::vlan_priority);
  p.vlan_priority = 7;
  EXPECT_EQ(classify(config, kPlenty, p), Cause::vlan_priority);
  p.vlan_priority = 4;
  EXPECT_EQ(classify(config, kPlenty, p), std::nullopt);
  p.vlan_tagged = false;
  p.vlan_priority = 7;
  EXPECT_EQ(classify(config, kPlenty, p), std::nullopt);
}

TEST(lli, ethertype_filter_matches_the_ethertype) {
  const std::array filters = {Matcher::ethertype(0x88F7)};  // PTP
  const Config config = must(with_filters(filters));
  PacketInfo p;
  p.ethertype = 0x88F7;
  EXPECT_EQ(classify(config, kPlenty, p), Cause::ethertype);
  p.ethertype = 0x0800;
  EXPECT_EQ(classify(config, kPlenty, p), std::nullopt);
}

TEST(lli, ring_cause_comes_first_then_filters_in_order) {
  const std::array filters = {Matcher::size_below(100), Matcher::port(PortProtocol::tcp, 80)};
  const Config config = must(with_filters(filters, 64));
  EXPECT_EQ(classify(config, kPlenty, tcp(80, 60)), Cause::size);
  EXPECT_EQ(classify(config, kPlenty, tcp(80, 1000)), Cause::port);
  EXPECT_EQ(classify(config, 10, tcp(80, 60)), Cause::ring_low);
}

TEST(lli, holds_eight_filters) {
  std::array<Matcher, kMaxMatchers> filters{};
  for (std::size_t i = 0; i < filters.size(); ++i)
    filters[i] = Matcher::port(PortProtocol::tcp, static_cast<std::uint16_t>(1000 + i));
  const Config config = must(with_filters(filters));
  EXPECT_EQ(config.filters().size(), 8U);
  EXPECT_EQ(classify(config, kPlenty, tcp(1007)), Cause::port);
  EXPECT_EQ(classify(config, kPlenty, tcp(1008)), std::nullopt);
}

// ---- the LLI interval ------------------------------------------------------------------------

TEST(lli, a_second_lli_within_60_us_is_suppressed) {
  LowLatencyInterrupts lli(must(Settings{}));
  EXPECT_EQ(lli.next_allowed(), Instant::min());
  EXPECT_TRUE(lli.on_rx(at_ns(100'000), 10, PacketInfo{}));
  EXPECT_EQ(lli.next_allowed(), at_ns(160'000));
  EXPECT_FALSE(lli.on_rx(at_ns(159'999), 10, PacketInfo{}));
  EXPECT_TRUE(lli.on_rx(at_ns(160'000), 10, PacketInfo{}));
  EXPECT_EQ(lli.counters().fired, 2U);
  EXPECT_EQ(lli.counters().suppressed, 1U);
}

TEST(lli, a_suppressed_cause_does_not_move_the_interval) {
  LowLatencyInterrupts lli(must(Settings{}));
  EXPECT_TRUE(lli.on_rx(at_ns(0), 10, PacketInfo{}));
  EXPECT_FALSE(lli.on_rx(at_ns(30'000), 10, PacketInfo{}));
  EXPECT_EQ(lli.next_allowed(), at_ns(60'000));
}

TEST(lli, without_moderation_every_cause_fires) {
  Settings s;
  s.interval = Duration::zero();
  LowLatencyInterrupts lli(must(s));
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(lli.on_rx(at_ns(i), 10, PacketInfo{})) << i;
  EXPECT_EQ(lli.counters().suppressed, 0U);
}

TEST(lli, a_packet_without_a_cause_counts_only_as_a_packet) {
  LowLatencyInterrupts lli(must(Settings{}));
  EXPECT_FALSE(lli.on_rx(at_ns(0), kPlenty, tcp(80)));
  EXPECT_EQ(lli.counters().packets, 1U);
  EXPECT_EQ(lli.counters().fired, 0U);
  EXPECT_EQ(lli.counters().suppressed, 0U);
  EXPECT_EQ(lli.next_allowed(), Instant::min());
}

TEST(lli, counts_fired_and_suppressed_by_cause) {
  const std::array filters = {Matcher::tcp_push()};
  LowLatencyInterrupts lli(must(with_filters(filters, 64)));
  EXPECT_TRUE(lli.on_rx(at_ns(0), 10, tcp(80)));                       // ring_low fires
  EXPECT_FALSE(lli.on_rx(at_ns(1'000), kPlenty, tcp(80, 100, true)));  // push, suppressed
  EXPECT_TRUE(lli.on_rx(at_ns(60'000), kPlenty, tcp(80, 100, true)));  // push fires
  EXPECT_FALSE(lli.on_rx(at_ns(61'000), 10, tcp(80)));                 // ring_low, suppressed
  const Counters& c = lli.counters();
  EXPECT_EQ(c.fired_by[static_cast<std::size_t>(Cause::ring_low)], 1U);
  EXPECT_EQ(c.fired_by[static_cast<std::size_t>(Cause::tcp_push)], 1U);
  EXPECT_EQ(c.suppressed_by[static_cast<std::size_t>(Cause::ring_low)], 1U);
  EXPECT_EQ(c.suppressed_by[static_cast<std::size_t>(Cause::tcp_push)], 1U);
  EXPECT_EQ(c.fired, 2U);
  EXPECT_EQ(c.suppressed, 2U);
  EXPECT_EQ(to_string(Cause::tcp_push), "tcp_push");
}

// ---- seed 004: the storm ---------------------------------------------------------------------

// The ring never recovers above 64 free descriptors and a packet arrives every microsecond, so
// every packet is an LLI cause. After the first LLI, exactly one fires every 60 us: 16 666 in
// the following second (seed 004: "16 666 intr/s ... a precise number you'd see").
TEST(lli, a_ring_stuck_below_the_threshold_fires_at_exactly_the_60_us_cap) {
  LowLatencyInterrupts lli(must(Settings{}));
  ASSERT_TRUE(lli.on_rx(at_ns(0), 10, PacketInfo{}));
  Instant last = at_ns(0);
  std::uint64_t in_second = 0;
  bool gaps_exact = true;
  for (std::int64_t us = 1; us <= 1'000'000; ++us) {
    const Instant now = at_ns(us * 1000);
    if (lli.on_rx(now, 10, PacketInfo{})) {
      gaps_exact = gaps_exact && now - last == microseconds(60);
      last = now;
      ++in_second;
    }
  }
  EXPECT_EQ(in_second, 16666U);
  EXPECT_TRUE(gaps_exact);
  const Counters& c = lli.counters();
  EXPECT_EQ(c.fired, 16667U);
  EXPECT_EQ(c.suppressed, 1'000'001U - 16667U);
  EXPECT_EQ(c.fired_by[static_cast<std::size_t>(Cause::ring_low)], c.fired);
}

// Before moderation, LLIs tracked the packet rate: seed 004 saw 30-50k/s. One packet every
// 25 us is 40 000 a second.
TEST(lli, an_unmoderated_storm_tracks_the_packet_rate) {
  Settings s;
  s.interval = Duration::zero();
  LowLatencyInterrupts lli(must(s));
  for (std::int64_t us = 25; us <= 1'000'000; us += 25)
    lli.on_rx(at_ns(us * 1000), 10, {});
  EXPECT_EQ(lli.counters().fired, 40'000U);
}

// Seed 004's fix: RDMTS = 0. The same starved ring raises no LLI at all.
TEST(lli, threshold_zero_ends_the_storm) {
  Settings s;
  s.ring_threshold = 0;
  LowLatencyInterrupts lli(must(s));
  for (std::int64_t us = 0; us <= 1'000'000; ++us)
    lli.on_rx(at_ns(us * 1000), 10, {});
  EXPECT_EQ(lli.counters().packets, 1'000'001U);
  EXPECT_EQ(lli.counters().fired, 0U);
  EXPECT_EQ(lli.counters().suppressed, 0U);
}

// ---- register encodings ----------------------------------------------------------------------

TEST(lli, encodes_rdmts_in_units_of_64_descriptors) {
  EXPECT_EQ(must(Settings{}).srrctl_rdmts_bits(), 0x00400000U);
  Settings s;
  s.ring_threshold = 128;
  EXPECT_EQ(must(s).srrctl_rdmts_bits(), 0x00800000U);
  s.ring_threshold = kMaxRingThreshold;
  EXPECT_EQ(must(s).srrctl_rdmts_bits(), kSrrctlRdmtsMask);
}

TEST(lli, encodes_the_ll_interval_in_4_us_units_and_sets_lli_mod_when_moderated) {
  const Config max = must(Settings{});
  EXPECT_EQ(max.gpie_ll_interval_bits(), 0xFU << 7);  // "0xf << IXGBE_GPIE_LLI_DELAY_SHIFT"
  EXPECT_EQ(max.eitr_lli_bits(), 0x8000U);            // IXGBE_EITR_LLI_MOD
  Settings s;
  s.interval = microseconds(40);
  EXPECT_EQ(must(s).gpie_ll_interval_bits(), 10U << 7);
  s.interval = Duration::zero();
  EXPECT_EQ(must(s).gpie_ll_interval_bits(), 0U);
  EXPECT_EQ(must(s).eitr_lli_bits(), 0U);
}

// ---- rejections ------------------------------------------------------------------------------

TEST(lli, rejects_a_ring_threshold_that_is_not_a_multiple_of_64) {
  Settings s;
  s.ring_threshold = 100;
  EXPECT_EQ(error_key(s), "ring-threshold");
}

TEST(lli, rejects_a_ring_threshold_above_448) {
  Settings s;
  s.ring_threshold = 512;
  const Expected<Config> c = make_config(s);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().key, "ring-threshold");
  EXPECT_NE(c.error().message.find("0 to 448"), std::string::npos);
}

TEST(lli, rejects_an_interval_that_is_not_a_multiple_of_4_us) {
  Settings s;
  s.interval = microseconds(10);
  EXPECT_EQ(error_key(s), "ll-interval");
  s.interval = microseconds(4) + nanoseconds(1);
  EXPECT_EQ(error_key(s), "ll-interval");
}

TEST(lli, rejects_an_interval_above_60_us_or_below_zero) {
  Settings s;
  s.interval = microseconds(64);
  EXPECT_EQ(error_key(s), "ll-interval");
  s.interval = microseconds(-4);
  EXPECT_EQ(error_key(s), "ll-interval");
}

TEST(lli, rejects_more_than_eight_filters) {
  std::array<Matcher, kMaxMatchers + 1> filters{};
  filters.fill(Matcher::tcp_push());
  EXPECT_EQ(error_key(with_filters(filters)), "filters");
}

TEST(lli, rejects_ring_low_as_a_filter) {
  const std::array filters = {Matcher{Cause::ring_low, PortProtocol::tcp, 64}};
  EXPECT_EQ(error_key(with_filters(filters)), "filters");
}

TEST(lli, rejects_port_zero) {
  const std::array filters = {Matcher::tcp_push(), Matcher::port(PortProtocol::tcp, 0)};
  const Expected<Config> c = make_config(with_filters(filters));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().key, "LLIPort");
  EXPECT_NE(c.error().message.find("filter 2"), std::string::npos);
}

TEST(lli, rejects_sizes_outside_1_to_1500) {
  const std::array zero = {Matcher::size_below(0)};
  EXPECT_EQ(error_key(with_filters(zero)), "LLISize");
  const std::array big = {Matcher::size_below(1501)};
  EXPECT_EQ(error_key(with_filters(big)), "LLISize");
  const std::array ok = {Matcher::size_below(1500)};
  EXPECT_EQ(error_key(with_filters(ok)), "(accepted)");
}

TEST(lli, rejects_vlan_priorities_outside_1_to_7) {
  const std::array zero = {Matcher::vlan_priority_at_least(0)};
  EXPECT_EQ(error_key(with_filters(zero)), "LLIVLANP");
  const std::array big = {Matcher::vlan_priority_at_least(8)};
  EXPECT_EQ(error_key(with_filters(big)), "LLIVLANP");
}

TEST(lli, rejects_ethertypes_outside_1_to_0x8fff) {
  const std::array zero = {Matcher::ethertype(0)};
  EXPECT_EQ(error_key(with_filters(zero)), "LLIEType");
  const std::array big = {Matcher::ethertype(0x9000)};
  EXPECT_EQ(error_key(with_filters(big)), "LLIEType");
}

// ---- held causes (Settings::hold) -------------------------------------------------------------

Settings holding() {
  Settings s;
  s.hold = true;
  return s;
}

TEST(lli, hold_reaches_the_config_and_is_off_by_default) {
  EXPECT_FALSE(Settings{}.hold);
  EXPECT_FALSE(must(Settings{}).hold);
  EXPECT_TRUE(must(holding()).hold);
}

TEST(lli, with_hold_a_cause_within_the_interval_fires_once_at_the_intervals_end) {
  LowLatencyInterrupts lli(must(holding()));
  EXPECT_FALSE(lli.held());
  EXPECT_FALSE(lli.release(at_ns(0)));  // nothing to release
  EXPECT_TRUE(lli.on_rx(at_ns(100'000), 10, PacketInfo{}));
  EXPECT_FALSE(lli.held());  // it fired: nothing held
  EXPECT_FALSE(lli.on_rx(at_ns(110'000), 10, PacketInfo{}));
  EXPECT_TRUE(lli.held());
  EXPECT_FALSE(lli.on_rx(at_ns(120'000), 10, PacketInfo{}));  // a second one: still one held
  EXPECT_FALSE(lli.release(at_ns(159'999)));
  EXPECT_TRUE(lli.held());
  EXPECT_EQ(lli.counters().fired, 1U);
  EXPECT_TRUE(lli.release(at_ns(160'000)));  // next_allowed
  EXPECT_FALSE(lli.held());
  EXPECT_FALSE(lli.release(at_ns(160'000)));  // once
  EXPECT_FALSE(lli.release(at_ns(500'000)));
  EXPECT_EQ(lli.next_allowed(), at_ns(220'000));  // the release restarts the interval
  const Counters& c = lli.counters();
  EXPECT_EQ(c.fired, 2U);
  EXPECT_EQ(c.suppressed, 2U);
  EXPECT_EQ(c.fired_by[static_cast<std::size_t>(Cause::ring_low)], 2U);
}

TEST(lli, without_hold_a_cause_within_the_interval_is_dropped) {
  LowLatencyInterrupts lli(must(Settings{}));
  EXPECT_TRUE(lli.on_rx(at_ns(100'000), 10, PacketInfo{}));
  EXPECT_FALSE(lli.on_rx(at_ns(110'000), 10, PacketInfo{}));
  EXPECT_FALSE(lli.held());
  EXPECT_FALSE(lli.release(at_ns(160'000)));
  EXPECT_FALSE(lli.release(at_ns(1'000'000)));
  EXPECT_EQ(lli.counters().fired, 1U);
  EXPECT_EQ(lli.counters().suppressed, 1U);
  EXPECT_EQ(lli.next_allowed(), at_ns(160'000));
}

TEST(lli, a_held_cause_keeps_its_kind_and_a_packet_without_a_cause_does_not_release_it) {
  const std::array filters = {Matcher::tcp_push()};
  Settings s = with_filters(filters, 64);
  s.hold = true;
  LowLatencyInterrupts lli(must(s));
  EXPECT_TRUE(lli.on_rx(at_ns(0), 10, tcp(80)));                       // ring_low fires
  EXPECT_FALSE(lli.on_rx(at_ns(1'000), kPlenty, tcp(80, 100, true)));  // push, held
  EXPECT_FALSE(lli.on_rx(at_ns(2'000), 10, tcp(80)));                  // ring_low, not held
  EXPECT_FALSE(lli.on_rx(at_ns(70'000), kPlenty, tcp(80)));            // no cause
  EXPECT_TRUE(lli.held());
  EXPECT_TRUE(lli.release(at_ns(70'000)));
  const Counters& c = lli.counters();
  EXPECT_EQ(c.fired_by[static_cast<std::size_t>(Cause::ring_low)], 1U);
  EXPECT_EQ(c.fired_by[static_cast<std::size_t>(Cause::tcp_push)], 1U);
  EXPECT_EQ(c.fired, 2U);
}

TEST(lli, a_cause_after_the_interval_fires_in_place_of_the_held_one) {
  LowLatencyInterrupts lli(must(holding()));
  EXPECT_TRUE(lli.on_rx(at_ns(0), 10, PacketInfo{}));
  EXPECT_FALSE(lli.on_rx(at_ns(30'000), 10, PacketInfo{}));
  ASSERT_TRUE(lli.held());
  EXPECT_TRUE(lli.on_rx(at_ns(65'000), 10, PacketInfo{}));  // no release came in between
  EXPECT_FALSE(lli.held());
  EXPECT_FALSE(lli.release(at_ns(200'000)));
  EXPECT_EQ(lli.counters().fired, 2U);
}

TEST(lli, with_hold_causes_in_bursts_fire_every_interval_and_without_it_once_a_burst) {
  // A burst of causes every 200 us, each lasting 10 us, the interval 60 us: the first cause of a
  // burst fires, the rest are held (or dropped). Released at the interval's end, the held one
  // fires 60 us after each burst began.
  LowLatencyInterrupts with(must(holding()));
  LowLatencyInterrupts without(must(Settings{}));
  for (std::int64_t burst = 0; burst < 100; ++burst) {
    for (std::int64_t us = 0; us < 10; ++us) {
      const Instant t = at_ns((burst * 200 + us) * 1'000);
      with.on_rx(t, 10, PacketInfo{});
      without.on_rx(t, 10, PacketInfo{});
    }
    for (std::int64_t us = 10; us < 200; ++us) {
      with.release(at_ns((burst * 200 + us) * 1'000));
      without.release(at_ns((burst * 200 + us) * 1'000));
    }
  }
  EXPECT_EQ(with.counters().fired, 200U);
  EXPECT_EQ(without.counters().fired, 100U);
  EXPECT_EQ(with.counters().suppressed, without.counters().suppressed);
}

TEST(lli, with_hold_and_no_interval_nothing_is_ever_held) {
  Settings s = holding();
  s.interval = Duration::zero();
  LowLatencyInterrupts lli(must(s));
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(lli.on_rx(at_ns(i), 10, PacketInfo{})) << i;
    EXPECT_FALSE(lli.held()) << i;
  }
}

}  // namespace
}  // namespace irqmod::lli
