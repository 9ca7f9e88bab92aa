// No silent key (scenario_readers.cpp): every key the schema says a kind of run does not read is
// refused in a run of that kind, by name, whatever its value; the keys a platform sets for another
// path are the machine's and pass; a run's "constant inputs" count only what it draws.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"
#include "sim/scenario_values.hpp"

namespace irqmod::sim {
namespace {

// One small scenario per kind of run; each loads as it is.
struct KindBase {
  RunKind kind;
  const char* text;
};
constexpr KindBase kKindBases[] = {
    {RunKind::nic, "[scenario]\nduration = \"1ms\"\n"},
    {RunKind::xdp, "[scenario]\nduration = \"1ms\"\n[xdp]\napp = \"rxdrop\"\n"},
    {RunKind::storage, "[scenario]\nduration = \"1ms\"\n[storage]\ndrives = 1\n"},
    {RunKind::lab, "[scenario]\nduration = \"1ms\"\n[lab]\ndevice = \"veth\"\n[cpu]\ncores = 2\n"},
};

// Values to try for a key, in --set syntax: the first that parses and differs from the default is
// the one set.
std::vector<std::string> candidates(const KeySpec& spec) {
  switch (spec.kind) {
    case ValueKind::boolean:
      return {"true", "false"};
    case ValueKind::choice: {
      std::vector<std::string> words;
      for (const std::string_view w : detail::choices_of(spec))
        words.emplace_back(w);
      return words;
    }
    case ValueKind::duration:
      return {std::to_string(spec.min) + "ns", std::to_string(spec.max) + "ns",
              std::to_string(spec.min + 1) + "ns"};
    case ValueKind::bitrate:
      return {std::to_string(spec.min / 1'000'000), std::to_string(spec.max / 1'000'000)};
    case ValueKind::text:
      return {"\"readers\""};
    case ValueKind::path:
      return {"\"readers.pcap\""};
    case ValueKind::cpu_list:
      return {"\"1\"", "\"0\""};
    case ValueKind::distribution:
      return {"7ns", "9ns"};
    case ValueKind::integer:
      break;
  }
  return {std::to_string(spec.min), std::to_string(spec.max), std::to_string(spec.min + 1)};
}

// "KEY=VALUE" with a value of `spec` other than `base`'s, or "" when none of the candidates is.
std::string other_value(const KeySpec& spec, const Scenario& base) {
  for (const std::string& text : candidates(spec)) {
    Scenario changed = base;
    const std::string assignment = std::string(spec.name) + "=" + text;
    if (apply_override(changed, assignment)) continue;  // out of range
    if (spec.binding.load(changed, 0) != spec.binding.load(base, 0)) return assignment;
  }
  return "";
}

TEST(readers, every_kind_of_run_has_a_base_that_loads) {
  for (const KindBase& b : kKindBases) {
    const LoadResult r = test::load(b.text);
    ASSERT_TRUE(r.ok()) << b.text << (r.ok() ? "" : r.error().what());
    EXPECT_EQ(run_kind(r.value()), b.kind) << b.text;
  }
}

TEST(readers, every_key_is_read_by_some_kind_of_run) {
  for (const KeySpec& spec : schema())
    EXPECT_FALSE(spec.readers.empty()) << spec.name;
}

TEST(readers, every_key_a_kind_does_not_read_is_refused_by_name_in_a_run_of_that_kind) {
  for (const KindBase& b : kKindBases) {
    const Scenario base = test::loaded(b.text);
    std::size_t refused = 0;
    for (const KeySpec& spec : schema()) {
      if (spec.readers.has(b.kind) || detail::is_entry_key(spec)) continue;
      const std::string assignment = other_value(spec, base);
      ASSERT_FALSE(assignment.empty()) << spec.name;
      Scenario changed = base;
      ASSERT_FALSE(apply_override(changed, assignment).has_value()) << assignment;
      if (run_kind(changed) != b.kind) continue;  // a selector: a run of another kind
      const LoadResult r = test::load(b.text, {assignment});
      ASSERT_FALSE(r.ok()) << describe(b.kind) << " accepted " << assignment;
      EXPECT_EQ(r.error().error.key, spec.name) << r.error().what();
      EXPECT_EQ(r.error().error.message.rfind("is not read by " + std::string(describe(b.kind)), 0),
                0U)
          << r.error().what();
      ++refused;
    }
    // Most keys belong to one model: each kind leaves dozens unread.
    EXPECT_GE(refused, 20U) << describe(b.kind);
  }
}

TEST(readers, the_refusal_names_the_kinds_that_read_the_key) {
  const std::string e = test::error_of(kKindBases[1].text, {"nic.moderation=dim"});
  EXPECT_EQ(
      e,
      "test.toml: nic.moderation: is not read by an AF_XDP run (xdp.app set): its one "
      "queue pair is driven by the xsk rings and one xdpsock thread, fed by constant-rate "
      "frames, without warm-up or rate search; it is read by a NIC run; allowed: the default");
  EXPECT_NE(test::error_of(kKindBases[0].text, {"lab.rate=100"})
                .find("lab.rate: is not read by a NIC run: it models the network host: the NIC's "
                      "queues and vectors, NAPI and the kernel stack; it is read by a lab run "
                      "(lab.device set)"),
            std::string::npos);
  EXPECT_NE(test::error_of(kKindBases[0].text, {"cpu.veth-poll=1us"})
                .find("cpu.veth-poll: is not read by a NIC run"),
            std::string::npos);
}

TEST(readers, keys_a_kind_reads_are_accepted_there) {
  // The other side of the refusals: one key each kind reads, set, loads.
  EXPECT_TRUE(test::load(kKindBases[0].text, {"nic.moderation=dim"}).ok());
  EXPECT_TRUE(test::load(kKindBases[1].text, {"xdp.batch=32"}).ok());
  EXPECT_TRUE(test::load(kKindBases[2].text, {"storage.queue-depth=4"}).ok());
  EXPECT_TRUE(test::load(kKindBases[3].text, {"lab.rate=1000", "lab.client=load"}).ok());
}

TEST(readers, repeated_tables_are_refused_where_the_run_has_one_of_each) {
  const std::string flow = "[[flow]]\nrate = 1000\n";
  const std::string thread = "[[thread]]\ncore = 0\n";
  const std::string queue = "[napi.queue.0]\ngro_flush_timeout = 1000\n";
  for (const KindBase& b : kKindBases) {
    const bool nic = b.kind == RunKind::nic;
    for (const auto& [table, key] :
         {std::pair{flow, "flow"}, std::pair{thread, "thread"}, std::pair{queue, "napi.queue.0"}}) {
      const LoadResult r = test::load(std::string(b.text) + table);
      EXPECT_EQ(r.ok(), nic) << describe(b.kind) << ": " << table;
      if (!r.ok()) {
        EXPECT_EQ(r.error().error.key, key) << r.error().what();
      }
    }
  }
  // The per-NAPI keys of the schema say the same as the [napi.queue.N] table's check.
  for (const KeySpec& spec : schema()) {
    if (detail::is_queue_key(spec)) {
      EXPECT_EQ(spec.readers, RunKinds(RunKind::nic)) << spec.name;
    }
  }
}

TEST(readers, a_platforms_keys_for_another_path_are_the_machines_but_the_files_are_refused) {
  // i40e-afxdp-2019 is an AF_XDP machine: it sets nic.xdp-tx-irq = true and xdp-tx-clean-budget =
  // 256, which a NIC run does not read; the platform describes the machine, so a NIC run on it
  // loads. Another value than the platform's (and the default's) is the scenario's: refused.
  const std::string file = std::string(IRQMOD_SCENARIO_DIR) + "/readers-probe.toml";
  const std::string text = "platform = \"i40e-afxdp-2019\"\n[scenario]\nduration = \"1ms\"\n";
  const LoadResult on_platform = load_scenario_text(text, file);
  ASSERT_TRUE(on_platform.ok()) << on_platform.error().what();
  ASSERT_TRUE(on_platform->nic.xdp_tx_irq);
  ASSERT_EQ(on_platform->nic.xdp_tx_clean_budget, 256U);
  const std::vector<std::string> sets = {"nic.xdp-tx-clean-budget=64"};
  const LoadResult changed = load_scenario_text(text, file, sets);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.error().error.key, "nic.xdp-tx-clean-budget");
  // Set by the file itself (no platform sets it), the same value is refused at its line.
  const LoadResult on_none =
      load_scenario_text("platform = \"none\"\n[nic]\nxdp-tx-irq = true\n", file);
  ASSERT_FALSE(on_none.ok());
  EXPECT_EQ(on_none.error().line, 3U);
}

// A platform directory of its own, for IRQMOD_PLATFORM_PATH; removed at the end.
class JitterPlatform : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("irqmod-readers-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    // An AF_XDP cost drawn from a range: a NIC run never charges it.
    std::ofstream(dir_ / "jitter-xdp.toml") << "[cpu]\nsocket-call = \"uniform(30ns, 90ns)\"\n";
    ASSERT_EQ(::setenv("IRQMOD_PLATFORM_PATH", dir_.c_str(), 1), 0);
  }
  void TearDown() override {
    ::unsetenv("IRQMOD_PLATFORM_PATH");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(JitterPlatform, a_cost_the_run_does_not_draw_leaves_its_inputs_constant) {
  const std::string text =
      "platform = \"jitter-xdp\"\n[scenario]\nduration = \"2ms\"\n[traffic]\nrate = 100000\n";
  const LoadResult plain = load_scenario_text(text, "readers.toml");
  ASSERT_TRUE(plain.ok()) << plain.error().what();
  EXPECT_TRUE(test::run(plain.value()).constant_inputs);  // socket-call: not a NIC run's cost
  const LoadResult drawn =
      load_scenario_text(text + "[cpu]\nrx-packet = \"uniform(50ns, 70ns)\"\n", "readers.toml");
  ASSERT_TRUE(drawn.ok()) << drawn.error().what();
  EXPECT_FALSE(test::run(drawn.value()).constant_inputs);
}

}  // namespace
}  // namespace irqmod::sim
