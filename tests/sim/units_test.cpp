// Durations and bit rates with units: exact decimal parsing and the shortest spelling back.
#include "irqmod/sim/units.hpp"

#include <gtest/gtest.h>

namespace irqmod::sim {
namespace {

TEST(units, durations_parse_exactly_with_or_without_a_unit) {
  EXPECT_EQ(parse_duration_ns("50", "us"), 50'000);
  EXPECT_EQ(parse_duration_ns("50us", "ns"), 50'000);
  EXPECT_EQ(parse_duration_ns("1.5ms", ""), 1'500'000);
  EXPECT_EQ(parse_duration_ns("2s", ""), 2'000'000'000);
  EXPECT_EQ(parse_duration_ns("1_000ns", ""), 1'000);
  EXPECT_EQ(parse_duration_ns("0", "us"), 0);
  EXPECT_FALSE(parse_duration_ns("50", ""));            // a unit is required here
  EXPECT_FALSE(parse_duration_ns("0.5ns", ""));         // not a whole nanosecond
  EXPECT_FALSE(parse_duration_ns("-1us", ""));          // negative
  EXPECT_FALSE(parse_duration_ns("5 parsecs", ""));     // not a duration
  EXPECT_FALSE(parse_duration_ns("99999999999s", ""));  // overflows int64 ns
}

TEST(units, bit_rates_default_to_mbit_like_ethtool_speed) {
  EXPECT_EQ(parse_bitrate("10000"), 10'000'000'000u);
  EXPECT_EQ(parse_bitrate("10G"), 10'000'000'000u);
  EXPECT_EQ(parse_bitrate("2.5Gbit/s"), 2'500'000'000u);
  EXPECT_EQ(parse_bitrate("100Mbps"), 100'000'000u);
  EXPECT_EQ(parse_bitrate("1500bit/s"), 1'500u);
  EXPECT_FALSE(parse_bitrate("10X"));
  EXPECT_FALSE(parse_bitrate("fast"));
}

TEST(units, formatting_picks_the_largest_exact_unit) {
  EXPECT_EQ(format_duration(1'500), "1500ns");
  EXPECT_EQ(format_duration(50'000), "50us");
  EXPECT_EQ(format_duration(2'000'000'000), "2s");
  EXPECT_EQ(format_duration(0), "0ns");
  EXPECT_EQ(format_bitrate(10'000'000'000), "10G");
  EXPECT_EQ(format_bitrate(2'500'000'000), "2500M");
  for (std::int64_t ns : {std::int64_t{1}, std::int64_t{999}, std::int64_t{1'000},
                          std::int64_t{1'234'000}, std::int64_t{60'000'000'000}}) {
    EXPECT_EQ(parse_duration_ns(format_duration(ns), ""), ns);
  }
}

}  // namespace
}  // namespace irqmod::sim
