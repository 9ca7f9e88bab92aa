#include "irqmod/sweep/apply.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace irqmod::sweep {
namespace {

bool has_line(const std::vector<std::string>& lines, std::string_view part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

// A scenario on `platform` with nothing else set, loaded as a file under scenarios/ would be (so
// that platforms/ is found).
sim::Scenario on_platform(const std::string& platform) {
  const std::string text = "platform = \"" + platform + "\"\n";
  auto loaded = sim::load_scenario_text(text, IRQMOD_SCENARIO_DIR "/platform-probe.toml");
  EXPECT_TRUE(loaded) << platform << ": " << loaded.error().what();
  return loaded ? loaded.value() : sim::default_scenario();
}

TEST(Apply, CommandsCarryTheScenariosSettings) {
  sim::Scenario s = sim::default_scenario();
  s.nic.moderation = sim::Moderation::coalesce;
  s.nic.rx_usecs = 24;
  s.napi.busy_read = std::chrono::microseconds(50);
  s.napi.defer_hard_irqs = 2;
  s.napi.gro_flush_timeout = std::chrono::microseconds(20);
  s.napi.irq_suspend_timeout = std::chrono::milliseconds(2);
  const Vocabulary v = vocabulary_of(s);
  EXPECT_EQ(v.driver, "i40e");
  const ApplyPlan plan = apply_plan(s, "eth1", v);
  const std::vector<std::string> want{
      "ethtool -C eth1 adaptive-rx off rx-usecs 24",  // i40e has no rx-frames
      "sysctl -w net.core.busy_read=50",
      "sysctl -w net.core.busy_poll=0",
      "echo 2 > /sys/class/net/eth1/napi_defer_hard_irqs",
      "echo 20000 > /sys/class/net/eth1/gro_flush_timeout",
      "irqmod napi set --dev eth1 --irq-suspend-timeout 2000000"};
  for (const std::string& line : want)
    EXPECT_TRUE(has_line(plan.commands, line)) << line;
  EXPECT_TRUE(plan.left_out.empty());
}

TEST(Apply, AdaptiveRxIsTheDriversMechanism) {
  // i40e: adaptive-rx is its adaptive ITR, the start value set first (i40e refuses a new
  // rx-usecs while adaptive-rx is on); net_dim is not i40e's (the example).
  sim::Scenario s = sim::default_scenario();
  s.nic.moderation = sim::Moderation::adaptive_itr;
  s.nic.adaptive_rx = true;
  s.nic.rx_usecs = 24;
  const Vocabulary i40e = vocabulary_of(s);
  ApplyPlan plan = apply_plan(s, "eth1", i40e);
  ASSERT_GE(plan.commands.size(), 2u);
  EXPECT_EQ(plan.commands[0], "ethtool -C eth1 adaptive-rx off rx-usecs 24");
  EXPECT_EQ(plan.commands[1], "ethtool -C eth1 adaptive-rx on");
  s.nic.moderation = sim::Moderation::dim;
  plan = apply_plan(s, "eth1", i40e);
  EXPECT_FALSE(has_line(plan.commands, "ethtool"));
  EXPECT_TRUE(has_line(plan.left_out, "nic.moderation=dim: i40e has no net_dim"));
  // mlx5 (a scenario of its own net_dim with mlx5's glue): net_dim is adaptive-rx, i40e's
  // adaptive ITR is not its.
  const Vocabulary mlx5 = vocabulary_of(s);
  EXPECT_EQ(mlx5.driver, "mlx5");
  plan = apply_plan(s, "eth1", mlx5);
  EXPECT_EQ(plan.commands[0], "ethtool -C eth1 adaptive-rx on");
  s.nic.moderation = sim::Moderation::adaptive_itr;
  EXPECT_TRUE(has_line(apply_plan(s, "eth1", mlx5).left_out, "mlx5 has no Intel adaptive ITR"));
  // Coalescing with rx-frames where the driver has them.
  s.nic.moderation = sim::Moderation::coalesce;
  s.nic.adaptive_rx = false;
  s.nic.rx_frames = 16;
  EXPECT_EQ(apply_plan(s, "eth1", mlx5).commands[0],
            "ethtool -C eth1 adaptive-rx off rx-usecs 24 rx-frames 16");
  plan = apply_plan(s, "eth1", i40e);
  EXPECT_FALSE(has_line(plan.commands, "ethtool"));
  EXPECT_TRUE(has_line(plan.left_out, "nic.rx-frames=16: i40e has no rx-frames"));
}

TEST(Apply, AKnobTheKernelLacksIsNotPrinted) {
  sim::Scenario s = sim::default_scenario();
  s.napi.defer_hard_irqs = 2;
  s.napi.prefer_busy_poll = true;
  s.napi.threaded = true;
  for (const auto& [kernel, missing] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"", {}},
           {"6.13", {}},
           {"6.1", {"irq-suspend-timeout"}},
           {"5.10", {"irq-suspend-timeout", "SO_PREFER_BUSY_POLL", "/threaded"}},
           {"5.4",
            {"irq-suspend-timeout", "SO_PREFER_BUSY_POLL", "/threaded", "napi_defer_hard_irqs"}}}) {
    s.kernel = kernel;
    const ApplyPlan plan = apply_plan(s, "eth1", vocabulary_of(s));
    for (const char* line : {"irq-suspend-timeout", "SO_PREFER_BUSY_POLL", "/threaded",
                             "napi_defer_hard_irqs", "busy_read", "gro_flush_timeout"}) {
      const bool lacking = std::find(missing.begin(), missing.end(), line) != missing.end();
      EXPECT_EQ(has_line(plan.commands, line), !lacking) << "Linux " << kernel << ": " << line;
    }
    EXPECT_EQ(plan.left_out.size(), missing.size()) << kernel;
    if (kernel == "6.1") {
      EXPECT_EQ(
          plan.left_out[0].rfind("napi.irq_suspend_timeout: Linux 6.1 has no IRQ suspension", 0),
          0u)
          << plan.left_out[0];
    }
  }
}

TEST(Apply, ASearchedValueWithoutEffectIsLeftOutAndSaid) {
  sim::Scenario s = sim::default_scenario();
  s.nic.rx_usecs = 30;
  s.napi.gro_flush_timeout = std::chrono::microseconds(100);
  const ApplyPlan plan =
      apply_plan(s, "eth0", vocabulary_of(s), {"napi.gro_flush_timeout=100us", "nic.rx-usecs=30"});
  EXPECT_FALSE(has_line(plan.commands, "gro_flush_timeout"));
  EXPECT_TRUE(has_line(plan.commands, "ethtool -C eth0 adaptive-rx off"));
  EXPECT_FALSE(has_line(plan.commands, "rx-usecs 30"));
  EXPECT_TRUE(has_line(plan.left_out, "napi.gro_flush_timeout=100us: its value changes nothing"));
  EXPECT_TRUE(has_line(plan.left_out, "nic.rx-usecs=30: its value changes nothing"));
}

// Every platform the project ships, with the host and driver its scenario keys give, and every
// moderation and NAPI setting on kernels old and new: no command for a knob the host, its driver
// or its kernel lacks, and each one left out says why. A new platform must be added here.
TEST(Apply, EveryShippedPlatformGetsOnlyItsHostsVocabulary) {
  const std::map<std::string, std::pair<Host, std::string>> expected{
      {"cortex-a72-enetc", {Host::linux_nic, "enetc"}},
      {"epyc-vm", {Host::loopback, "loopback"}},
      {"i40e-afxdp-2019", {Host::linux_nic, "i40e"}},
      // An E810 (ice) machine, but the preset does not set nic.driver = "ice": i40e's rows, and
      // the same ethtool vocabulary as ice's.
      {"ice-afxdp-2020", {Host::linux_nic, "i40e"}},
      {"x86-i40e", {Host::linux_nic, "i40e"}},
      {"xeon-e5504-openbsd", {Host::openbsd, "OpenBSD 5.x"}},
      {"xeon-nvme", {Host::linux_nic, "i40e"}},  // the preset alone: no [storage] in it
  };
  std::size_t platforms = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(IRQMOD_SCENARIO_DIR "/../platforms")) {
    if (entry.path().extension() != ".toml") continue;
    const std::string name = entry.path().stem().string();
    ++platforms;
    const auto want = expected.find(name);
    ASSERT_NE(want, expected.end()) << name << ": a platform this test does not know";
    const sim::Scenario base = on_platform(name);
    const Vocabulary v = vocabulary_of(base);
    EXPECT_EQ(v.host, want->second.first) << name;
    EXPECT_EQ(v.driver, want->second.second) << name;
    for (const sim::Moderation m :
         {sim::Moderation::none, sim::Moderation::coalesce, sim::Moderation::dim,
          sim::Moderation::adaptive_itr, sim::Moderation::itr}) {
      for (const char* kernel : {"", "5.4", "6.1", "6.13"}) {
        sim::Scenario s = base;
        s.kernel = kernel;
        Vocabulary k = v;
        k.kernel = kernel;
        s.nic.moderation = m;
        s.nic.adaptive_rx = m == sim::Moderation::adaptive_itr;
        s.nic.rx_frames = 16;
        s.napi.busy_read = std::chrono::microseconds(50);
        s.napi.defer_hard_irqs = 2;
        s.napi.irq_suspend_timeout = std::chrono::milliseconds(20);
        s.napi.prefer_busy_poll = true;
        s.napi.threaded = true;
        const ApplyPlan plan = apply_plan(s, "eth0", k);
        const std::string where =
            name + ", moderation " + std::to_string(static_cast<int>(m)) + ", Linux " + kernel;
        if (v.host != Host::linux_nic) {
          EXPECT_FALSE(has_line(plan.commands, "ethtool")) << where;
          EXPECT_FALSE(has_line(plan.commands, "/sys/class/net/")) << where;
          EXPECT_FALSE(has_line(plan.commands, "napi set")) << where;
          if (v.host == Host::openbsd) {
            EXPECT_TRUE(plan.commands.empty()) << where;
          }
          EXPECT_FALSE(plan.left_out.empty()) << where;
          continue;
        }
        // The driver's: rx-frames only where it has them, adaptive-rx on only for its own
        // mechanism, no ethtool line for a register setting.
        EXPECT_EQ(has_line(plan.commands, "rx-frames 16"),
                  v.rx_frames && m == sim::Moderation::coalesce)
            << where;
        const bool adaptive_on = has_line(plan.commands, "adaptive-rx on");
        EXPECT_EQ(adaptive_on, (m == sim::Moderation::dim && v.net_dim) ||
                                   (m == sim::Moderation::adaptive_itr && v.adaptive_itr))
            << where;
        if (m == sim::Moderation::itr) {
          EXPECT_FALSE(has_line(plan.commands, "ethtool")) << where;
        }
        // The kernel's: each feature only from its release.
        const std::string kv = kernel;
        const auto before = [&](int major, int minor) {
          if (kv.empty()) return false;
          const auto dot = kv.find('.');
          const int a = std::stoi(kv.substr(0, dot)), b = std::stoi(kv.substr(dot + 1));
          return a < major || (a == major && b < minor);
        };
        EXPECT_EQ(has_line(plan.commands, "irq-suspend-timeout"), !before(6, 13)) << where;
        EXPECT_EQ(has_line(plan.commands, "napi_defer_hard_irqs"), !before(5, 8)) << where;
        EXPECT_EQ(has_line(plan.commands, "/threaded"), !before(5, 12)) << where;
        EXPECT_EQ(has_line(plan.commands, "SO_PREFER_BUSY_POLL"), !before(5, 11)) << where;
        EXPECT_TRUE(has_line(plan.commands, "net.core.busy_read=50")) << where;
        if (before(6, 13)) {
          EXPECT_TRUE(has_line(plan.left_out, "napi.irq_suspend_timeout: Linux")) << where;
        }
      }
    }
  }
  EXPECT_EQ(platforms, expected.size());
}

TEST(Apply, AStorageRunHasNoNicCommand) {
  sim::Scenario s = sim::default_scenario();
  s.storage.drives = 4;
  const Vocabulary v = vocabulary_of(s);
  EXPECT_EQ(v.host, Host::storage);
  const ApplyPlan plan = apply_plan(s, "eth0", v);
  EXPECT_TRUE(plan.commands.empty());
  EXPECT_TRUE(has_line(plan.left_out, "a storage run has no NIC"));
}

TEST(Apply, ALabRunTunesItsOwnDevice) {
  // A veth lab run on epyc-vm (a platform with no NIC): the veth queue's NAPI knobs are printed,
  // nothing of ethtool; a loopback lab run has no NAPI context of a device at all.
  sim::Scenario s = sim::default_scenario();
  s.platform = "epyc-vm";
  s.kernel = "6.18";
  s.lab.device = sim::LabDevice::veth;
  s.napi.defer_hard_irqs = 100;
  s.napi.irq_suspend_timeout = std::chrono::milliseconds(20);
  const Vocabulary veth = vocabulary_of(s);
  EXPECT_EQ(veth.host, Host::veth);
  EXPECT_EQ(veth.driver, "veth");
  const ApplyPlan plan = apply_plan(s, "veth-srv", veth);
  EXPECT_FALSE(has_line(plan.commands, "ethtool"));
  EXPECT_TRUE(has_line(plan.commands, "echo 100 > /sys/class/net/veth-srv/napi_defer_hard_irqs"));
  EXPECT_TRUE(has_line(plan.commands, "--irq-suspend-timeout 20000000"));
  EXPECT_TRUE(lacks(veth, s, "nic.rx-usecs").has_value());
  EXPECT_FALSE(lacks(veth, s, "napi.gro_flush_timeout").has_value());

  s.lab.device = sim::LabDevice::loopback;
  const Vocabulary loopback = vocabulary_of(s);
  EXPECT_EQ(loopback.host, Host::loopback);
  EXPECT_TRUE(has_line({*lacks(loopback, s, "napi.gro_flush_timeout")}, "lab.device = loopback"));
}

}  // namespace
}  // namespace irqmod::sweep
