// Unit tests for static interrupt throttling: each family's register arithmetic against the
// values its driver programs, the limits, the errors, and the run-time throttle.
#include "irqmod/policy/itr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>

namespace irqmod::itr {

// gtest prints Encoding through this (found by argument-dependent lookup).
void PrintTo(const Encoding& e, std::ostream* os) {
  *os << e.device << " reg=0x" << std::hex << e.register_value << " write=0x" << e.write_value
      << std::dec << " interval=" << e.interval.count() << "ns rate=" << e.effective_rate << "/s";
}

namespace {

const Device& device(std::string_view name) {
  for (const Device& d : kDevices) {
    if (d.name == name) return d;
  }
  ADD_FAILURE() << "no device " << name;
  return kDevices[0];
}

Encoding must_rate(std::string_view name, std::uint32_t rate) {
  const Expected<Encoding> e = encode_rate(name, rate);
  if (!e) {
    ADD_FAILURE() << name << " rate " << rate << ": " << e.error().what();
    return Encoding{};
  }
  return *e;
}

Encoding must_usecs(std::string_view name, std::uint32_t usecs) {
  const Expected<Encoding> e = encode_usecs(name, usecs);
  if (!e) {
    ADD_FAILURE() << name << " usecs " << usecs << ": " << e.error().what();
    return Encoding{};
  }
  return *e;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::string range_text(const Range& r) {
  return std::to_string(r.min) + ".." + std::to_string(r.max);
}

// ---- compile time --------------------------------------------------------------------------

static_assert(decode(kDevices[1], 0x1F0).interval == microseconds(124));
static_assert(register_from_rate(kDevices[0], 8000) == 488);
static_assert([] {
  Throttle t(microseconds(2));
  t.fired(at_ns(0));
  return !t.may_fire(at_ns(1999)) && t.may_fire(at_ns(2000));
}());

// ---- 82599 / X540 --------------------------------------------------------------------------

TEST(itr, encodes_82599_at_8000_per_second_as_seed_004) {
  const Encoding e = must_rate("82599", kOpenbsdIntsPerSec);
  EXPECT_EQ(e.register_value, 496U);
  EXPECT_EQ(e.register_value, 0x1F0U);
  EXPECT_EQ(e.interval, microseconds(124));  // 62 counts of 2 us: truncation shortens 125 us
  EXPECT_NEAR(e.effective_rate, 8064.516, 0.001);
  // Linux ixgbe_write_eitr adds CNT_WDIS; OpenBSD's ixgbe_init also sets LLI_MOD (seed 004).
  EXPECT_EQ(e.write_value, 0x800001F0U);
  EXPECT_EQ(e.write_value | kIxgbeEitrLliMod, 0x800081F0U);
}

TEST(itr, linux_usecs_encoder_gives_82599_the_same_register_for_125_us) {
  const Encoding linux_125 = must_usecs("82599", 125);
  EXPECT_EQ(linux_125.register_value, eitr_82599_from_usecs_linux(125));
  EXPECT_EQ(linux_125.register_value, (125U << 2) & 0xFF8U);
  EXPECT_EQ(linux_125.register_value, 0x1F0U);
  EXPECT_EQ(linux_125, must_rate("82599", 8000));
  // The mask drops the odd microsecond: 125 and 124 program the same 124 us.
  EXPECT_EQ(must_usecs("82599", 124).register_value, linux_125.register_value);
  EXPECT_EQ(must_usecs("82599", 126).interval, microseconds(126));
}

TEST(itr, x540_uses_the_82599_layout) {
  EXPECT_EQ(must_rate("x540", 8000).register_value, must_rate("82599", 8000).register_value);
  EXPECT_EQ(must_usecs("x540", 60).write_value, must_usecs("82599", 60).write_value);
}

TEST(itr, encodes_the_seed_004_lli_cap_of_60_us_as_16666_per_second) {
  const Encoding e = must_usecs("82599", 60);
  EXPECT_EQ(e.register_value, 240U);
  EXPECT_EQ(e.interval, microseconds(60));
  EXPECT_EQ(static_cast<int>(e.effective_rate), 16666);
}

// ---- 82598 ---------------------------------------------------------------------------------

TEST(itr, encodes_82598_in_256ns_units_and_writes_both_halves) {
  const Encoding e = must_rate("82598", 8000);
  EXPECT_EQ(e.register_value, 488U);  // 1000000000 / (8000 * 256) = 488.28, truncated
  EXPECT_EQ(e.write_value, 0x01E801E8U);
  EXPECT_EQ(e.interval, nanoseconds(488LL * 256));
  EXPECT_NEAR(e.effective_rate, 8004.61, 0.01);  // 124.928 us
  // Old Linux ixgbe_set_coalesce: rx-usecs 125 -> 8000 ints/s -> the same register.
  EXPECT_EQ(must_usecs("82598", 125), e);
}

TEST(itr, openbsd_2012_82598_formula_programs_about_half_the_requested_rate) {
  // Seed 004's diff: (8000000 / IXGBE_INTS_PER_SEC) & 0xff8 on 82598.
  const std::uint32_t openbsd_2012 = (kOpenbsd2012Eitr82598Dividend / 8000) & 0xFF8;
  EXPECT_EQ(openbsd_2012, 1000U);
  const Encoding on_256ns_counter = decode(device("82598"), openbsd_2012);
  EXPECT_EQ(on_256ns_counter.interval, microseconds(256));
  EXPECT_NEAR(on_256ns_counter.effective_rate, 3906.25, 1e-9);
  // Today's OpenBSD dividend lands within 2 % of the request on the same counter.
  const Encoding today = decode(device("82598"), (kOpenbsdEitrDividend / 8000) & 0xFF8);
  EXPECT_NEAR(today.effective_rate, 8000.0, 0.02 * 8000.0);
}

// Round trip of a 256 ns family over every accepted rate: decoding the register gives the same
// encoding, re-encoding the decoded rate (rounded down) gives the same register, and the effective
// rate exceeds the request by less than one register step. Only the top register may decode to a
// rate above the driver's limit (e1000: 39 counts = 100160/s > MAX_ITR).
void expect_256ns_round_trips(const Device& d) {
  const std::uint32_t top = register_from_rate(d, d.rate.max);
  for (std::uint32_t rate = d.rate.min; rate <= d.rate.max; ++rate) {
    const Expected<Encoding> e = encode_rate(d, rate);
    ASSERT_TRUE(e) << rate;
    ASSERT_EQ(decode(d, e->write_value), *e) << rate;
    const double eff = e->effective_rate;
    ASSERT_GE(eff, static_cast<double>(rate)) << rate;
    const double next_step = 1e9 / static_cast<double>((e->register_value + 1) * 256);
    ASSERT_LT(eff - rate, eff - next_step) << rate;
    const auto again = static_cast<std::uint32_t>(std::floor(eff));
    const Expected<Encoding> re = encode_rate(d, again);
    if (d.rate.contains(again)) {
      ASSERT_TRUE(re) << rate;
      ASSERT_EQ(re->register_value, e->register_value) << rate;
    } else {
      ASSERT_EQ(e->register_value, top) << rate;
      ASSERT_FALSE(re) << rate;
      ASSERT_EQ(re.error().key, "rate") << rate;
    }
  }
}

TEST(itr, round_trips_82598_over_every_accepted_rate) {
  expect_256ns_round_trips(device("82598"));
}

TEST(itr, round_trips_e1000_over_every_accepted_rate) {
  expect_256ns_round_trips(device("e1000"));
  const Encoding e1000e = must_rate("e1000e", 20000);
  EXPECT_EQ(e1000e.device, "e1000e");
  EXPECT_EQ(e1000e.register_value, must_rate("e1000", 20000).register_value);
  EXPECT_EQ(e1000e.interval, must_rate("e1000", 20000).interval);
}

TEST(itr, e1000_uses_the_drivers_1000000000_over_rate_times_256) {
  const Encoding e = must_rate("e1000", 20000);
  EXPECT_EQ(e.register_value, 195U);  // 1000000000 / 5120000 = 195.3
  EXPECT_EQ(e.write_value, 195U);
  EXPECT_EQ(e.interval, nanoseconds(195LL * 256));
  // ethtool rx-usecs 125 -> adapter->itr = 8000 -> 488, two truncations.
  EXPECT_EQ(must_usecs("e1000", 125).register_value, 488U);
}

// ---- i40e / ice ----------------------------------------------------------------------------

TEST(itr, i40e_named_settings_decode_within_3_percent_of_their_names) {
  const Encoding k20 = must_usecs("i40e", kI40eItr20kUsecs);
  EXPECT_EQ(k20.register_value, 25U);
  EXPECT_NEAR(k20.effective_rate, 20000.0, 0.03 * 20000.0);
  const Encoding k8 = must_usecs("i40e", kI40eItr8kUsecs);
  EXPECT_EQ(k8.register_value, 61U);
  EXPECT_EQ(k8.interval, microseconds(122));
  EXPECT_NEAR(k8.effective_rate, 8000.0, 0.03 * 8000.0);
  // I40E_ITR_18K is 60 us: 16667/s, more than 3 % away from its name.
  const Encoding k18 = must_usecs("i40e", kI40eItr18kUsecs);
  EXPECT_EQ(k18.register_value, 30U);
  EXPECT_GT(std::abs(k18.effective_rate - 18000.0), 0.03 * 18000.0);
}

TEST(itr, ice_named_settings_decode_within_3_percent_of_their_names) {
  const Encoding k20 = must_usecs("ice", kIceItr20kUsecs);
  EXPECT_EQ(k20.register_value, 25U);
  EXPECT_NEAR(k20.effective_rate, 20000.0, 0.03 * 20000.0);
  const Encoding k8 = must_usecs("ice", kIceItr8kUsecs);
  EXPECT_EQ(k8.register_value, 62U);
  EXPECT_NEAR(k8.effective_rate, 8000.0, 0.03 * 8000.0);
  EXPECT_NE(kIceItr8kUsecs, kI40eItr8kUsecs);
}

TEST(itr, i40e_rounds_odd_usecs_up_and_ice_rejects_them) {
  EXPECT_EQ(i40e_itr_reg_align(51), 52U);
  EXPECT_EQ(must_usecs("i40e", 51).interval, microseconds(52));
  EXPECT_EQ(must_usecs("i40e", 1).interval, microseconds(2));
  const Expected<Encoding> ice = encode_usecs("ice", 51);
  ASSERT_FALSE(ice);
  EXPECT_EQ(ice.error().key, "usecs");
  EXPECT_TRUE(contains(ice.error().message, "even")) << ice.error().message;
}

TEST(itr, rate_path_aligns_odd_usecs_the_way_each_driver_does) {
  // 1000000 / 9000 = 111 us: i40e rounds up to 112, ice masks down to 110.
  EXPECT_EQ(must_rate("i40e", 9000).interval, microseconds(112));
  EXPECT_EQ(must_rate("ice", 9000).interval, microseconds(110));
  EXPECT_EQ(must_rate("i40e", 20000), must_usecs("i40e", 50));
}

// ---- limits --------------------------------------------------------------------------------

TEST(itr, each_family_encodes_its_longest_interval_and_rejects_one_microsecond_more) {
  struct Case {
    std::string_view name;
    std::uint32_t max_usecs;
    std::uint32_t register_value;
    Duration interval;
  };
  const Case cases[] = {
      {"82598", 1046, 4086, nanoseconds(4086LL * 256)},  // 1000000 / 1046 = 956 ints/s
      {"82599", 1022, 0xFF8, microseconds(1022)},        // IXGBE_MAX_EITR >> 2
      {"x540", 1022, 0xFF8, microseconds(1022)},
      {"i40e", 8160, 0xFF0, microseconds(8160)},            // I40E_MAX_ITR
      {"ice", 8160, 0xFF0, microseconds(8160)},             // ICE_ITR_MAX
      {"e1000", 10000, 39062, nanoseconds(39062LL * 256)},  // E1000_MAX_ITR_USECS
      {"e1000e", 10000, 39062, nanoseconds(39062LL * 256)},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(device(c.name).usecs.max, c.max_usecs) << c.name;
    const Encoding e = must_usecs(c.name, c.max_usecs);
    EXPECT_EQ(e.register_value, c.register_value) << c.name;
    EXPECT_EQ(e.interval, c.interval) << c.name;
    const std::uint32_t past = c.max_usecs + (c.name == "ice" ? 2 : 1);
    const Expected<Encoding> over = encode_usecs(c.name, past);
    ASSERT_FALSE(over) << c.name;
    EXPECT_EQ(over.error().key, "usecs") << c.name;
    EXPECT_TRUE(contains(over.error().message, range_text(device(c.name).usecs)))
        << over.error().message;
  }
}

TEST(itr, each_family_encodes_its_highest_rate_and_rejects_one_more) {
  struct Case {
    std::string_view name;
    std::uint32_t max_rate;
    std::uint32_t register_value;
  };
  const Case cases[] = {
      {"82598", 488281, 8},                           // IXGBE_MAX_INT_RATE -> IXGBE_MIN_EITR
      {"82599", 500000, 8},                           // 4000000 / 500000, one 2 us count
      {"x540", 500000, 8},    {"i40e", 500000, 1},    // I40E_MAX_INT_RATE -> 2 us
      {"ice", 500000, 1},     {"e1000", 100000, 39},  // MAX_ITR
      {"e1000e", 100000, 39},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(device(c.name).rate.max, c.max_rate) << c.name;
    EXPECT_EQ(must_rate(c.name, c.max_rate).register_value, c.register_value) << c.name;
    const Expected<Encoding> over = encode_rate(c.name, c.max_rate + 1);
    ASSERT_FALSE(over) << c.name;
    EXPECT_EQ(over.error().key, "rate") << c.name;
    EXPECT_TRUE(contains(over.error().message, range_text(device(c.name).rate)))
        << over.error().message;
  }
}

TEST(itr, rejects_rates_below_each_minimum) {
  for (const Device& d : kDevices) {
    EXPECT_TRUE(encode_rate(d, d.rate.min)) << d.name;
    const Expected<Encoding> under = encode_rate(d, d.rate.min - 1);
    ASSERT_FALSE(under) << d.name;
    EXPECT_EQ(under.error().key, "rate") << d.name;
  }
  // The boundary is where OpenBSD's & 0xff8 would wrap: 976 gives 4098 & 0xff8 = 0.
  EXPECT_EQ(eitr_82599_from_rate_openbsd(976), 0U);
  EXPECT_EQ(must_rate("82599", 977).register_value, 0xFF8U);
}

// ---- errors --------------------------------------------------------------------------------

TEST(itr, rate_zero_is_an_error_naming_rate_and_the_allowed_range) {
  for (const Device& d : kDevices) {
    const Expected<Encoding> e = encode_rate(d, 0);
    ASSERT_FALSE(e) << d.name;
    EXPECT_EQ(e.error().key, "rate");
    EXPECT_TRUE(contains(e.error().message, "rate must be > 0 interrupts/s")) << e.error().what();
    EXPECT_TRUE(contains(e.error().message, range_text(d.rate))) << e.error().what();
  }
}

TEST(itr, unknown_device_error_lists_every_allowed_name) {
  const Expected<Device> d = find_device("82575");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().key, "device");
  EXPECT_TRUE(contains(d.error().message, "'82575'")) << d.error().message;
  for (std::string_view name : {"82598", "82599", "x540", "i40e", "ice", "e1000", "e1000e"}) {
    EXPECT_TRUE(contains(d.error().message, name)) << name << " in " << d.error().message;
  }
  const Expected<Encoding> e = encode_rate("ixgbe", 8000);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().key, "device");
  EXPECT_FALSE(encode_usecs("", 50));
}

TEST(itr, finds_devices_ignoring_case) {
  const Expected<Device> d = find_device("X540");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "x540");
  EXPECT_EQ(d->family, Family::ixgbe_82599);
  EXPECT_EQ(find_device("E1000E")->family, Family::e1000);
}

TEST(itr, e1000_rejects_mode_codes_as_intervals) {
  const Expected<Encoding> e = encode_usecs("e1000", 3);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().key, "usecs");
  EXPECT_TRUE(contains(e.error().message, "10..10000")) << e.error().message;
}

// ---- decode --------------------------------------------------------------------------------

TEST(itr, decode_ignores_flags_and_the_mirrored_half) {
  EXPECT_EQ(decode(device("82599"), 0x800081F0U), decode(device("82599"), 0x1F0U));
  EXPECT_EQ(decode(device("82598"), 0x01E801E8U).register_value, 488U);
  EXPECT_EQ(decode(device("i40e"), 0xFFFFF019U).register_value, 25U);
}

TEST(itr, decode_of_zero_is_unthrottled_with_no_finite_rate) {
  for (const Device& d : kDevices) {
    const Encoding e = decode(d, 0);
    EXPECT_EQ(e.interval, Duration::zero()) << d.name;
    EXPECT_EQ(e.effective_rate, 0.0) << d.name;
  }
}

TEST(itr, encode_interval_drops_sub_microsecond_parts_and_rejects_negative) {
  const Device& i40e = device("i40e");
  const Expected<Encoding> e = encode_interval(i40e, nanoseconds(50'999));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, must_usecs("i40e", 50));
  const Expected<Encoding> neg = encode_interval(i40e, nanoseconds(-1));
  ASSERT_FALSE(neg);
  EXPECT_EQ(neg.error().key, "usecs");
  EXPECT_FALSE(encode_interval(i40e, seconds(3600)));
}

// ---- throttle ------------------------------------------------------------------------------

TEST(itr, throttle_holds_interrupts_for_the_eitr_gap) {
  Throttle t(must_rate("82599", 8000));
  EXPECT_EQ(t.interval(), microseconds(124));
  const Instant t0 = at_ns(5'000'000);
  EXPECT_TRUE(t.may_fire(t0));  // nothing fired yet
  t.fired(t0);
  EXPECT_EQ(t.next_allowed(), t0 + microseconds(124));
  EXPECT_FALSE(t.may_fire(t0));
  EXPECT_FALSE(t.may_fire(t0 + microseconds(124) - nanoseconds(1)));
  EXPECT_TRUE(t.may_fire(t0 + microseconds(124)));
}

TEST(itr, throttle_restarts_the_gap_at_every_interrupt) {
  Throttle t(microseconds(50));
  t.fired(at_ns(0));
  t.fired(at_ns(80'000));  // e.g. an unmoderated LLI
  EXPECT_FALSE(t.may_fire(at_ns(100'000)));
  EXPECT_EQ(t.next_allowed(), at_ns(130'000));
  // A new register value is measured from the last interrupt (CNT_WDIS keeps the count).
  t.set_interval(microseconds(10));
  EXPECT_TRUE(t.may_fire(at_ns(90'000)));
  EXPECT_FALSE(t.may_fire(at_ns(89'999)));
}

TEST(itr, throttle_with_zero_interval_never_holds) {
  Throttle t(Duration::zero());
  t.fired(at_ns(7));
  EXPECT_TRUE(t.may_fire(at_ns(7)));
  EXPECT_EQ(t.next_allowed(), at_ns(7));
}

}  // namespace
}  // namespace irqmod::itr
