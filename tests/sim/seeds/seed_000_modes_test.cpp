// Seed 000's follow-up: the five modes of the Linux 6.13 IRQ suspension series on the shipped
// scenarios (scenarios/seeds/000-modes-*.toml: one thread, queue and core of the reference's
// memcached at 25K req/s; x86-i40e with DIM; fitted on base's CPU and fullbusy's average).
// The published shape (cover letter v7, 200K req/s): suspend's tail close to fullbusy's at a
// third of its CPU, base's tail the worst, napibusy's CPU above suspend's. docs/seeds.md has
// the table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/shared_runs.hpp"

namespace irqmod::sim {
namespace {

// A run shared by the suite's tests (shared_runs.hpp): several read the same mode.
const RunReport& run_mode(const std::string& mode, const std::vector<std::string>& sets = {}) {
  const RunReport& r = test::shared_run(
      std::string(IRQMOD_SCENARIO_DIR) + "/seeds/000-modes-" + mode + ".toml", sets);
  EXPECT_TRUE(r.conservation.ok()) << mode;
  return r;
}

double seconds(const RunReport& r) {
  return static_cast<double>(r.sim_time.count()) / 1e9;
}
// The one core's busy time, in percent.
double cpu_percent(const RunReport& r) {
  return 100.0 * static_cast<double>(r.cpu.busy(0).count()) / 1e9 / seconds(r);
}
double p99_us(const RunReport& r) {
  return static_cast<double>(r.latency.percentile(99'000)) / 1e3;
}
double device_interrupts_per_second(const RunReport& r) {
  return static_cast<double>(r.interrupts.count_of(0)) / seconds(r);
}

TEST(seed_000_modes, suspend_has_fullbusys_tail_at_a_fraction_of_its_cpu_and_base_the_worst_tail) {
  const RunReport& base = run_mode("base");
  const RunReport& napibusy = run_mode("napibusy");
  const RunReport& suspend = run_mode("suspend");
  const RunReport& fullbusy = run_mode("fullbusy");
  // Published: CPU 30 % vs 100 %; p99 151 vs 133 us; base p99 416 us; napibusy CPU 56 %.
  EXPECT_LT(cpu_percent(suspend), cpu_percent(fullbusy));
  EXPECT_LE(p99_us(suspend), 1.5 * p99_us(fullbusy));
  EXPECT_GT(p99_us(base), p99_us(suspend));
  EXPECT_GT(cpu_percent(napibusy), cpu_percent(suspend));
  EXPECT_GT(cpu_percent(fullbusy), 99.0);  // an always-spinning thread
  // Device interrupts: masked while epoll drives the queue (published per queue: suspend20
  // ~23/s, napibusy ~1.5/s, fullbusy 0); base lives on them.
  EXPECT_LT(device_interrupts_per_second(suspend), 100.0);
  EXPECT_LT(device_interrupts_per_second(fullbusy), 100.0);
  EXPECT_GT(device_interrupts_per_second(base), 1000.0);
}

TEST(seed_000_modes, the_fitted_rows_land_on_the_published_numbers) {
  EXPECT_NEAR(cpu_percent(run_mode("base")), 26.0, 1.0);              // cpu.app-message
  EXPECT_NEAR(run_mode("fullbusy").latency.mean() / 1e3, 46.0, 1.0);  // traffic.client-delay
}

TEST(seed_000_modes, suspend_needs_the_6_13_rule_and_without_suspension_is_defer_with_prefer) {
  // Suspension without 6.13's busy loop is no kernel's (both came in one series): refused.
  LoadResult old =
      load_scenario_file(std::string(IRQMOD_SCENARIO_DIR) + "/seeds/000-modes-suspend.toml",
                         std::vector<std::string>{"napi.epoll-prefer-busy-loop=false"});
  ASSERT_FALSE(old.ok());  // when the file is loaded (validate_nic_host)
  EXPECT_EQ(old.error().error.key, "napi.epoll-prefer-busy-loop");
  // A pre-6.13 kernel with the same prefer and deferral (no suspension) never busy-polls.
  const RunReport& with_rule = run_mode("suspend");
  const RunReport& before =
      run_mode("suspend", {"napi.epoll-prefer-busy-loop=false", "napi.irq_suspend_timeout=0"});
  EXPECT_GT(with_rule.cpu.busy(0, ContextKind::busy_poll).count(), 0);
  EXPECT_EQ(before.cpu.busy(0, ContextKind::busy_poll).count(), 0);
}

}  // namespace
}  // namespace irqmod::sim
