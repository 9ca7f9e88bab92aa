#include "irqmod/sweep/runner.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sweep {
namespace {

// A sweep of a shipped scenario (its path under scenarios/) over `axes`, `duration` long.
Spec sweep_of(const std::string& scenario, std::vector<Axis> axes, const std::string& duration,
              std::size_t seeds = 1) {
  Spec spec;
  spec.file = IRQMOD_SCENARIO_DIR "/" + scenario;
  std::ifstream in(spec.file);
  std::ostringstream text;
  text << in.rdbuf();
  spec.text = text.str();
  spec.duration = duration;
  spec.axes = std::move(axes);
  spec.seeds = seeds;
  return spec;
}

Spec pingpong(std::vector<Axis> axes, std::size_t seeds = 1) {
  return sweep_of("basics/pingpong-udp.toml", std::move(axes), "20ms", seeds);
}

// What `irqmod sim FILE --duration 20ms --set ... --csv -` writes as its row.
std::string sim_row(const Spec& spec, std::vector<std::string> sets) {
  sim::LoadResult loaded = load_measured(spec.text, spec.file, std::move(sets), spec.duration);
  EXPECT_TRUE(loaded);
  auto report = sim::simulate(loaded.value());
  EXPECT_TRUE(report);
  std::ostringstream out;
  sim::write_csv(out, report.value(), false);
  return out.str();
}

std::string joined(const std::vector<std::string>& cells, std::size_t from, std::size_t count) {
  std::string out;
  for (std::size_t i = from; i < from + count; ++i)
    out += (i > from ? "," : "") + csv_cell(cells[i]);
  return out + "\n";
}

TEST(Runner, EachRowIsTheSimulatorsOwnCsvRowForThatPoint) {
  const Spec spec = pingpong({{"nic.rx-usecs", {"8", "50"}}, {"traffic.msg-size", {"64", "1400"}}});
  const Outcome outcome = run_points(spec, {0, 1, 2, 3}, 2);
  ASSERT_FALSE(outcome.error);
  ASSERT_EQ(outcome.table.rows.size(), 4u);
  const std::size_t metrics_at = 4;  // point, points, the two keys
  const std::size_t sim_columns =
      outcome.table.columns.size() - metrics_at - 4;  // cpu_percent, busiest_, app_, app_process_
  for (std::size_t p = 0; p < 4; ++p) {
    const auto& row = outcome.table.rows[p];
    EXPECT_EQ(row[0], std::to_string(p));
    EXPECT_EQ(row[1], "4");
    EXPECT_EQ(joined(row, metrics_at, sim_columns), sim_row(spec, point_overrides(spec.axes, p)));
  }
  // The points differ: the grid's values reached the runs.
  EXPECT_NE(outcome.table.rows[0][metrics_at + 4], outcome.table.rows[2][metrics_at + 4]);
}

TEST(Runner, CpuIsTheMeanOverCoresBesideTheBusiestAndTheApplicationsCore) {
  // A lab run: its client on core 0, the server on core 1 (point 0) or 0 (point 1). cpu_percent
  // is the mean over both cores (the report's "cpu"), busiest_cpu_percent the busier core's own,
  // app_cpu_percent the server core's alone, and it follows cpu.app-core.
  Spec spec = sweep_of("lab/modes-tcp.toml", {{"cpu.app-core", {"1", "0"}}}, "50ms");
  spec.sets = {"lab.rate=20000"};
  const Outcome outcome = run_points(spec, {0, 1}, 1);
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  const Table& t = outcome.table;
  const auto all = t.column("cpu_percent"), busiest = t.column("busiest_cpu_percent"),
             app = t.column("app_cpu_percent");
  ASSERT_TRUE(all && busiest && app);
  const auto& apart = t.rows[0];
  const auto& together = t.rows[1];
  EXPECT_GT(std::stod(apart[*app]), 1.0);
  EXPECT_GT(std::stod(together[*app]), std::stod(apart[*app]) + 1.0);  // the client's work too
  sim::LoadResult loaded =
      load_measured(spec.text, spec.file, {"lab.rate=20000", "cpu.app-core=1"}, spec.duration);
  ASSERT_TRUE(loaded);
  auto report = sim::simulate(loaded.value());
  ASSERT_TRUE(report);
  const auto core = [&](std::size_t c) {
    return 100.0 * static_cast<double>(report.value().cpu.busy(c).count()) /
           static_cast<double>(report.value().sim_time.count());
  };
  EXPECT_NEAR(std::stod(apart[*app]), core(1), 0.001);
  EXPECT_NEAR(std::stod(apart[*all]), (core(0) + core(1)) / 2, 0.001);
  EXPECT_NEAR(std::stod(apart[*busiest]), std::max(core(0), core(1)), 0.001);
  EXPECT_NE(core(0), core(1));  // else the mean could not tell the definitions apart
  // app_process_cpu_percent: of the server's core, the time a thread was on it (the interrupts
  // with no thread there and ksoftirqd's taken out), as /proc/PID/stat reads the process.
  const auto process = t.column("app_process_cpu_percent");
  ASSERT_TRUE(process);
  const sim::CpuTime& cpu = report.value().cpu;
  const double thread_time =
      100.0 *
      static_cast<double>(
          (cpu.busy(1) - cpu.over_idle(1) - cpu.busy(1, sim::ContextKind::ksoftirqd)).count()) /
      static_cast<double>(report.value().sim_time.count());
  EXPECT_NEAR(std::stod(apart[*process]), thread_time, 0.001);
  // In the suspend mode the NAPI watchdog's polls run over the server core's idle task: they are
  // the core's, not the process's.
  Spec suspend = spec;
  suspend.sets = {"lab.rate=20000",
                  "napi.napi_defer_hard_irqs=100",
                  "napi.gro_flush_timeout=20us",
                  "napi.irq_suspend_timeout=20ms",
                  "napi.prefer_busy_poll=true",
                  "napi.busy_poll_budget=64"};
  const Outcome held = run_points(suspend, {0}, 1);
  ASSERT_FALSE(held.error) << held.error->message;
  EXPECT_LT(std::stod(held.table.rows[0][*process]), std::stod(held.table.rows[0][*app]) - 1.0);
}

TEST(Runner, OneThreadAndFourGiveTheSameTable) {
  const Spec spec = pingpong({{"nic.rx-usecs", {"4", "16", "32", "64", "128"}}});
  const std::vector<std::size_t> all{0, 1, 2, 3, 4};
  EXPECT_EQ(run_points(spec, all, 1).table, run_points(spec, all, 4).table);
}

TEST(Runner, SeedsGiveTheMeanAndTheSpread) {
  Spec spec = pingpong({{"traffic.kind", {"poisson"}}}, 3);
  spec.sets = {"traffic.rate=20000"};
  const Outcome outcome = run_points(spec, {0}, 2);
  ASSERT_FALSE(outcome.error) << outcome.error->message;
  const Table& t = outcome.table;
  const auto mean = t.column("latency_p99_ns"), lo = t.column("latency_p99_ns_min"),
             hi = t.column("latency_p99_ns_max");
  ASSERT_TRUE(mean && lo && hi);
  const double m = std::stod(t.rows[0][*mean]);
  EXPECT_LE(std::stod(t.rows[0][*lo]), m);
  EXPECT_GE(std::stod(t.rows[0][*hi]), m);
  EXPECT_LT(std::stod(t.rows[0][*lo]), std::stod(t.rows[0][*hi]));  // the seeds differ
  EXPECT_FALSE(t.column("scenario_min"));
}

TEST(Runner, ABadValueIsTheScenariosDiagnosticNamingTheKey) {
  const Spec spec = pingpong({{"nic.rx-usecs", {"8", "banana"}}});
  auto bad = check_axes(spec);
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("nic.rx-usecs"), std::string::npos) << *bad;
  EXPECT_FALSE(check_axes(pingpong({{"nic.rx-usecs", {"8", "16"}}})));
  EXPECT_TRUE(check_axes(pingpong({{"nic.rx-usec", {"8"}}})));
}

TEST(Runner, APointTheScenarioRefusesIsNamedWithItsSettings) {
  // Each value is fine alone; together, on enetc, no interrupt would ever fire (i40e, the
  // scenario's driver, takes rx-usecs 0 as throttling off).
  const Spec spec = pingpong(
      {{"nic.rx-usecs", {"0", "8"}}, {"nic.rx-frames", {"0", "1"}}, {"nic.driver", {"enetc"}}});
  const Outcome outcome = run_points(spec, {0, 1, 2, 3}, 2);
  ASSERT_TRUE(outcome.error);
  EXPECT_TRUE(outcome.error->bad_input);
  EXPECT_NE(
      outcome.error->message.find("point 0 (nic.rx-usecs=0, nic.rx-frames=0, nic.driver=enetc)"),
      std::string::npos)
      << outcome.error->message;
}

}  // namespace
}  // namespace irqmod::sweep
