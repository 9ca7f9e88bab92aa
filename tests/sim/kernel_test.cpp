// The scenario key `kernel`: it sets every kernel switch to the release's value unless the
// scenario sets the key itself, refuses a setting the release does not have, and the report
// names the behaviours in effect. Runs on 6.1 and 6.18.34 differ where a switch matters only.
#include "irqmod/napi/kernel.hpp"

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

// Seed 000's race (scenarios/seeds/000-busy-poll-exit-race.toml) without its explicit
// busy-poll-exit-swint: the kernel decides whether the software interrupt rescues the request.
std::string race(const std::string& kernel) {
  return "platform = \"x86-i40e\"\nkernel = \"" + kernel + R"("
[scenario]
duration = "20ms"
[link]
speed = "10G"
[traffic]
kind = "ping-pong"
msg-size = 64
mps = 17900
[nic]
moderation = "adaptive-itr"
adaptive-rx = true
[napi]
busy_read = 50
)";
}

TEST(kernel, unset_leaves_every_switch_at_its_default) {
  const Scenario s = loaded("[scenario]\nduration = \"1ms\"\n");
  EXPECT_TRUE(s.kernel.empty());
  EXPECT_TRUE(s.nic.busy_poll_exit_swint);
  EXPECT_FALSE(s.napi.epoll_prefer_busy_loop);
}

TEST(kernel, sets_the_switches_to_the_releases_values) {
  const Scenario old = loaded("kernel = \"6.8\"\n");
  EXPECT_EQ(old.kernel, "6.8");
  EXPECT_FALSE(old.nic.busy_poll_exit_swint);  // ea558de7238b is 6.9
  EXPECT_FALSE(old.napi.epoll_prefer_busy_loop);
  const Scenario mid = loaded("kernel = \"6.12\"\n");
  EXPECT_TRUE(mid.nic.busy_poll_exit_swint);
  EXPECT_FALSE(mid.napi.epoll_prefer_busy_loop);  // ab5b28b007a7 is 6.13
  const Scenario recent = loaded("kernel = \"6.18.34\"\n");
  EXPECT_EQ(recent.kernel, "6.18.34");
  EXPECT_TRUE(recent.nic.busy_poll_exit_swint);
  EXPECT_TRUE(recent.napi.epoll_prefer_busy_loop);
  // ice's rows are not the model's: its unthrottled 5.13-5.15 software interrupt is set by hand.
  EXPECT_EQ(loaded("kernel = \"5.14\"\n").nic.swint_itr, default_scenario().nic.swint_itr);
}

TEST(kernel, an_explicit_key_wins_over_the_kernels_value) {
  const Scenario in_file = loaded("kernel = \"6.13\"\n[nic]\nbusy-poll-exit-swint = false\n");
  EXPECT_FALSE(in_file.nic.busy_poll_exit_swint);
  EXPECT_TRUE(in_file.napi.epoll_prefer_busy_loop);
  const Scenario by_set = loaded("kernel = \"6.8\"\n", {"nic.busy-poll-exit-swint=true"});
  EXPECT_TRUE(by_set.nic.busy_poll_exit_swint);
  // --set kernel= replaces the file's, and the file's keys still win over it.
  const Scenario replaced =
      loaded("kernel = \"6.8\"\n[napi]\nepoll-prefer-busy-loop = false\n", {"kernel=6.13"});
  EXPECT_EQ(replaced.kernel, "6.13");
  EXPECT_TRUE(replaced.nic.busy_poll_exit_swint);
  EXPECT_FALSE(replaced.napi.epoll_prefer_busy_loop);
}

TEST(kernel, refuses_a_setting_the_release_does_not_have_naming_key_kernel_and_release) {
  EXPECT_EQ(error_of("kernel = \"5.10\"\n[napi]\nprefer_busy_poll = true\n"),
            "test.toml:3: napi.prefer_busy_poll: kernel = \"5.10\" does not have it: Linux 5.11 "
            "added it (7fd3253a7de6 \"net: Introduce preferred busy-polling\"); allowed: the "
            "default (false), or kernel = \"5.11\" or later");
  EXPECT_NE(error_of("kernel = \"6.12\"\n", {"napi.irq_suspend_timeout=1ms"})
                .find("napi.irq_suspend_timeout: kernel = \"6.12\" does not have it: Linux 6.13 "
                      "added it (5dc51ec86df6"),
            std::string::npos);
  EXPECT_NE(error_of("kernel = \"5.7\"\n[napi]\nnapi_defer_hard_irqs = 2\n")
                .find("napi.napi_defer_hard_irqs: kernel = \"5.7\" does not have it: Linux 5.8"),
            std::string::npos);
  EXPECT_NE(error_of("kernel = \"5.10\"\n[napi]\nbusy_poll_budget = 16\n")
                .find("napi.busy_poll_budget: kernel = \"5.10\""),
            std::string::npos);
  // The default is no setting: 5.10 busy-polls with the budget of 8 it always had.
  EXPECT_TRUE(load("kernel = \"5.10\"\n[napi]\nbusy_poll_budget = 8\n").ok());
  EXPECT_TRUE(load("kernel = \"6.13\"\n[napi]\nirq_suspend_timeout = \"1ms\"\n").ok());
}

// epoll's busy loop takes prefer_busy_poll and a budget only from 6.9 (EPIOCSPARAMS); recv's
// sk_busy_loop has had SO_PREFER_BUSY_POLL and SO_BUSY_POLL_BUDGET since 5.11.
TEST(kernel, before_6_9_epoll_busy_polls_without_prefer_busy_poll_or_a_budget) {
  const std::string epoll =
      "[cpu]\napp-wait = \"epoll\"\nbusy-poll-iteration = 100\n[napi]\nbusy_poll = \"50us\"\n";
  EXPECT_EQ(error_of("kernel = \"6.8\"\n" + epoll, {"napi.prefer_busy_poll=true"}),
            "test.toml: napi.prefer_busy_poll: kernel = \"6.8\" does not have it with "
            "cpu.app-wait=epoll: "
            "Linux 6.9 added it (de57a2510822 \"eventpoll: Add per-epoll prefer busy poll "
            "option\"); allowed: the default (false), or kernel = \"6.9\" or later");
  EXPECT_NE(error_of("kernel = \"6.8\"\n" + epoll, {"napi.busy_poll_budget=64"})
                .find("napi.busy_poll_budget: kernel = \"6.8\" does not have it with "
                      "cpu.app-wait=epoll: Linux 6.9 added it (c6aa2a7778d8"),
            std::string::npos);
  EXPECT_TRUE(load("kernel = \"6.9\"\n" + epoll, {"napi.prefer_busy_poll=true"}).ok());
  EXPECT_TRUE(load("kernel = \"6.8\"\n" + epoll).ok());  // busy polling itself: 4.12
  EXPECT_TRUE(load("kernel = \"6.8\"\n[napi]\nbusy_read = \"50us\"\nprefer_busy_poll = true\n"
                   "busy_poll_budget = 64\n[cpu]\nbusy-poll-iteration = 100\n")
                  .ok());  // recv: the socket options
}

// Every kernel row's condition names a scenario key and one of its values.
TEST(kernel, every_rows_condition_is_a_key_and_a_valid_value) {
  for (const napi::KernelBehaviour& b : napi::kernel_behaviours()) {
    if (b.when.empty()) continue;
    const std::size_t eq = b.when.find('=');
    ASSERT_NE(eq, std::string_view::npos) << b.when;
    const std::string key(b.when.substr(0, eq));
    const std::string value(b.when.substr(eq + 1));
    EXPECT_NE(find_key(key), nullptr) << key;
    EXPECT_TRUE(load("", {key + "=" + value}).ok()) << b.when;
  }
}

TEST(kernel, refuses_an_ill_formed_or_unknown_version_naming_the_key_and_the_format) {
  EXPECT_EQ(
      error_of("kernel = 6.1\n"),
      "test.toml:1: kernel: expected a Linux release such as \"6.1\"; got a floating-point number");
  EXPECT_NE(error_of("kernel = \"six\"\n")
                .find("test.toml:1: kernel: 'six' is not a kernel "
                      "version; allowed: \"MAJOR.MINOR[.PATCH]\""),
            std::string::npos);
  EXPECT_NE(error_of("", {"kernel=2.6"}).find("older than the oldest release this table knows"),
            std::string::npos);
}

TEST(kernel, the_printed_scenario_names_the_kernel_and_loads_back_the_same) {
  const Scenario s = loaded("kernel = \"6.8\"\n[napi]\nepoll-prefer-busy-loop = true\n");
  std::ostringstream text;
  write_toml(text, s);
  EXPECT_NE(text.str().find("kernel = \"6.8\"\n"), std::string::npos);
  EXPECT_EQ(loaded(text.str()), s);
}

TEST(kernel, the_report_prints_each_switch_in_effect_with_its_commit) {
  const RunReport r = run(loaded(race("6.8"), {"napi.epoll-prefer-busy-loop=true"}));
  std::ostringstream text;
  write_text(text, r);
  EXPECT_NE(text.str().find("kernel 6.8 (core and i40e behaviours):\n"
                            "  nic.busy-poll-exit-swint = false  before ea558de7238b "
                            "\"i40e: Enforce software interrupt during busy-poll exit\" (6.9)\n"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("  napi.epoll-prefer-busy-loop = true  set by the scenario; kernel "
                            "6.8 is before ab5b28b007a7"),
            std::string::npos)
      << text.str();
  std::ostringstream json;
  write_json(json, r);
  EXPECT_NE(json.str().find("\"kernel\":{\"version\":\"6.8\""), std::string::npos) << json.str();
  const RunReport unset = run(loaded("[scenario]\nduration = \"1ms\"\n"));
  std::ostringstream plain;
  write_text(plain, unset);
  EXPECT_EQ(plain.str().find("kernel"), std::string::npos);
}

// nic.driver = "ice": `kernel` applies ice's rows (b7306b42beaf 5.13, 23be7075b318 5.16), not
// i40e's; the same key from --set decides before the kernel layer is applied.
TEST(kernel, with_nic_driver_ice_the_kernel_applies_ices_rows) {
  const std::string ice = "[nic]\ndriver = \"ice\"\n";
  const Scenario before = loaded("kernel = \"5.12\"\n" + ice);
  EXPECT_FALSE(before.nic.busy_poll_exit_swint);
  const Scenario unthrottled = loaded("kernel = \"5.15\"\n" + ice);
  EXPECT_TRUE(unthrottled.nic.busy_poll_exit_swint);
  EXPECT_EQ(unthrottled.nic.swint_itr, Duration::zero());
  const Scenario throttled = loaded("kernel = \"5.16\"\n" + ice);
  EXPECT_EQ(throttled.nic.swint_itr, microseconds(50));
  // i40e on 5.15 has no fix yet (6.9); its software interrupt keeps the schema's 50 us.
  const Scenario i40e = loaded("kernel = \"5.15\"\n");
  EXPECT_FALSE(i40e.nic.busy_poll_exit_swint);
  EXPECT_EQ(loaded("kernel = \"5.15\"\n", {"nic.driver=ice"}), unthrottled);
  const RunReport r = run(loaded("kernel = \"5.15\"\n" + ice + "[scenario]\nduration = \"1ms\"\n"));
  std::ostringstream text;
  write_text(text, r);
  EXPECT_NE(text.str().find("kernel 5.15 (core and ice behaviours):\n"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("  nic.swint-itr = 0  before 23be7075b318"), std::string::npos)
      << text.str();
  EXPECT_NE(error_of(ice, {"nic.driver=e1000"}).find("nic.driver: "), std::string::npos);
}

// i40e's software interrupt at busy-poll exit (ea558de7238b, 6.9): before it, seed 000's race
// strands a request in the ring; from it, the interrupt takes it.
TEST(kernel, before_6_9_i40e_strands_seed_000s_request_and_from_6_9_it_does_not) {
  const RunReport before = run(loaded(race("6.8")));
  const RunReport with_fix = run(loaded(race("6.9")));
  EXPECT_EQ(before.stranded_frames, 1U);
  EXPECT_LT(before.latency.count(), 20U);
  EXPECT_EQ(with_fix.stranded_frames, 0U);
  EXPECT_GE(with_fix.latency.count(), 350U);
}

// What the report says apart from the kernel's own lines.
std::string without_kernel(RunReport r) {
  r.kernel.clear();
  r.kernel_settings.clear();
  std::ostringstream out;
  write_json(out, r);
  return out.str();
}

// busy_poll_stop's timer (58e2330bd455: 7.1, stable 6.18.34): a busy poller that prefers busy
// polling, with napi_defer_hard_irqs and a 20 us gro_flush_timeout, facing more than it can take
// (2 Mpps of 64 B frames on one core): its final polls are full (64 frames, 49 us at 760 ns
// each), longer than the timeout. Before the fix each such exit leaves the queue masked with
// no timer, to the next busy poll; from it the watchdog polls from softirq. The interrupt is on
// the busy poller's core: from another core i40e's off-affinity branch returns budget - 1, so
// the final poll is never full (simulation.i40e_*_off_affinity_*).
std::string overloaded_busy_poller(const std::string& kernel_line) {
  return kernel_line + R"(platform = "x86-i40e"
[scenario]
duration = "5ms"
[link]
speed = "10G"
[traffic]
kind = "constant"
rate = 2000000
size = 64
[nic]
moderation = "itr"
[cpu]
cores = 2
irq-cores = "1"
app-core = 1
[napi]
busy_read = 50
busy_poll_budget = 64
prefer_busy_poll = true
napi_defer_hard_irqs = 2
gro_flush_timeout = "20us"
)";
}

TEST(kernel, before_58e2330bd455_busy_poll_stop_leaves_the_queue_masked_with_no_timer) {
  const RunReport before = run(loaded(overloaded_busy_poller("kernel = \"6.18\"\n")));
  const RunReport fixed = run(loaded(overloaded_busy_poller("kernel = \"6.18.34\"\n")));
  ASSERT_EQ(before.queues.size(), 1U);
  ASSERT_EQ(fixed.queues.size(), 1U);
  EXPECT_GT(before.queues[0].napi.released_without_timer, 10U);
  EXPECT_EQ(fixed.queues[0].napi.released_without_timer, 0U);
  // The key on its own, without a kernel, does the same.
  const RunReport key =
      run(loaded(overloaded_busy_poller(""), {"napi.gro-timer-after-final-poll=true"}));
  EXPECT_EQ(key.queues[0].napi.released_without_timer, 0U);
  EXPECT_EQ(without_kernel(key), without_kernel(fixed));
  const RunReport unset = run(loaded(overloaded_busy_poller("")));
  EXPECT_EQ(unset.queues[0].napi.released_without_timer,
            before.queues[0].napi.released_without_timer);
  // PREEMPT_RT's soft watchdog closes the window on the same pre-fix kernel.
  const RunReport rt =
      run(loaded(overloaded_busy_poller("kernel = \"6.18\"\n"), {"napi.watchdog-in-softirq=true"}));
  EXPECT_EQ(rt.queues[0].napi.released_without_timer, 0U);
  std::ostringstream text;
  write_text(text, before);
  EXPECT_NE(
      text.str().find(" busy-poll exits left it masked with no timer (fixed by 58e2330bd455)"),
      std::string::npos)
      << text.str();
}

TEST(kernel, runs_on_6_1_and_6_18_34_differ_where_a_switch_matters_and_nowhere_else) {
  // Busy polling on i40e: 6.1 has no software interrupt at busy-poll exit.
  EXPECT_NE(without_kernel(run(loaded(race("6.1")))), without_kernel(run(loaded(race("6.18.34")))));
  // No busy polling: neither switch is reached, every number is the same.
  const std::string quiet = R"(
[scenario]
duration = "20ms"
[traffic]
kind = "ping-pong"
mps = 20000
)";
  const RunReport old = run(loaded("kernel = \"6.1\"\n" + quiet));
  const RunReport recent = run(loaded("kernel = \"6.18.34\"\n" + quiet));
  EXPECT_GT(old.latency.count(), 100U);
  EXPECT_EQ(without_kernel(old), without_kernel(recent));
  EXPECT_EQ(without_kernel(old), without_kernel(run(loaded(quiet))));
}

}  // namespace
}  // namespace irqmod::sim
