// Seed rows: each metric read off a report in each of its units, and the checks that refuse a
// metric or unit that does not exist.
#include "irqmod/sim/seed_rows.hpp"

#include <gtest/gtest.h>

namespace irqmod::sim {
namespace {

// Two cores over 2 s: 1.07 M frames delivered, 3 latencies, interrupts on both cores.
RunReport report() {
  RunReport r;
  r.sim_time = seconds(2);
  r.delivered_packets = 1'070'000;
  r.drops.add(DropReason::rx_ring_full, 2'000);
  r.latency.record(100'000);
  r.latency.record(200'000);
  r.latency.record(600'000);
  r.interrupts = InterruptCounters(2);
  for (int i = 0; i < 16'000; ++i)
    r.interrupts.count(0);
  for (int i = 0; i < 4'000; ++i)
    r.interrupts.count(1);
  r.cores.resize(2);
  r.cores[0].device_irqs = 16'000;
  r.cores[1].device_irqs = 4'000;
  r.cpu = CpuTime(2);
  r.cpu.charge(0, ContextKind::softirq, milliseconds(1'500));
  r.cpu.charge(1, ContextKind::thread, milliseconds(500));
  return r;
}

SeedRow row(std::string metric, std::string unit) {
  SeedRow r;
  r.seed = "004";
  r.table = "t";
  r.row = "r";
  r.metric = std::move(metric);
  r.unit = std::move(unit);
  return r;
}

double value(const std::string& metric, const std::string& unit) {
  const auto v = seed_row_value(row(metric, unit), report());
  EXPECT_TRUE(v.ok()) << metric << " " << unit << ": " << (v.ok() ? "" : v.error().what());
  return v.ok() ? v.value() : -1;
}

TEST(seed_rows, each_metric_is_read_off_the_report_in_the_rows_unit) {
  EXPECT_DOUBLE_EQ(value("throughput", "kpps"), 535.0);
  EXPECT_DOUBLE_EQ(value("throughput", "Mpps"), 0.535);
  EXPECT_DOUBLE_EQ(value("drops", "pps"), 1'000.0);
  EXPECT_DOUBLE_EQ(value("latency.avg", "ms"), 0.3);
  EXPECT_DOUBLE_EQ(value("latency.max", "us"), 600.0);
  EXPECT_NEAR(value("latency.p50", "us"), 200.0, 1.0);  // a histogram bucket's value
  EXPECT_DOUBLE_EQ(value("latency.p99.999", "us"), 600.0);
  // 100, 200, 600 us: mean 300, squared deviations 140 000 over 3 (sockperf's population form).
  EXPECT_NEAR(value("latency.stddev", "us"), 216.0247, 1e-4);
  EXPECT_DOUBLE_EQ(value("observations", "messages"), 3.0);
  EXPECT_DOUBLE_EQ(value("interrupts", "intr/s"), 10'000.0);
  EXPECT_DOUBLE_EQ(value("interrupts", "k intr/s"), 10.0);
  EXPECT_DOUBLE_EQ(value("interrupts.core1", "intr/s"), 2'000.0);
  EXPECT_DOUBLE_EQ(value("interrupts.vector0", "k intr/s"), 8.0);
  EXPECT_DOUBLE_EQ(value("cpu", "%"), 50.0);  // 2 s of busy time over 2 cores x 2 s
  EXPECT_DOUBLE_EQ(value("cpu.core0", "%"), 75.0);
}

TEST(seed_rows, a_wrong_unit_lists_the_units_of_the_rows_metric) {
  const auto allowed = [](const char* metric) {
    const auto e = check_seed_row(row(metric, "furlongs"));
    return e ? e->message.substr(e->message.find("allowed: ")) : std::string("(accepted)");
  };
  EXPECT_EQ(allowed("throughput"), "allowed: pps, kpps, Mpps, IOPS, k IOPS, M IOPS");
  EXPECT_EQ(allowed("drops"), "allowed: pps, kpps, Mpps, IOPS, k IOPS, M IOPS");
  EXPECT_EQ(allowed("latency.p99"), "allowed: ns, us, ms");
  EXPECT_EQ(allowed("interrupts"), "allowed: intr/s, k intr/s, M intr/s");
  EXPECT_EQ(allowed("interrupts.vector0"), "allowed: intr/s, k intr/s, M intr/s");
  EXPECT_EQ(allowed("cpu"), "allowed: %");
  EXPECT_EQ(allowed("cpu.core1"), "allowed: %");
  EXPECT_EQ(allowed("observations"), "allowed: messages");
}

TEST(seed_rows, unknown_metrics_units_and_cores_are_errors_that_say_what_is_allowed) {
  const auto bad_metric = check_seed_row(row("goodput", "kpps"));
  ASSERT_TRUE(bad_metric.has_value());
  EXPECT_EQ(bad_metric->key, "metric");
  EXPECT_NE(bad_metric->message.find("allowed: throughput"), std::string::npos);
  const auto bad_unit = check_seed_row(row("latency.avg", "kpps"));
  ASSERT_TRUE(bad_unit.has_value());
  EXPECT_EQ(bad_unit->message, "'kpps' is not a unit of latency.avg; allowed: ns, us, ms");
  EXPECT_FALSE(seed_row_value(row("interrupts.core2", "intr/s"), report()).ok());
  EXPECT_FALSE(seed_row_value(row("cpu.core7", "%"), report()).ok());
  EXPECT_FALSE(check_seed_row(row("cpu.core", "%")) == std::nullopt);
  const RunReport empty;  // no time covered, no latency observed
  EXPECT_FALSE(seed_row_value(row("latency.avg", "ms"), empty).ok());
}

TEST(seed_rows, a_versus_row_is_the_percentage_by_which_the_metric_fell) {
  SeedRow r = row("interrupts", "% fewer");
  r.versus = "other.toml";
  ASSERT_EQ(check_seed_row(r), std::nullopt);
  RunReport fewer = report();  // 10 000 interrupts/s
  RunReport more = report();
  for (int i = 0; i < 20'000; ++i)
    more.interrupts.count(0);  // 20 000 interrupts/s
  const auto v = seed_row_reduction(r, fewer, more);
  ASSERT_TRUE(v.ok()) << v.error().what();
  EXPECT_DOUBLE_EQ(v.value(), 50.0);
  EXPECT_DOUBLE_EQ(seed_row_reduction(r, more, fewer).value(), -100.0);
  EXPECT_FALSE(seed_row_value(r, fewer).ok());  // it needs both runs
  const RunReport empty;                        // no time covered: no rate
  EXPECT_FALSE(seed_row_reduction(r, fewer, empty).ok());
  RunReport none = report();
  none.interrupts = InterruptCounters(2);
  EXPECT_FALSE(seed_row_reduction(r, fewer, none).ok());  // nothing to fall from
  SeedRow wrong = r;
  wrong.unit = "k intr/s";
  ASSERT_TRUE(check_seed_row(wrong).has_value());
  EXPECT_EQ(check_seed_row(wrong)->message,
            "'k intr/s' is not the unit of a row with versus; allowed: % fewer");
}

}  // namespace
}  // namespace irqmod::sim
