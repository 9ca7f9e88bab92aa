// The lab's parts that need no root (src/rt/lab.cpp): the configuration check and the flag each
// refusal names, the namespaces' names, when a status is up, and the status as one JSON object;
// `down` and `status` check the name before anything else. The loss filter's pure parts are
// lab_loss_test.cpp's; setting a lab up and down on the running kernel is lab_napi.sh's (ctest
// lab.*). As root, with `ip`: taking down a lab that is not there is not an error.
#include "irqmod/rt/lab.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "irqmod/rt/netdev_netlink.hpp"
#include "irqmod/rt/netns.hpp"

namespace irqmod::rt {
namespace {

// The key of validate's refusal of `config`, or "ok".
std::string refusal_key(const lab::Config& config) {
  const auto e = lab::validate(config);
  return e ? e->key : "ok";
}

lab::Status two_ended_status() {
  lab::Status s;
  s.name = "irqmod-lab-x";
  s.server_netns = s.client_netns = true;
  s.devices.push_back(lab::Device{"veth-srv", "irqmod-lab-x-srv", "198.18.0.1/30", 7, 2, 2, 0.25});
  s.devices.push_back(lab::Device{"veth-cli", "irqmod-lab-x-cli", "198.18.0.2/30", 8, 2, 2, 0});
  netdev::Napi napi;
  napi.id = 8193;
  napi.ifindex = 7;
  napi.pid = 4242;
  s.napis.push_back(napi);
  s.socket_napi_id = 8193;
  s.check_note = "said \"no\"\nthen yes";
  return s;
}

TEST(lab, validate_accepts_the_defaults_and_names_the_flag_it_refuses) {
  lab::Config c;
  EXPECT_EQ(refusal_key(c), "ok");
  for (const char* bad : {"lab", "irqmod-Lab", "irqmod-lab_1", "irqmod-lab x"}) {
    c.name = bad;
    EXPECT_EQ(refusal_key(c), "--name") << bad;
  }
  c.name = "irqmod-lab" + std::string(38, 'a');  // 48 characters: the longest allowed
  EXPECT_EQ(refusal_key(c), "ok");
  c.name += "a";
  EXPECT_EQ(refusal_key(c), "--name");
  c = lab::Config{};
  for (const unsigned queues : {0U, lab::kMaxQueues + 1}) {
    c.queues = queues;
    EXPECT_EQ(refusal_key(c), "--queues") << queues;
  }
  c.queues = lab::kMaxQueues;
  EXPECT_EQ(refusal_key(c), "ok");
}

TEST(lab, a_napi_cpu_needs_threaded_napi_and_a_cpu_of_this_machine) {
  lab::Config c;
  c.napi_cpu = 0;
  EXPECT_EQ(refusal_key(c), "--napi-cpu");  // without --threaded
  c.threaded = true;
  EXPECT_EQ(refusal_key(c), "ok");
  c.napi_cpu = static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(refusal_key(c), "--napi-cpu");
}

TEST(lab, a_labs_namespaces_are_its_name_with_srv_and_cli) {
  EXPECT_EQ(lab::server_netns("irqmod-lab"), "irqmod-lab-srv");
  EXPECT_EQ(lab::client_netns("irqmod-lab-2"), "irqmod-lab-2-cli");
}

TEST(lab, a_status_is_up_only_with_both_namespaces_and_both_devices) {
  lab::Status s = two_ended_status();
  EXPECT_TRUE(s.up());
  s.devices.pop_back();
  EXPECT_FALSE(s.up());
  s = two_ended_status();
  s.client_netns = false;
  EXPECT_FALSE(s.up());
}

TEST(lab, the_status_is_one_json_object_with_its_devices_and_napis) {
  const std::string text = lab::status_json(two_ended_status());
  EXPECT_EQ(text.find('\n'), std::string::npos);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("lab"), "irqmod-lab-x");
  EXPECT_EQ(j.at("up"), true);
  EXPECT_EQ(j.at("server_netns"), "irqmod-lab-x-srv");
  EXPECT_EQ(j.at("client_address"), lab::kClientAddress);
  ASSERT_EQ(j.at("devices").size(), 2U);
  EXPECT_EQ(j.at("devices")[0].at("ifindex"), 7);
  EXPECT_EQ(j.at("devices")[0].at("rx_queues"), 2);
  EXPECT_DOUBLE_EQ(j.at("devices")[0].at("loss").get<double>(), 0.25);
  EXPECT_EQ(j.at("devices")[1].at("netns"), "irqmod-lab-x-cli");
  ASSERT_EQ(j.at("napis").size(), 1U);
  EXPECT_EQ(j.at("napis")[0].at("id"), 8193);
  EXPECT_EQ(j.at("napis")[0].at("pid"), 4242);
  EXPECT_TRUE(j.at("napis")[0].at("threaded").is_null());  // not reported by this kernel
  EXPECT_EQ(j.at("socket_napi_id"), 8193);
  EXPECT_EQ(j.at("note"), "said \"no\" then yes");  // a control character becomes a space
}

TEST(lab, down_and_status_check_the_name_before_anything_else) {
  const auto down = lab::down("not-a-lab");
  ASSERT_TRUE(down);
  EXPECT_EQ(down->key, "--name");
  const auto status = lab::status("irqmod-lab/../x");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().key, "--name");
}

TEST(lab, without_root_up_and_down_say_they_need_it) {
  if (::geteuid() == 0) GTEST_SKIP() << "runs as root: the refusal cannot be seen";
  const auto down = lab::down("irqmod-lab-absent");
  ASSERT_TRUE(down);
  EXPECT_NE(down->message.find("needs root"), std::string::npos) << down->message;
  const auto up = lab::up(lab::Config{});
  ASSERT_FALSE(up);
  EXPECT_NE(up.error().message.find("needs root"), std::string::npos);
}

TEST(lab, taking_down_a_lab_that_is_not_there_is_not_an_error) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  if (std::system("ip -V >/dev/null 2>&1") != 0) GTEST_SKIP() << "needs ip (iproute2)";
  const std::string name = "irqmod-lab-absent-" + std::to_string(::getpid());
  ASSERT_FALSE(netns_exists(lab::server_netns(name)));
  EXPECT_FALSE(lab::down(name));
  const auto status = lab::status(name);
  ASSERT_TRUE(status) << status.error().what();
  EXPECT_FALSE(status.value().up());
  EXPECT_EQ(status.value().check_note, "the lab is not up");
}

}  // namespace
}  // namespace irqmod::rt
