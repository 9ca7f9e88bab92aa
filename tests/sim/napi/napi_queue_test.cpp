// Per-NAPI settings (napi.queue.N.KEY, [napi.queue.N]): the netdev netlink napi-set of Linux
// 6.13 (f15e3b3ddb9f, acb8d4ed5661; irq_suspend_timeout per NAPI from 5dc51ec86df6). Each
// defaults to the device-wide [napi] key; a kernel before 6.13 refuses a value that differs.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

using namespace test;  // load, loaded, error_of, run

// Two queues, each with a flow of its own at the same rate, one vector per queue.
const std::string kTwoQueues = R"(platform = "x86-i40e"
[scenario]
duration = "20ms"
[traffic]
kind = "constant"
rate = 200000
steering = "queue"
queue = 0
[[flow]]
kind = "constant"
rate = 200000
steering = "queue"
queue = 1
[nic]
queues = 2
moderation = "none"
[cpu]
cores = 2
irq-cores = "0-1"
)";

// Deferral on queue 1 only: its vector interrupts far less than queue 0's, which keeps the
// device-wide setting (none). A model that ignored the per-queue value would treat them alike.
TEST(napi_queue, a_queues_own_deferral_applies_to_its_context_only) {
  const RunReport same = run(loaded(kTwoQueues));
  const RunReport deferred = run(loaded(
      kTwoQueues + "[napi.queue.1]\nnapi_defer_hard_irqs = 8\ngro_flush_timeout = 100000\n"));
  ASSERT_EQ(deferred.interrupts.vectors(), 2U);
  const auto q0 = deferred.interrupts.count_of(0);
  const auto q1 = deferred.interrupts.count_of(1);
  EXPECT_EQ(q0, same.interrupts.count_of(0));  // queue 0 unchanged
  EXPECT_LT(q1 * 4, q0);
  EXPECT_LT(q1 * 4, same.interrupts.count_of(1));
  EXPECT_TRUE(deferred.conservation.ok());
}

// The device-wide key still reaches a queue that sets only another key, and --set addresses a
// queue's key as napi.queue.N.KEY.
TEST(napi_queue, unset_keys_follow_the_device_wide_value_and_set_addresses_one_queue) {
  const Scenario s =
      loaded(kTwoQueues, {"napi.napi_defer_hard_irqs=8", "napi.gro_flush_timeout=100000",
                          "napi.queue.0.napi_defer_hard_irqs=0"});
  ASSERT_EQ(s.napi.queue.size(), 1U);
  EXPECT_EQ(s.napi.queue.at(0).defer_hard_irqs, 0U);
  EXPECT_FALSE(s.napi.queue.at(0).gro_flush_timeout.has_value());
  const RunReport r = run(s);
  // Queue 0 re-arms at its first empty poll; queue 1 defers with the device-wide 8 polls.
  EXPECT_LT(r.interrupts.count_of(1) * 4, r.interrupts.count_of(0));
}

TEST(napi_queue, a_kernel_before_6_13_refuses_a_per_queue_value_naming_setting_and_version) {
  const std::string per_queue = "[napi.queue.1]\ngro_flush_timeout = 100000\n";
  const std::string message = error_of("kernel = \"6.12\"\n" + kTwoQueues + per_queue);
  EXPECT_NE(message.find("napi.queue.1.gro_flush_timeout: kernel = \"6.12\" has one "
                         "gro_flush_timeout per device, not per NAPI: Linux 6.13 added it "
                         "(acb8d4ed5661 \"net: napi: Make gro_flush_timeout per-NAPI\")"),
            std::string::npos)
      << message;
  EXPECT_NE(error_of("kernel = \"6.1\"\n" + kTwoQueues, {"napi.queue.0.napi_defer_hard_irqs=2"})
                .find("f15e3b3ddb9f \"net: napi: Make napi_defer_hard_irqs per-NAPI\""),
            std::string::npos);
  // The same value as the device-wide one is what an older kernel has: accepted.
  EXPECT_TRUE(load("kernel = \"6.1\"\n" + kTwoQueues,
                   {"napi.gro_flush_timeout=100000", "napi.queue.1.gro_flush_timeout=100000"})
                  .ok());
  EXPECT_TRUE(load("kernel = \"6.13\"\n" + kTwoQueues + per_queue).ok());
}

TEST(napi_queue, refuses_a_queue_that_does_not_exist_or_an_unknown_key) {
  EXPECT_NE(error_of(kTwoQueues, {"napi.queue.2.gro_flush_timeout=1000"})
                .find("napi.queue.2: queue 2 does not exist; allowed: 0 to 1 (nic.queues = 2)"),
            std::string::npos);
  EXPECT_NE(error_of(kTwoQueues, {"napi.queue.0.weight=8"})
                .find("napi.queue.0.weight: unknown per-NAPI key; allowed in [napi.queue.N]: "
                      "napi_defer_hard_irqs, gro_flush_timeout, irq_suspend_timeout"),
            std::string::npos);
  EXPECT_NE(error_of(kTwoQueues + "[napi.queue.x]\ngro_flush_timeout = 1\n")
                .find("napi.queue.x: 'x' is not a queue number"),
            std::string::npos);
  const std::string bad = error_of(kTwoQueues + "[napi.queue.0]\ngro_flush_timeout = \"fast\"\n");
  EXPECT_NE(bad.find("test.toml:21: napi.queue.0.gro_flush_timeout: "), std::string::npos) << bad;
}

TEST(napi_queue, the_scenario_prints_and_loads_back) {
  const Scenario s = loaded(kTwoQueues +
                            "[napi.queue.1]\nnapi_defer_hard_irqs = 3\n"
                            "irq_suspend_timeout = \"1ms\"\n");
  std::ostringstream out;
  write_toml(out, s);
  EXPECT_NE(out.str().find("[napi.queue.1]\nnapi_defer_hard_irqs = 3\nirq_suspend_timeout = "
                           "1000000\n"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(loaded(out.str()), s);
}

}  // namespace
}  // namespace irqmod::sim
