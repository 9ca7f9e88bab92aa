#include "irqmod/sweep/objective.hpp"

#include <gtest/gtest.h>

#include "irqmod/sweep/runner.hpp"

namespace irqmod::sweep {
namespace {

// The columns of a one-seed sweep and of a three-seed one (with the _min / _max spread).
const std::vector<std::string>& sweep_columns(std::size_t seeds = 1) {
  static const std::vector<std::string> one = [] { return columns(Spec{}); }();
  static const std::vector<std::string> three = [] {
    Spec spec;
    spec.seeds = 3;
    return columns(spec);
  }();
  return seeds == 1 ? one : three;
}

Expected<Constraint> constraint(std::string_view text) {
  return parse_constraint(text, sweep_columns());
}

TEST(Objective, ParsesConstraintsWithTheirUnits) {
  auto c = constraint("p99 <= 50us");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->metric.column, "latency_p99_ns");
  EXPECT_EQ(c->limit, 50);
  EXPECT_EQ(constraint("p99.9 < 2ms")->limit, 2000);
  EXPECT_EQ(constraint("max<=500ns")->limit, 0.5);
  EXPECT_EQ(constraint("p99 <= 7 µs")->limit, 7);
  EXPECT_EQ(constraint("interrupts <= 20000/s")->metric.column, "interrupts_per_second");
  EXPECT_EQ(constraint("cpu >= 10%")->relation, Relation::at_least);
  EXPECT_EQ(constraint("latency_p99_ns <= 3us")->limit, 3);  // a column, in its unit shown
  for (const char* bad : {"p99 50us", "p99 <= fast", "p99 <= 5 parsecs", "cpu <= 5us",
                          "scenario <= 1", "<= 5", "p99 <= nan", "p99 <= inf"})
    EXPECT_FALSE(constraint(bad)) << bad;
}

TEST(Objective, AUnitThatIsNotTheMetricsIsNamedWithTheAllowedOnes) {
  const auto c = constraint("cpu <= 5us");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "'cpu <= 5us': 'us' is not the unit of cpu; allowed: '%' or a bare "
            "number");
  const auto t = constraint("p99 <= 5 parsecs");
  EXPECT_NE(t.error().message.find("'parsecs' is not a unit of time"), std::string::npos)
      << t.error().message;
}

TEST(Objective, AMetricThatIsNoColumnIsRefusedWithTheValidNames) {
  // The typo: `--minimize foo` used to minimise an empty column and print the first
  // grid point as "best".
  const auto foo = parse_metric("foo", sweep_columns());
  ASSERT_FALSE(foo);
  EXPECT_EQ(foo.error().key, "metric");
  for (const char* listed : {"'foo' is not a metric; allowed: p50, p90, p99, p99.9", "cpu_percent",
                             "interrupts_per_second", "latency_p99_ns"})
    EXPECT_NE(foo.error().message.find(listed), std::string::npos) << foo.error().message;
  // "latency" is a word of the columns, not one: the near ones are offered.
  const auto latency = parse_metric("latency", sweep_columns());
  ASSERT_FALSE(latency);
  EXPECT_NE(latency.error().message.find("did you mean 'latency_count', 'latency_min_ns' or "),
            std::string::npos)
      << latency.error().message;
  EXPECT_NE(parse_metric("p99.0", sweep_columns()).error().message.find("did you mean 'p99.9'"),
            std::string::npos);
  EXPECT_NE(parse_metric("cpu_precent", sweep_columns()).error().message.find("'cpu_percent'"),
            std::string::npos);
  // Columns that are not metrics.
  for (const char* not_metric : {"scenario", "conservation_ok", "point", "points", ""})
    EXPECT_FALSE(parse_metric(not_metric, sweep_columns())) << not_metric;
}

TEST(Objective, TheSpreadOfSeveralSeedsIsAMetricAndSaidOnce) {
  const auto m = parse_metric("latency_p99_ns_max", sweep_columns(3));
  ASSERT_TRUE(m) << m.error().what();
  EXPECT_EQ(m->unit, "us");
  EXPECT_FALSE(parse_metric("latency_p99_ns_max", sweep_columns(1)));
  const std::string message = parse_metric("bogus", sweep_columns(3)).error().message;
  EXPECT_NE(message.find("(each also as NAME_min and NAME_max)"), std::string::npos) << message;
  EXPECT_EQ(message.find("cpu_percent_min"), std::string::npos) << message;
}

TEST(Objective, ViolationIsRelativeToTheLimit) {
  const Table t{{"latency_p99_ns", "cpu_percent"}, {{"60000", "10"}}};
  EXPECT_DOUBLE_EQ(violation(t, t.rows[0], constraint("p99 <= 50us").value()), 0.2);
  EXPECT_DOUBLE_EQ(violation(t, t.rows[0], constraint("p99 <= 60us").value()), 0);
  EXPECT_DOUBLE_EQ(violation(t, t.rows[0], constraint("cpu >= 20").value()), 0.5);
  EXPECT_DOUBLE_EQ(violation(t, t.rows[0], constraint("pps <= 1").value()), 1.0);
}

TEST(Objective, ALatencyOfNoSampleIsNoValue) {
  // The run's CSV writes 0 for every percentile when nothing was measured (a storage run): that
  // is not a latency of 0 for tune to minimise or plot to draw.
  const Table t{{"latency_count", "latency_p99_ns", "cpu_percent"},
                {{"0", "0", "12"}, {"0.000", "0", "12"}, {"5", "0", "12"}}};
  const Metric p99 = parse_metric("p99", t.columns).value();
  EXPECT_FALSE(metric_value(t, t.rows[0], p99));
  EXPECT_FALSE(metric_value(t, t.rows[1], p99));  // the mean over seeds
  EXPECT_EQ(metric_value(t, t.rows[2], p99), 0.0);
  EXPECT_FALSE(metric_value(t, t.rows[0], parse_metric("latency_count", t.columns).value()) ==
               std::nullopt);
  EXPECT_EQ(metric_value(t, t.rows[0], parse_metric("cpu", t.columns).value()), 12.0);
}

}  // namespace
}  // namespace irqmod::sweep
