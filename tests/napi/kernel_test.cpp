// The kernel-behaviour table: version parsing and its messages, every row sourced, and each
// switch's value on either side of its release.
#include "irqmod/napi/kernel.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace irqmod::napi {
namespace {

const KernelBehaviour& row(std::string_view key, std::string_view driver) {
  for (const KernelBehaviour& b : kernel_behaviours()) {
    if (b.key == key && b.driver == driver) return b;
  }
  ADD_FAILURE() << "no row for " << key << " (" << driver << ")";
  return kernel_behaviours().front();
}

KernelVersion version(std::string_view text) {
  const auto parsed = parse_kernel_version(text);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().what());
  return parsed.ok() ? parsed.value() : KernelVersion{};
}

TEST(kernel, parses_major_minor_and_a_stable_patch_level) {
  EXPECT_EQ(version("6.1"), (KernelVersion{6, 1, 0}));
  EXPECT_EQ(version("6.18.34"), (KernelVersion{6, 18, 34}));
  EXPECT_EQ(version("3.19"), (KernelVersion{3, 19, 0}));
  EXPECT_EQ(version("7.1.3"), (KernelVersion{7, 1, 3}));
  EXPECT_EQ(version("5.0"), (KernelVersion{5, 0, 0}));
  EXPECT_EQ(version("6.10.0"), (KernelVersion{6, 10, 0}));
  EXPECT_EQ(to_string(version("6.18.34")), "6.18.34");
  EXPECT_EQ(to_string(version("6.1")), "6.1");
}

TEST(kernel, refuses_ill_formed_and_unknown_versions_naming_the_format_and_the_known_ones) {
  const std::string known = "3.19, 4.0-4.20, 5.0-5.19, 6.0-6.19, 7.0-7.1";
  EXPECT_EQ(known_kernel_lines(), known);
  for (const std::string_view text :
       {"6", "6.", ".1", "6.x", "6.1.", "6.1.2.3", "v6.1", " 6.1", "6.1-rc4", "", "99999.1", "6.01",
        "6.010", "06.1", "6.1.05"}) {
    const auto parsed = parse_kernel_version(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().key, "kernel");
    EXPECT_NE(parsed.error().message.find("is not a kernel version"), std::string::npos) << text;
    EXPECT_NE(parsed.error().message.find("MAJOR.MINOR[.PATCH]"), std::string::npos);
  }
  const auto too_old = parse_kernel_version("3.18");
  ASSERT_FALSE(too_old.ok());
  EXPECT_EQ(too_old.error().message,
            "'3.18' is older than the oldest release this table knows; allowed: "
            "\"MAJOR.MINOR[.PATCH]\" (such as \"6.1\" or \"6.18.34\") of the releases known: " +
                known);
  const auto too_new = parse_kernel_version("7.2");
  ASSERT_FALSE(too_new.ok());
  EXPECT_NE(too_new.error().message.find("newer than the newest"), std::string::npos);
  const auto no_such = parse_kernel_version("6.20");
  ASSERT_FALSE(no_such.ok());
  EXPECT_NE(no_such.error().message.find("'6.20' is not a Linux release"), std::string::npos);
  EXPECT_NE(no_such.error().message.find(known), std::string::npos);
}

TEST(kernel, every_row_names_a_key_a_commit_its_title_and_a_known_release) {
  KernelVersion previous{};
  for (const KernelBehaviour& b : kernel_behaviours()) {
    SCOPED_TRACE(std::string(b.key));
    EXPECT_NE(b.key.find('.'), std::string_view::npos);
    EXPECT_EQ(b.commit.size(), 12U);
    EXPECT_EQ(b.commit.find_first_not_of("0123456789abcdef"), std::string_view::npos);
    EXPECT_FALSE(b.title.empty());
    EXPECT_FALSE(b.what.empty());
    EXPECT_TRUE(parse_kernel_version(to_string(b.release)).ok());
    EXPECT_GE(b.release, previous);  // in the order of the first release
    previous = b.release;
    if (b.kind == BehaviourKind::switch_value) {
      EXPECT_NE(b.before, b.after);
    } else {
      EXPECT_TRUE(b.before.empty() && b.after.empty());
    }
  }
}

// The releases of docs/research/kernel-switches.md, which correct issue 17's remembered ones.
TEST(kernel, each_switch_changes_at_its_first_release_and_not_before) {
  const KernelBehaviour& epoll = row("napi.epoll-prefer-busy-loop", "");
  EXPECT_EQ(epoll.commit, "ab5b28b007a7");
  EXPECT_EQ(value_on(epoll, version("6.12.99")), "false");
  EXPECT_EQ(value_on(epoll, version("6.13")), "true");
  const KernelBehaviour& i40e = row("nic.busy-poll-exit-swint", "i40e");
  EXPECT_EQ(i40e.title, "i40e: Enforce software interrupt during busy-poll exit");
  EXPECT_EQ(value_on(i40e, version("6.8")), "false");
  EXPECT_EQ(value_on(i40e, version("6.9")), "true");
  const KernelBehaviour& ice = row("nic.busy-poll-exit-swint", "ice");
  EXPECT_EQ(value_on(ice, version("5.12")), "false");
  EXPECT_EQ(value_on(ice, version("5.13")), "true");
  const KernelBehaviour& ice_throttle = row("nic.swint-itr", "ice");
  EXPECT_EQ(value_on(ice_throttle, version("5.15")), "0");  // 5.13-5.15: unthrottled
  EXPECT_EQ(value_on(ice_throttle, version("5.16")), "50us");
}

// 58e2330bd455 reached two stable lines (6.18.34, 7.0.11) before mainline 7.1; lines without a
// confirmed backport (6.19, 6.12) do not have it.
TEST(kernel, a_confirmed_stable_release_has_the_commit_from_its_patch_level) {
  const KernelBehaviour& timer = row("napi.gro-timer-after-final-poll", "");
  EXPECT_EQ(timer.commit, "58e2330bd455");
  EXPECT_EQ(timer.title, "net: napi: Avoid gro timer misfiring at end of busypoll");
  EXPECT_EQ(timer.release, (KernelVersion{7, 1, 0}));
  EXPECT_EQ(value_on(timer, version("6.18")), "false");
  EXPECT_EQ(value_on(timer, version("6.18.33")), "false");
  EXPECT_EQ(value_on(timer, version("6.18.34")), "true");
  EXPECT_EQ(value_on(timer, version("6.18.40")), "true");
  EXPECT_EQ(value_on(timer, version("6.19")), "false");
  EXPECT_EQ(value_on(timer, version("6.12.80")), "false");
  EXPECT_EQ(value_on(timer, version("7.0.10")), "false");
  EXPECT_EQ(value_on(timer, version("7.0.11")), "true");
  EXPECT_EQ(value_on(timer, version("7.1")), "true");
  EXPECT_TRUE(differs(timer, version("6.1"), version("6.18.34")));
  EXPECT_FALSE(differs(timer, version("6.18.34"), version("7.1")));
  // A row without confirmed stable releases is mainline only.
  EXPECT_FALSE(has_commit(row("napi.epoll-prefer-busy-loop", ""), version("6.12.200")));
}

// Before 6.9 epoll's busy loop had prefer_busy_poll hard-coded false and the budget at 8: the
// socket options reach sk_busy_loop (recv), and epoll only through EPIOCSPARAMS from 6.9.
TEST(kernel, epolls_own_prefer_busy_poll_and_budget_come_with_6_9) {
  int epoll_rows = 0;
  for (const KernelBehaviour& b : kernel_behaviours()) {
    if (b.when != "cpu.app-wait=epoll") continue;
    ++epoll_rows;
    EXPECT_EQ(b.kind, BehaviourKind::feature);
    EXPECT_EQ(b.release, (KernelVersion{6, 9, 0}));
    EXPECT_FALSE(has_commit(b, version("6.8")));
    EXPECT_TRUE(has_commit(b, version("6.9")));
    EXPECT_TRUE(b.key == "napi.prefer_busy_poll" || b.key == "napi.busy_poll_budget") << b.key;
  }
  EXPECT_EQ(epoll_rows, 2);
  EXPECT_TRUE(row("napi.prefer_busy_poll", "").when.empty());  // the socket option: 5.11
}

TEST(kernel, features_exist_from_their_release) {
  EXPECT_FALSE(has_commit(row("napi.prefer_busy_poll", ""), version("5.10.54")));
  EXPECT_TRUE(has_commit(row("napi.prefer_busy_poll", ""), version("5.11")));
  EXPECT_FALSE(has_commit(row("napi.busy_poll_budget", ""), version("5.10")));
  EXPECT_FALSE(has_commit(row("napi.napi_defer_hard_irqs", ""), version("5.7")));
  EXPECT_TRUE(has_commit(row("napi.napi_defer_hard_irqs", ""), version("5.8")));
  EXPECT_FALSE(has_commit(row("napi.irq_suspend_timeout", ""), version("6.12")));
  EXPECT_TRUE(has_commit(row("napi.irq_suspend_timeout", ""), version("6.13")));
  EXPECT_TRUE(has_commit(row("napi.gro_flush_timeout", ""), version("3.19")));
}

TEST(kernel, a_behaviour_differs_between_releases_on_either_side_of_its_commit) {
  const KernelBehaviour& epoll = row("napi.epoll-prefer-busy-loop", "");
  EXPECT_TRUE(differs(epoll, version("6.1"), version("6.18.34")));
  EXPECT_TRUE(differs(epoll, version("6.18.34"), version("6.1")));
  EXPECT_FALSE(differs(epoll, version("6.13"), version("7.1")));
  EXPECT_FALSE(differs(epoll, version("5.10"), version("6.12")));
}

TEST(kernel, the_model_takes_the_core_rows_and_i40es_not_ices) {
  EXPECT_TRUE(applies_to_model(row("napi.epoll-prefer-busy-loop", "")));
  EXPECT_TRUE(applies_to_model(row("nic.busy-poll-exit-swint", "i40e")));
  EXPECT_FALSE(applies_to_model(row("nic.busy-poll-exit-swint", "ice")));
  EXPECT_FALSE(applies_to_model(row("nic.swint-itr", "ice")));
}

}  // namespace
}  // namespace irqmod::napi
