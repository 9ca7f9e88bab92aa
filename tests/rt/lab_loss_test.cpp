// The pure parts of the lab's loss filter (lab.hpp): --loss parsing, the classic BPF program and
// reading it back; and the load generator's configuration checks (load.hpp). The filter's effect
// on real packets is tests/rt/lab_serve.sh's loss-udp case.
#include <gtest/gtest.h>

#include <cmath>

#include "irqmod/rt/lab.hpp"
#include "irqmod/rt/load.hpp"

namespace irqmod::rt {
namespace {

TEST(lab_loss, parses_decimal_probabilities_only) {
  EXPECT_DOUBLE_EQ(*lab::parse_loss("0.2"), 0.2);
  EXPECT_DOUBLE_EQ(*lab::parse_loss("1e-3"), 0.001);
  EXPECT_DOUBLE_EQ(*lab::parse_loss("0"), 0.0);
  EXPECT_DOUBLE_EQ(*lab::parse_loss("1"), 1.0);
  for (const char* bad : {"", "-0.1", "1.5", "abc", "nan", "inf", "0x1", "0.2x", "1e", " 0.2"}) {
    const auto p = lab::parse_loss(bad);
    ASSERT_FALSE(p) << bad;
    EXPECT_EQ(p.error().key, "--loss") << bad;
  }
}

TEST(lab_loss, drops_below_p_times_two_to_the_32) {
  // ld [SKF_AD_OFF + SKF_AD_RANDOM]; jge #round(P * 2^32), skip the drop; ret SHOT; ret OK.
  EXPECT_EQ(lab::loss_bytecode(0.2), "4,32 0 0 4294963256,53 1 0 858993459,6 0 0 2,6 0 0 0");
  EXPECT_EQ(lab::loss_bytecode(0.5), "4,32 0 0 4294963256,53 1 0 2147483648,6 0 0 2,6 0 0 0");
  EXPECT_EQ(lab::loss_bytecode(1), "1,6 0 0 2");  // every packet
  EXPECT_EQ(lab::loss_bytecode(0), "");           // no filter at all
  EXPECT_EQ(lab::loss_bytecode(1e-12), "");       // below the program's 2^-32 resolution
}

TEST(lab_loss, reads_the_probability_back_from_tc_filter_show) {
  for (const double p : {0.2, 0.5, 1e-3, 1.0}) {
    const std::string shown =
        "filter protocol all pref 1 bpf chain 0 handle 0x1 direct-action "
        "not_in_hw bytecode '" +
        lab::loss_bytecode(p) + "'\n";
    const auto read = lab::loss_from_tc_output(shown);
    ASSERT_TRUE(read) << p;
    EXPECT_NEAR(*read, p, 1e-9) << p;
  }
  EXPECT_FALSE(lab::loss_from_tc_output("filter protocol all pref 1 bpf chain 0\n"));
  // Some other program is not the lab's filter.
  EXPECT_FALSE(lab::loss_from_tc_output("bytecode '1,6 0 0 4294967295'"));
  EXPECT_FALSE(lab::loss_from_tc_output("bytecode '4,32 0 0 4294963256,53 1 0 9,6 0 0 1,6 0 0 0'"));
}

TEST(lab_loss, validate_refuses_a_probability_outside_0_to_1) {
  lab::Config c;
  c.loss = 1.5;
  ASSERT_TRUE(lab::validate(c));
  EXPECT_EQ(lab::validate(c)->key, "--loss");
  c.loss = std::nan("");
  EXPECT_TRUE(lab::validate(c));
  c.loss = 0.3;
  EXPECT_FALSE(lab::validate(c));
}

TEST(load, validate_names_the_flag) {
  const auto key = [](auto change) {
    load::Config c;
    change(c);
    const auto e = load::validate(c);
    return e ? e->key : std::string("ok");
  };
  EXPECT_EQ(key([](load::Config&) {}), "ok");
  EXPECT_EQ(key([](load::Config& c) { c.ip = "localhost"; }), "--ip");
  EXPECT_EQ(key([](load::Config& c) { c.port = 0; }), "--port");
  EXPECT_EQ(key([](load::Config& c) { c.connections = 0; }), "--connections");
  EXPECT_EQ(key([](load::Config& c) { c.connections = 65; }), "--connections");
  EXPECT_EQ(key([](load::Config& c) { c.rate = 0; }), "--rate");
  EXPECT_EQ(key([](load::Config& c) { c.rate = std::nan(""); }), "--rate");
  EXPECT_EQ(key([](load::Config& c) { c.duration_s = 0; }), "--duration");
  EXPECT_EQ(key([](load::Config& c) { c.warmup_s = 3; }), "--warmup");
  EXPECT_EQ(key([](load::Config& c) { c.size = 13; }), "--size");
  EXPECT_EQ(key([](load::Config& c) { c.grace_s = -1; }), "--grace");
  EXPECT_EQ(key([](load::Config& c) { c.cpu = -1; }), "--cpu");
}

}  // namespace
}  // namespace irqmod::rt
