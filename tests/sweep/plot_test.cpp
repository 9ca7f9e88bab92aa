#include "irqmod/sweep/plot.hpp"

#include <gtest/gtest.h>

#include "irqmod/sweep/runner.hpp"

namespace irqmod::sweep {
namespace {

// A sweep's table over nic.rx-usecs with one row per {rx-usecs, p50 us, p99 us, cpu %, irq/s};
// a latency of -1 leaves the row's latency cells empty (a run that measured none).
Table sweep_table(const std::vector<std::array<double, 5>>& points) {
  Spec spec;
  spec.axes = {{"nic.rx-usecs", {}}};
  Table t;
  t.columns = columns(spec);
  for (const auto& p : points) {
    std::vector<std::string> row(t.columns.size());
    const auto set = [&](std::string_view column, double v) {
      row[*t.column(column)] = std::to_string(static_cast<long long>(v));
    };
    set("nic.rx-usecs", p[0]);
    const bool measured = p[1] >= 0;
    set("latency_count", measured ? 100 : 0);
    if (measured) {
      set("latency_p50_ns", p[1] * 1000);
      set("latency_p99_ns", p[2] * 1000);
      set("latency_p99_9_ns", p[2] * 1000);
    }
    set("cpu_percent", p[3]);
    set("interrupts_per_second", p[4]);
    t.rows.push_back(row);
  }
  return t;
}

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

PlotFiles plot(const Table& t, PlotRequest request) {
  request.output = "x.svg";
  auto files = make_plot(t, request, "data");
  EXPECT_TRUE(files) << files.error().what();
  return files ? files.value() : PlotFiles{};
}

TEST(Plot, AFrontOfOnePointDrawsNoLabelsPlotWithoutPoints) {
  // gnuplot 5.4.4 dies (SIGSEGV) on a labels plot whose points are all NaN: the issue's
  // `--vary nic.rx-usecs=2,8,32 --vary napi.busy_read=0,50us` has a one-point front against
  // interrupts/s, so its second labels plot (the ones below their point) had none.
  const PlotFiles one = plot(sweep_table({{8, 7, 7, 40, 60000}}), {});
  EXPECT_TRUE(has(one.script, "$7 == 0 ? $4 : NaN"));
  EXPECT_FALSE(has(one.script, "$7 == 1 ? $4 : NaN")) << one.script;
  // Two points on the front: one label each side.
  const PlotFiles two = plot(sweep_table({{8, 7, 7, 40, 60000}, {32, 19, 19, 16, 25000}}), {});
  EXPECT_TRUE(has(two.script, "$7 == 1 ? $4 : NaN"));
}

TEST(Plot, ASweepWithNoLatencyDrawsEmptyAxesThatSayWhy) {
  const PlotFiles files = plot(sweep_table({{8, -1, -1, 40, 60000}, {32, -1, -1, 16, 25000}}), {});
  EXPECT_TRUE(has(files.script, "no point measured a latency")) << files.script;
  EXPECT_FALSE(has(files.script, "with labels"));
  ASSERT_EQ(files.notes.size(), 1u);
  EXPECT_TRUE(has(files.notes[0], "the picture's axes are empty"));
}

TEST(Plot, ThePercentilesHaveThreeShapesAndSizes) {
  const std::string script = plot(sweep_table({{8, 7, 7, 40, 60000}}), {}).script;
  for (const char* mark : {"pt 7 ps 0.5 lc rgb '#2ca02c' title 'p50'",
                           "pt 4 ps 1.3 lw 1.5 lc rgb '#1f77b4' title 'p99'",
                           "pt 8 ps 2.0 lw 1.5 lc rgb '#d62728' title 'p99.9'"})
    EXPECT_TRUE(has(script, mark)) << mark << "\n" << script;
}

TEST(Plot, AgainstDrawsOneUnitPerAxis) {
  const Table t = sweep_table({{8, 7, 8, 40, 60000}, {32, 19, 20, 16, 25000}});
  PlotRequest r;
  r.against = "nic.rx-usecs";
  // One unit: one axis, named by it.
  r.metrics = {"p50", "p99"};
  std::string script = plot(t, r).script;
  EXPECT_TRUE(has(script, "set ylabel 'time (µs)'"));
  EXPECT_FALSE(has(script, "y2"));
  EXPECT_FALSE(has(script, "column's unit"));
  // Two: the second on the right-hand axis.
  r.metrics = {"p99", "cpu"};
  script = plot(t, r).script;
  EXPECT_TRUE(has(script, "set y2label 'CPU (% of all cores) (dashed, right)'")) << script;
  EXPECT_TRUE(has(script, "using 0:3 axes x1y2"));
  // Three: a panel each.
  r.metrics = {"p99", "cpu", "interrupts"};
  script = plot(t, r).script;
  EXPECT_TRUE(has(script, "set multiplot layout 3,1"));
  EXPECT_TRUE(has(script, "set ylabel 'per second'"));
}

TEST(Plot, AgainstLeavesOutAMetricWithNoValueAndSaysSo) {
  const Table t = sweep_table({{8, -1, -1, 40, 60000}, {32, -1, -1, 16, 25000}});
  PlotRequest r;
  r.against = "nic.rx-usecs";
  r.metrics = {"p99", "cpu"};
  PlotFiles files = plot(t, r);
  EXPECT_TRUE(has(files.script, "no value in any row: latency_p99_ns"));
  EXPECT_FALSE(has(files.script, "using 0:2")) << files.script;  // p99's column is not drawn
  EXPECT_TRUE(has(files.script, "using 0:3:xtic(1)"));
  ASSERT_EQ(files.notes.size(), 1u);
  // Nothing to draw at all: an empty frame that says so.
  r.metrics = {"p99"};
  files = plot(t, r);
  EXPECT_TRUE(has(files.script, "plot 2 notitle"));
  EXPECT_TRUE(has(files.script, "no value in any row: latency_p99_ns"));
}

TEST(Plot, MetricsAreCheckedAgainstTheTableWithTheValidNames) {
  const Table t = sweep_table({{8, 7, 8, 40, 60000}});
  PlotRequest r;
  r.output = "x.svg";
  r.against = "nic.rx-usecs";
  r.metrics = {"p99"};  // a short name, as tune takes it
  EXPECT_TRUE(make_plot(t, r, "data"));
  r.metrics = {"latency_p99"};
  const auto bad = make_plot(t, r, "data");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().key, "--metric");
  EXPECT_TRUE(has(bad.error().message, "did you mean 'p99', 'latency_p99_ns'"))
      << bad.error().message;
  EXPECT_TRUE(has(bad.error().message, "cpu_percent"));
  r.metrics = {"p99"};
  r.against = "nic.rx-usec";
  const auto key = make_plot(t, r, "data");
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().message,
            "'nic.rx-usec' is not a varied key; did you mean 'nic.rx-usecs'? allowed: "
            "nic.rx-usecs");
}

TEST(Plot, OneQueuesSeriesHasAColourPerKindOfLine) {
  sim::RunSeries s;
  s.interval = std::chrono::microseconds(100);
  s.moderation = "rx-usecs";
  s.queues = {{"rx queue 0", 512}};
  s.vectors = {"vector 0: rx queue 0"};
  for (int k = 0; k < 3; ++k) {
    s.times.push_back(at_ns(100'000 * k));
    s.queue_samples.push_back({1, 500, 10u * k, 0, 8000, -1});
    s.interrupts.push_back(k);
  }
  auto files = make_series_plot(s, {"x.svg", "t"}, "data");
  ASSERT_TRUE(files) << files.error().what();
  EXPECT_TRUE(has(files->script, "lc rgb '#1f77b4' title 'rx queue 0 used'")) << files->script;
  EXPECT_TRUE(has(files->script, "lc rgb '#2ca02c' title 'rx queue 0 free'"));
  EXPECT_TRUE(has(files->script, "lc rgb '#9467bd' title 'rx queue 0 rx-usecs'"));
  // Several queues: a colour per queue, the kind told by the dash.
  s.queues.push_back({"rx queue 1", 512});
  s.queue_samples.clear();
  for (int k = 0; k < 3; ++k) {
    s.queue_samples.push_back({1, 500, 10u * k, 0, 8000, -1});
    s.queue_samples.push_back({1, 500, 10u * k, 0, 8000, -1});
  }
  files = make_series_plot(s, {"x.svg", "t"}, "data");
  ASSERT_TRUE(files);
  EXPECT_TRUE(has(files->script, "lc 2 title 'rx queue 1 free'"));
}

}  // namespace
}  // namespace irqmod::sweep
