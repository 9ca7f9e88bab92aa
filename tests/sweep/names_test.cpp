#include "irqmod/sweep/names.hpp"

#include <gtest/gtest.h>

namespace irqmod::sweep {
namespace {

const std::vector<std::string> kNames{"nic.rx-usecs",   "nic.rx-frames",  "napi.busy_read",
                                      "napi.busy_poll", "latency_p99_ns", "latency_p50_ns"};

TEST(Names, OffersTheNamesWithinTwoEditsNearestFirst) {
  EXPECT_EQ(near_names("nic.rx-usec", kNames), (std::vector<std::string>{"nic.rx-usecs"}));
  EXPECT_EQ(near_names("NAPI.BUSY-READ", kNames), (std::vector<std::string>{"napi.busy_read"}));
  EXPECT_EQ(near_names("napi.busy_rea", kNames).front(), "napi.busy_read");
  EXPECT_TRUE(near_names("zzz", kNames).empty());
  EXPECT_TRUE(near_names("", kNames).empty());
}

TEST(Names, OffersTheNamesThatHoldTheWord) {
  EXPECT_EQ(near_names("latency", kNames),
            (std::vector<std::string>{"latency_p99_ns", "latency_p50_ns"}));
  EXPECT_EQ(near_names("busy", kNames, 1), (std::vector<std::string>{"napi.busy_read"}));
}

TEST(Names, TheMessageNamesTheWordTheNearOnesAndTheValidOnes) {
  EXPECT_EQ(unknown_name("nic.rx-usec", "a varied key", kNames, "a, b"),
            "'nic.rx-usec' is not a varied key; did you mean 'nic.rx-usecs'? allowed: a, b");
  EXPECT_EQ(unknown_name("zzz", "a varied key", kNames, joined({"a", "b"})),
            "'zzz' is not a varied key; allowed: a, b");
}

}  // namespace
}  // namespace irqmod::sweep
