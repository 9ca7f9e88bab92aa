// Scenario files: the schema's defaults, every error kind with file and line, --set, the
// cross-key checks through the policy validators, and the round trip through write_toml.
#include "irqmod/sim/scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

LoadResult load(std::string_view text, std::vector<std::string> overrides = {}) {
  return load_scenario_text(text, "test.toml", test::costs_only(text, overrides));
}

std::string error_of(std::string_view text, std::vector<std::string> overrides = {}) {
  const LoadResult r = load(text, std::move(overrides));
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? std::string() : r.error().what();
}

TEST(scenario, every_key_is_declared_once_with_a_default_that_parses_and_a_source) {
  std::set<std::string_view> names;
  for (const KeySpec& spec : schema()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_FALSE(spec.source.empty()) << spec.name;
    EXPECT_LE(spec.min, spec.max) << spec.name;
    Scenario s;
    std::string key(spec.name);
    std::string value(spec.default_value);
    if (key.rfind("thread.", 0) == 0) {  // an array entry's key: [[thread]] 1
      s.threads.emplace_back();
      key = "thread.1." + key.substr(7);
    }
    if (key.rfind("napi.queue.N.", 0) == 0) {  // a per-NAPI key: unset, the device-wide default
      EXPECT_TRUE(value.empty()) << spec.name;
      key = "napi.queue.0." + key.substr(13);
      value = find_key("napi." + key.substr(13))->default_value;
    }
    const auto d = apply_override(s, key + "=" + value);
    EXPECT_FALSE(d.has_value()) << spec.name << ": " << (d ? d->what() : "");
  }
  EXPECT_FALSE(validate(default_scenario()).has_value());
}

TEST(scenario, defaults_are_the_documented_kernel_and_driver_values) {
  const Scenario s = default_scenario();
  EXPECT_EQ(s.scenario.duration, seconds(1));
  EXPECT_EQ(s.link.speed_bps, 10'000'000'000u);
  EXPECT_EQ(s.traffic.size, 64u);
  EXPECT_EQ(s.nic.rx_ring, 512u);
  EXPECT_EQ(s.nic.rx_usecs, 50u);
  EXPECT_EQ(s.nic.moderation, Moderation::coalesce);
  EXPECT_EQ(s.nic.lli_interval, microseconds(60));
  EXPECT_EQ(s.napi.weight, 64u);
  EXPECT_EQ(s.napi.netdev_budget, 300u);
  EXPECT_EQ(s.napi.netdev_budget_usecs, microseconds(2000));
  EXPECT_EQ(s.napi.busy_poll_budget, 8u);
  EXPECT_EQ(s.napi.busy_read, Duration::zero());
}

TEST(scenario, loads_every_value_kind_with_units_where_they_apply) {
  const LoadResult r = load(R"(
[scenario]
name = "seed-000 before the fix"
duration = "120s"
seed = 42

[link]
speed = 25000            # Mbit/s, as ethtool reports it

[traffic]
kind = "ping-pong"
msg-size = 1000
mps = 0

[nic]
moderation = "adaptive-itr"
rx-usecs = 50
adaptive-rx = "on"
busy-poll-exit-swint = false
dma-delay = "1.5us"

[napi]
busy_read = 50           # us, as the sysctl
busy_poll = "50us"
gro_flush_timeout = 20000  # ns, as sysfs
napi_defer_hard_irqs = 2

[cpu]
cores = 2
app-core = 1
busy-poll-iteration = "100ns"
)");
  ASSERT_TRUE(r.ok()) << r.error().what();
  const Scenario& s = r.value();
  EXPECT_EQ(s.scenario.name, "seed-000 before the fix");
  EXPECT_EQ(s.scenario.duration, seconds(120));
  EXPECT_EQ(s.scenario.seed, 42u);
  EXPECT_EQ(s.link.speed_bps, 25'000'000'000u);
  EXPECT_EQ(s.traffic.kind, TrafficKind::ping_pong);
  EXPECT_EQ(s.traffic.msg_size, 1000u);
  EXPECT_EQ(s.nic.moderation, Moderation::adaptive_itr);
  EXPECT_TRUE(s.nic.adaptive_rx);
  EXPECT_FALSE(s.nic.busy_poll_exit_swint);
  EXPECT_EQ(s.nic.dma_delay, nanoseconds(1500));
  EXPECT_EQ(s.napi.busy_read, microseconds(50));
  EXPECT_EQ(s.napi.busy_poll, microseconds(50));
  EXPECT_EQ(s.napi.gro_flush_timeout, nanoseconds(20000));
  EXPECT_EQ(s.napi.defer_hard_irqs, 2u);
  EXPECT_EQ(s.cpu.app_core, 1u);
}

TEST(scenario, the_name_defaults_to_the_files_stem) {
  const LoadResult r = load_scenario_text("", "scenarios/seed-004-lli.toml",
                                          std::vector<std::string>{"platform=none"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->scenario.name, "seed-004-lli");
}

TEST(scenario, an_unknown_key_names_file_line_and_the_close_key) {
  EXPECT_EQ(error_of("[nic]\nrx-ring = 256\nrx-usec = 5\n"),
            "test.toml:3: nic.rx-usec: unknown key; did you mean nic.rx-usecs?");
  // '-' and '_' are interchangeable for the suggestion: sysctl names use '_'.
  EXPECT_EQ(error_of("[napi]\nbusy-read = 50\n"),
            "test.toml:2: napi.busy-read: unknown key; did you mean napi.busy_read?");
}

TEST(scenario, an_unknown_key_with_nothing_close_lists_its_sections_keys) {
  const std::string e = error_of("[link]\nflux-capacitor = 1\n");
  EXPECT_EQ(e, "test.toml:2: link.flux-capacitor: unknown key; allowed in [link]: speed");
}

TEST(scenario, an_unknown_section_and_a_key_outside_sections_are_errors) {
  EXPECT_EQ(
      error_of("\n[nics]\nrx-ring = 5\n"),
      "test.toml:2: nics: unknown section; did you mean [nic]?; allowed: scenario, link, "
      "traffic, nic, napi, cpu, search, storage, xdp, lab, [[thread]], [[flow]], [[seed_row]], "
      "[[variant]]");
  EXPECT_NE(
      error_of("duration = \"1s\"\n").find("test.toml:1: duration: a key outside any section"),
      std::string::npos);
  EXPECT_NE(error_of("[[nic]]\nrx-ring = 5\n").find("expected a section [nic]; got an array"),
            std::string::npos);
}

TEST(scenario, a_wrong_type_says_what_is_expected_and_what_was_found) {
  EXPECT_EQ(error_of("[nic]\n\nrx-usecs = \"fast\"\n"),
            "test.toml:3: nic.rx-usecs: expected an integer from 0 us to 4294967295 us; got a "
            "string 'fast'");
  EXPECT_NE(error_of("[traffic]\nrate = 1.5e6\n")
                .find("test.toml:2: traffic.rate: expected an integer from 0 frames/s"),
            std::string::npos);
  EXPECT_NE(error_of("[napi]\nprefer_busy_poll = 1\n")
                .find("napi.prefer_busy_poll: expected true or false"),
            std::string::npos);
  EXPECT_NE(error_of("[scenario]\nduration = \"1 fortnight\"\n")
                .find("scenario.duration: expected a duration from 1ns to 3600 s"),
            std::string::npos);
}

TEST(scenario, an_out_of_range_value_names_the_bounds_in_the_keys_unit) {
  EXPECT_EQ(error_of("[traffic]\nsize = 10000\n"),
            "test.toml:2: traffic.size: 10000 is out of range; allowed: 64 bytes to 9216 bytes");
  EXPECT_EQ(error_of("[link]\nspeed = \"5M\"\n"),
            "test.toml:2: link.speed: 5M is out of range; allowed: 10Mbit/s to 800Gbit/s");
  EXPECT_EQ(error_of("[nic]\nlli-interval = 64\n"),
            "test.toml:2: nic.lli-interval: 64us is out of range; allowed: 0 us to 60 us");
  EXPECT_EQ(error_of("[scenario]\nseed = -1\n"),
            "test.toml:2: scenario.seed: -1 is out of range; allowed: 0 to 9223372036854775807");
}

TEST(scenario, a_choice_outside_the_list_suggests_the_close_one) {
  EXPECT_EQ(error_of("[traffic]\nkind = \"posson\"\n"),
            "test.toml:2: traffic.kind: 'posson' is not allowed; did you mean 'poisson'?; "
            "allowed: constant, poisson, on-off, ping-pong, request-response, pcap, tcp-maerts, "
            "tcp-stream, ping");
}

TEST(scenario, toml_syntax_errors_carry_their_line) {
  const std::string e = error_of("[nic]\nrx-usecs = 5\nrx-frames = = 3\n");
  EXPECT_EQ(e.rfind("test.toml:3: TOML syntax: ", 0), 0u) << e;
}

TEST(scenario, set_overrides_apply_after_the_file_with_the_same_checks) {
  const LoadResult r =
      load("[nic]\nrx-usecs = 10\n",
           {"nic.rx-usecs=20", "link.speed=40G", "traffic.kind=poisson", "traffic.rate=1_000_000",
            "napi.busy_read=50", "cpu.busy-poll-iteration=100", "nic.adaptive-rx=off",
            "scenario.name=\"quoted name\""});
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ(r->nic.rx_usecs, 20u);
  EXPECT_EQ(r->link.speed_bps, 40'000'000'000u);
  EXPECT_EQ(r->traffic.kind, TrafficKind::poisson);
  EXPECT_EQ(r->traffic.rate, 1'000'000u);
  EXPECT_EQ(r->napi.busy_read, microseconds(50));
  EXPECT_EQ(r->scenario.name, "quoted name");

  EXPECT_EQ(error_of("", {"nic.rx-usecs=-3"}),
            "--set: nic.rx-usecs: -3 is out of range; allowed: 0 us to 4294967295 us");
  EXPECT_EQ(error_of("", {"nic.rx_usecs=3"}),
            "--set: nic.rx_usecs: unknown key; did you mean nic.rx-usecs?");
  EXPECT_EQ(
      error_of("", {"traffic.kind=burst"}).rfind("--set: traffic.kind: 'burst' is not allowed", 0),
      0u);
  EXPECT_EQ(error_of("", {"nic.rx-usecs"}).rfind("--set: '", 0), 0u);
  // A duration without a unit is in the key's unit, on the command line as in the file.
  const LoadResult bare = load("", {"scenario.duration=12"});
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->scenario.duration, seconds(12));
}

TEST(scenario, cross_key_checks_use_the_policy_validators_and_point_at_the_line) {
  // enetc's pair (i40e and ice take rx-usecs 0 as throttling off: simulation_test).
  EXPECT_EQ(error_of("[nic]\nmoderation = \"coalesce\"\nrx-usecs = 0\nrx-frames = 0\n"
                     "driver = \"enetc\"\n")
                .rfind("test.toml:3: nic.rx-usecs: rx-usecs and rx-frames are both 0", 0),
            0u);
  EXPECT_EQ(error_of("[nic]\nmoderation = \"itr\"\nitr-device = \"82600\"\n")
                .rfind("test.toml:3: nic.itr-device: unknown device '82600'", 0),
            0u);
  EXPECT_EQ(error_of("[nic]\nmoderation = \"lli\"\nlli-interval = \"50us\"\n")
                .rfind("test.toml:3: nic.lli-interval: ", 0),
            0u);
  EXPECT_EQ(error_of("[nic]\nmoderation = \"adaptive-itr\"\nrx-usecs = 9000\n")
                .rfind("test.toml:3: nic.rx-usecs: 9000", 0),
            0u);
  EXPECT_EQ(error_of("[traffic]\nkind = \"pcap\"\n"),
            "test.toml: traffic.pcap: traffic.kind = \"pcap\" needs a capture file; allowed: a "
            "path");
  EXPECT_NE(error_of("[traffic]\nkind = \"on-off\"\n").find("traffic.on-time"), std::string::npos);
  EXPECT_NE(error_of("[traffic]\nkind = \"poisson\"\n").find("traffic.rate"), std::string::npos);
  EXPECT_EQ(error_of("[cpu]\ncores = 2\nirq-cores = \"0-2\"\n"),
            "test.toml:3: cpu.irq-cores: 2 is not a core; allowed: 0 to 1 (cpu.cores = 2)");
}

// No silent default for the physics: a scenario names its platform, or "none" for its own costs
// only (issue 30, item 2).
TEST(scenario, a_scenario_without_a_platform_is_refused_and_none_keeps_only_its_own_costs) {
  const LoadResult bare = load_scenario_text("[cpu]\nsyscall = 150\n", "test.toml");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().what().rfind("test.toml: platform: the scenario names no platform, so "
                                      "every machine cost it does not set",
                                      0),
            0u)
      << bare.error().what();
  EXPECT_NE(bare.error().what().find("or platform = \"none\""), std::string::npos);
  const LoadResult none =
      load_scenario_text("platform = \"none\"\n[cpu]\nsyscall = 150\n", "test.toml");
  ASSERT_TRUE(none.ok()) << none.error().what();
  EXPECT_EQ(none->platform, "none");
  EXPECT_NE(none->cpu.syscall, default_scenario().cpu.syscall);      // the file's 150 ns
  EXPECT_EQ(none->cpu.irq_entry, default_scenario().cpu.irq_entry);  // 0: not charged
  // --set platform=none stands for the line; a platform named on the command line is applied.
  const std::vector<std::string> set_none{"platform=none"};
  EXPECT_TRUE(load_scenario_text("[cpu]\nsyscall = 150\n", "test.toml", set_none).ok());
  const std::vector<std::string> set_preset{"platform=x86-i40e"};
  const LoadResult preset = load_scenario_text(
      "[cpu]\nsyscall = 150\n", std::string(IRQMOD_SCENARIO_DIR) + "/probe.toml", set_preset);
  ASSERT_TRUE(preset.ok()) << preset.error().what();
  EXPECT_NE(preset->cpu.irq_entry, default_scenario().cpu.irq_entry);
}

TEST(scenario, write_toml_loads_back_to_the_same_scenario) {
  Scenario s = default_scenario();
  s.platform = std::string(kNoPlatform);
  s.scenario.name = "tab\there \"quoted\" back\\slash \x7f";
  s.scenario.duration = nanoseconds(1'234'567);
  s.link.speed_bps = 2'500'000'000;
  s.traffic.kind = TrafficKind::on_off;
  s.traffic.on_time = microseconds(10);
  s.nic.moderation = Moderation::lli;
  s.napi.gro_flush_timeout = nanoseconds(1);
  std::ostringstream text;
  write_toml(text, s);
  const LoadResult back = load(text.str());
  ASSERT_TRUE(back.ok()) << back.error().what() << "\n" << text.str();
  EXPECT_EQ(back.value(), s);
  EXPECT_NE(text.str().find("[napi]\nweight = 64\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("speed = \"2500M\"\n"), std::string::npos);
}

TEST(scenario, a_missing_file_is_an_error_naming_it) {
  const LoadResult r = load_scenario_file("/nonexistent/irqmod.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().what().rfind("/nonexistent/irqmod.toml: cannot read the file: ", 0), 0u);
}

TEST(scenario, suggestions_need_a_close_match) {
  EXPECT_EQ(suggest_key("nic.rx-ringg"), "nic.rx-ring");
  EXPECT_FALSE(suggest_key("totally.unrelated").has_value());
}

}  // namespace
}  // namespace irqmod::sim

namespace irqmod::sim {
namespace {

TEST(scenario_platform, a_platform_sets_its_keys_before_the_files_own) {
  const LoadResult r = load("platform = \"x86-i40e\"\n[cpu]\nrx-packet = 900\n");
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ(r->platform, "x86-i40e");
  EXPECT_EQ(r->cpu.irq_entry, Distribution::constant_ns(250));  // from platforms/x86-i40e.toml
  EXPECT_EQ(r->nic.dma_delay, nanoseconds(800));
  EXPECT_EQ(r->cpu.rx_packet, Distribution::constant_ns(900));  // the scenario's own value wins
  // --set platform replaces the file's, and --set keys come last.
  const LoadResult other =
      load("platform = \"x86-i40e\"\n", {"platform=epyc-vm", "cpu.syscall=99"});
  ASSERT_TRUE(other.ok()) << other.error().what();
  EXPECT_EQ(other->platform, "epyc-vm");
  EXPECT_EQ(other->cpu.irq_entry, Distribution::constant_ns(0));
  EXPECT_NE(other->cpu.napi_poll, Distribution::constant_ns(0));  // calibrate's measurement
  EXPECT_EQ(other->cpu.syscall, Distribution::constant_ns(99));
}

TEST(scenario_platform, an_unknown_platform_names_what_there_is) {
  const std::string e = error_of("platform = \"x86-i41e\"\n");
  EXPECT_EQ(e.rfind("test.toml:1: platform: no platform 'x86-i41e' (x86-i41e.toml)", 0), 0u) << e;
  EXPECT_NE(e.find("allowed: cortex-a72-enetc, epyc-vm, i40e-afxdp-2019, ice-afxdp-2020, x86-i40e, "
                   "xeon-e5504-openbsd"),
            std::string::npos)
      << e;
  EXPECT_NE(error_of("platform = \"../etc/passwd\"\n").find("is not a platform name"),
            std::string::npos);
  EXPECT_NE(error_of("platform = 3\n").find("expected a platform name"), std::string::npos);
}

TEST(scenario_platform, a_platform_file_describes_the_machine_only) {
  const std::string dir = ::testing::TempDir() + "irqmod-platforms";
  std::filesystem::create_directories(dir + "/platforms");
  std::ofstream(dir + "/platforms/odd.toml") << "[cpu]\nrx-packet = 5\n[traffic]\nrate = 9\n";
  std::ofstream(dir + "/platforms/typo.toml") << "[cpu]\nrx-pakcet = 5\n";
  std::ofstream(dir + "/s.toml") << "platform = \"odd\"\n";
  const LoadResult odd = load_scenario_file(dir + "/s.toml");
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().what(), dir +
                                    "/platforms/odd.toml:3: traffic: a platform file sets the "
                                    "machine only; allowed: [link], [nic], [napi], [cpu]");
  std::ofstream(dir + "/t.toml") << "platform = \"typo\"\n";
  const LoadResult typo = load_scenario_file(dir + "/t.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().what(), dir +
                                     "/platforms/typo.toml:2: cpu.rx-pakcet: unknown key; did "
                                     "you mean cpu.rx-packet?");
}

TEST(scenario_arrays, flows_and_threads_are_entries_with_their_own_keys) {
  const LoadResult r = load(R"(
[traffic]
kind = "constant"
rate = 1000
[[flow]]
kind = "poisson"
rate = 2000
thread = 1
[[flow]]
kind = "ping-pong"
[[thread]]
core = 1
wait = "epoll"
[cpu]
cores = 2
)",
                            {"flow.2.mps=500", "thread.1.wait=adaptive-poll"});
  ASSERT_TRUE(r.ok()) << r.error().what();
  ASSERT_EQ(r->flows.size(), 2u);
  EXPECT_EQ(r->traffic.rate, 1000u);
  EXPECT_EQ(r->flows[0].kind, TrafficKind::poisson);
  EXPECT_EQ(r->flows[0].rate, 2000u);
  EXPECT_EQ(r->flows[0].thread, 1u);
  EXPECT_EQ(r->flows[0].size, 64u);  // unset keys of an entry take the schema's defaults
  EXPECT_EQ(r->flows[1].kind, TrafficKind::ping_pong);
  EXPECT_EQ(r->flows[1].mps, 500u);
  ASSERT_EQ(r->threads.size(), 1u);
  EXPECT_EQ(r->threads[0].core, 1u);
  EXPECT_EQ(r->threads[0].wait, Wait::adaptive_poll);
  // Written out and loaded back, entries and all.
  std::ostringstream text;
  write_toml(text, r.value());
  const LoadResult back = load(text.str());
  ASSERT_TRUE(back.ok()) << back.error().what() << "\n" << text.str();
  EXPECT_EQ(back.value(), r.value());
}

TEST(scenario_arrays, errors_in_entries_name_the_entry) {
  EXPECT_EQ(error_of("[[flow]]\nrate = 1\n[[flow]]\nratee = 1\n"),
            "test.toml:4: flow.2.ratee: unknown key; did you mean rate?");
  EXPECT_EQ(error_of("[[flow]]\nkind = \"poisson\"\n"),
            "test.toml: flow.1.rate: flow.1.kind = \"poisson\" needs an average rate; allowed: 1 "
            "frame/s or more");
  EXPECT_EQ(error_of("[[flow]]\nthread = 2\n[[thread]]\n"),
            "test.toml:2: flow.1.thread: 2 is not a thread; allowed: 0 to 1 (thread 0 and 1 "
            "[[thread]] entries)");
  EXPECT_EQ(error_of("[[thread]]\ncore = 3\n"),
            "test.toml:2: thread.1.core: 3 is not a core; allowed: 0 to 0 (cpu.cores = 1)");
  EXPECT_NE(error_of("[thread]\ncore = 1\n").find("expected [[thread]] tables"), std::string::npos);
  EXPECT_EQ(error_of("", {"flow.1.rate=5"}),
            "--set: flow.1.rate: there is no [[flow]] 1; allowed: 1 to 0 (the scenario has 0; "
            "[traffic] is flow 0)");
  EXPECT_EQ(error_of("", {"thread.core=1"}).rfind("--set: thread.core: unknown key", 0), 0u);
  EXPECT_EQ(error_of("[nic]\nqueues = 2\n[traffic]\nsteering = \"queue\"\nqueue = 2\n"),
            "test.toml:5: traffic.queue: 2 is not a queue; allowed: 0 to 1 (nic.queues = 2)");
}

TEST(scenario_arrays, cpu_lists_take_arrays_and_cpulists_and_print_canonically) {
  const LoadResult array = load("[cpu]\ncores = 8\nirq-cores = [0, 1, 2, 3, 6]\n");
  ASSERT_TRUE(array.ok()) << array.error().what();
  EXPECT_EQ(array->cpu.irq_cores, "0-3,6");
  const LoadResult text = load("[cpu]\ncores = 8\n", {"cpu.irq-cores=6,0-3"});
  ASSERT_TRUE(text.ok()) << text.error().what();
  EXPECT_EQ(text->cpu.irq_cores, "6,0-3");  // order kept: vector i goes to the i-th core
  EXPECT_EQ(parse_cpu_list("6,0-3").value(), (std::vector<std::uint32_t>{6, 0, 1, 2, 3}));
  EXPECT_NE(error_of("[cpu]\nirq-cores = \"3-1\"\n").find("runs backwards"), std::string::npos);
  EXPECT_NE(error_of("[cpu]\nirq-cores = \"1,1\"\n").find("names a core twice"), std::string::npos);
  EXPECT_NE(error_of("[cpu]\nirq-cores = [\"a\"]\n").find("cpu.irq-cores: expected a list"),
            std::string::npos);
  EXPECT_NE(error_of("[cpu]\nirq-cores = \"x\"\n").find("is not a cpulist"), std::string::npos);
  EXPECT_NE(error_of("[nic]\nrss-table = 500\n").find("not a power of two"), std::string::npos);
  // The RSS table's range is ethtool's indirection sizes up to 4096 (the schema's maximum).
  EXPECT_EQ(error_of("[nic]\nrss-table = 4097\n"),
            "test.toml:2: nic.rss-table: 4097 is out of range; allowed: 1 entries to 4096 entries");
  EXPECT_TRUE(load("[nic]\nrss-table = 4096\n").ok());
  // Both profile tables bad: the Rx one is named first, then the Tx one alone.
  const std::string dim_both =
      "kernel = \"6.12\"\n[nic]\nmoderation = \"dim\"\ntx-interrupts = true\n"
      "tx-moderation = \"dim\"\n";
  EXPECT_NE(
      error_of(dim_both + "rx-profile = \"x\"\ntx-profile = \"y\"\n").find(": nic.rx-profile: "),
      std::string::npos);
  EXPECT_NE(error_of(dim_both + "tx-profile = \"y\"\n").find(": nic.tx-profile: "),
            std::string::npos);
  EXPECT_EQ(error_of("[nic]\nbusy-poll-exit-swint = false\nswint-itr = 0\n"),
            "test.toml:3: nic.swint-itr: only the busy-poll exit's forced software interrupt uses "
            "it; allowed: the default, or nic.busy-poll-exit-swint = true");
  EXPECT_EQ(error_of("[traffic]\nkind = \"poisson\"\nrate = 1000\nprotocol = \"tcp\"\n"),
            "test.toml:4: traffic.protocol: traffic.kind = \"poisson\" has its own transport; "
            "allowed: \"udp\" (the default), or traffic.kind = \"ping-pong\"");
  EXPECT_EQ(error_of("[traffic]\nkind = \"ping-pong\"\nrto-min = \"100ms\"\n"),
            "test.toml:3: traffic.rto-min: only the TCP client's loss probe uses it; allowed: the "
            "default, or traffic.protocol = \"tcp\"");
  EXPECT_EQ(error_of("[traffic]\nkind = \"poisson\"\nrate = 1000\npeer-turnaround = \"40us\"\n"),
            "test.toml:4: traffic.peer-turnaround: only a ping-pong client answers a reply; "
            "allowed: the default, or traffic.kind = \"ping-pong\"");
  EXPECT_EQ(error_of("[traffic]\nkind = \"ping-pong\"\nprotocol = \"tcp\"\npeer-hz = 500\n"),
            "test.toml:4: traffic.peer-hz: 500 is not a CONFIG_HZ choice; allowed: 100, 250, 300, "
            "1000");
  EXPECT_EQ(error_of("[nic]\nmoderation = \"itr\"\ncqe-mode-rx = true\n"),
            "test.toml:3: nic.cqe-mode-rx: only the rx-usecs timer of coalescing and DIM has a "
            "CQE mode; allowed: false, or nic.moderation = \"coalesce\" or \"dim\"");
  EXPECT_NE(error_of("[nic]\nmoderation = \"lli\"\nclean-clears-cause = true\n")
                .find("nic.clean-clears-cause"),
            std::string::npos);
  // enetc's net_dim: EQE mode only, no profile tables (nic.dim-driver = "enetc").
  EXPECT_NE(error_of("[nic]\nmoderation = \"dim\"\ndim-driver = \"enetc\"\ncqe-mode-rx = true\n")
                .find("nic.cqe-mode-rx: enetc's net_dim runs in EQE mode"),
            std::string::npos);
  EXPECT_NE(error_of("kernel = \"6.12\"\n[nic]\nmoderation = \"dim\"\ndim-driver = \"enetc\"\n"
                     "rx-profile = \"1,256\"\n")
                .find("nic.rx-profile: enetc takes no net_dim profile table"),
            std::string::npos);
  EXPECT_NE(error_of("kernel = \"6.12\"\n[nic]\nmoderation = \"dim\"\ndim-driver = \"enetc\"\n"
                     "tx-interrupts = true\ntx-moderation = \"dim\"\ntx-profile = \"1,128\"\n")
                .find("nic.tx-profile: enetc takes no net_dim profile table"),
            std::string::npos);
}

}  // namespace
}  // namespace irqmod::sim

namespace irqmod::sim {
namespace {

TEST(scenario_docs, docs_simulator_md_lists_every_key_of_the_schema) {
  std::ifstream in(std::string(IRQMOD_SCENARIO_DIR) + "/../docs/simulator.md");
  ASSERT_TRUE(in.good());
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const KeySpec& spec : schema()) {
    std::string name(spec.name);
    if (name.rfind("thread.", 0) == 0) name = "[[thread]] " + name.substr(7);
    EXPECT_NE(doc.find("| `" + name + "` |"), std::string::npos) << name;
  }
}

TEST(scenario_seed_rows, seed_rows_load_check_their_keys_and_write_back) {
  const LoadResult r = load(R"(
[[seed_row]]
seed = "004"
table = "EITR 8000 vs 4000"
row = "8000 intr/s"
metric = "throughput"
unit = "kpps"
seed_value = 535
role = "fitted"
[[seed_row]]
seed = "001"
table = "case 1"
row = "before"
metric = "cpu"
unit = "%"
seed_value = 55.5
seed_text = "50%-60%"
missing = "no TCP model yet"
[[seed_row]]
seed = "003"
table = "gen5"
row = "with posted MSI vs without"
metric = "interrupts"
unit = "% fewer"
seed_value = 30
seed_text = "30-50% fewer"
versus = "003-gen5-interrupts.toml"
)");
  ASSERT_TRUE(r.ok()) << r.error().what();
  ASSERT_EQ(r->seed_rows.size(), 3u);
  EXPECT_EQ(r->seed_rows[2].versus, "003-gen5-interrupts.toml");
  EXPECT_EQ(r->seed_rows[0].role, SeedRole::fitted);
  EXPECT_EQ(r->seed_rows[0].seed_value, 535.0);
  EXPECT_EQ(r->seed_rows[1].role, SeedRole::predicted);
  EXPECT_EQ(r->seed_rows[1].seed_text, "50%-60%");
  std::ostringstream text;
  write_toml(text, r.value());
  const LoadResult back = load(text.str());
  ASSERT_TRUE(back.ok()) << back.error().what() << "\n" << text.str();
  EXPECT_EQ(back.value(), r.value());
  const std::string head =
      "[[seed_row]]\nseed = \"004\"\ntable = \"t\"\nrow = \"r\"\nunit = \"kpps\"\n";
  EXPECT_EQ(error_of(head + "metric = \"goodput\"\nseed_value = 1\n")
                .rfind("test.toml:1: seed_row.1.metric: 'goodput' is not a metric", 0),
            0u);
  EXPECT_EQ(error_of(head + "metric = \"throughput\"\n"),
            "test.toml:1: seed_row.1.seed_value: missing; allowed: the seed's number");
  EXPECT_EQ(error_of(head + "metric = \"throughput\"\nseed_value = 1\nrole = \"guess\"\n")
                .rfind("test.toml:8: seed_row.1.role: 'guess' is not a role", 0),
            0u);
  EXPECT_EQ(error_of(head + "metric = \"throughput\"\nseed_valu = 1\n"),
            "test.toml:7: seed_row.1.seed_valu: unknown key; did you mean seed_value?; allowed: "
            "seed, table, row, metric, unit, seed_value, seed_text, role, versus, missing, "
            "variant");
}

}  // namespace
}  // namespace irqmod::sim

namespace irqmod::sim {
namespace {

// A scenario file in a fresh directory under the system's temporary one; removed at the end.
struct ScenarioDir {
  std::filesystem::path dir;
  explicit ScenarioDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir / "captures");
  }
  ~ScenarioDir() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& text) const {
    const std::string file = (dir / "s.toml").string();
    std::ofstream(file) << text;
    return file;
  }
};

TEST(scenario_paths, a_capture_named_by_a_file_is_found_beside_it_and_a_set_one_as_typed) {
  const ScenarioDir d("irqmod-paths");
  const std::string file = d.write(
      "platform = \"none\"\n[traffic]\nkind = \"pcap\"\npcap = \"captures/a.pcap\"\n"
      "[[flow]]\nkind = \"pcap\"\npcap = \"../b.pcap\"\n"
      "[[flow]]\nkind = \"pcap\"\npcap = \"/abs/c.pcap\"\n");
  const LoadResult r = load_scenario_file(file);
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ(r->traffic.pcap, (d.dir / "captures/a.pcap").string());
  EXPECT_EQ(r->flows[0].pcap, (d.dir.parent_path() / "b.pcap").string());
  EXPECT_EQ(r->flows[1].pcap, "/abs/c.pcap");
  const std::vector<std::string> sets{"traffic.pcap=typed.pcap"};
  const LoadResult set = load_scenario_file(file, sets);
  ASSERT_TRUE(set.ok()) << set.error().what();
  EXPECT_EQ(set->traffic.pcap, "typed.pcap");  // the command line's: the current directory's
}

TEST(scenario_paths, a_directory_or_a_device_is_not_a_scenario_file) {
  const ScenarioDir d("irqmod-dir");
  const LoadResult dir = load_scenario_file(d.dir.string());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().what().find(d.dir.string() + ": is a directory"), std::string::npos)
      << dir.error().what();
  const LoadResult device = load_scenario_file("/dev/null");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().what().find("/dev/null: is not a regular file"), std::string::npos)
      << device.error().what();
}

TEST(scenario_overrides, a_flag_standing_for_a_key_is_named_in_its_errors) {
  Scenario s = default_scenario();
  const auto d = apply_override(s, "scenario.seed=-1", "--seed");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->what(),
            "--seed: scenario.seed: -1 is out of range; allowed: 0 to 9223372036854775807");
}

}  // namespace
}  // namespace irqmod::sim
