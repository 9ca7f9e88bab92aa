// The pure parts of the netdev netlink client: kernel releases and the napi-set refusal text.
#include "irqmod/rt/netdev_netlink.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace irqmod::rt::netdev {
namespace {

TEST(netdev_netlink, reads_major_and_minor_of_a_kernel_release) {
  const auto v = parse_kernel_release("6.18.44-fc-v857");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 6);
  EXPECT_EQ(v->minor, 18);
  EXPECT_FALSE(parse_kernel_release("six.eighteen"));
  EXPECT_FALSE(parse_kernel_release("6"));
}

TEST(netdev_netlink, names_the_setting_and_the_release_that_added_it_on_an_older_kernel) {
  NapiSettings asked;
  asked.threaded = true;
  asked.defer_hard_irqs = 2;
  const Error e = describe_set_refusal(asked, KernelVersion{6, 15}, EINVAL, "Unknown attribute");
  EXPECT_NE(e.message.find("threaded (added in Linux 6.17)"), std::string::npos) << e.what();
  EXPECT_EQ(e.message.find("defer-hard-irqs"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("this kernel (6.15)"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("Unknown attribute"), std::string::npos) << e.what();
}

TEST(netdev_netlink, says_napi_set_itself_is_missing_before_6_13) {
  NapiSettings asked;
  asked.gro_flush_timeout_ns = 200'000;
  const Error e = describe_set_refusal(asked, KernelVersion{6, 8}, EOPNOTSUPP, "");
  EXPECT_NE(e.message.find("napi-set"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("6.13"), std::string::npos) << e.what();
}

TEST(netdev_netlink, passes_on_the_kernels_words_when_the_kernel_knows_every_setting) {
  NapiSettings asked;
  asked.defer_hard_irqs = 2;
  const Error e = describe_set_refusal(asked, KernelVersion{6, 18}, EINVAL, "bad value");
  EXPECT_NE(e.message.find("the kernel refused"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("bad value"), std::string::npos) << e.what();
}

TEST(netdev_netlink, says_napi_set_needs_root_when_the_kernel_says_eperm) {
  NapiSettings asked;
  asked.defer_hard_irqs = 2;
  const Error e = describe_set_refusal(asked, KernelVersion{6, 18}, EPERM, "");
  EXPECT_NE(e.message.find("needs root"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("CAP_NET_ADMIN"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace irqmod::rt::netdev
