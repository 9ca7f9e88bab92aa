// calibrate's summaries and outputs (calibrate_report.hpp): percentiles, the choice of form and
// its cost syntax, derived samples, the platform file's lines and the JSON. Pure: no measuring.
#include "irqmod/rt/calibrate_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace irqmod::rt::calibrate {
namespace {

// The standard normal's 0.9 quantile and ln 2, to build exact summaries of known forms.
constexpr double kZ90 = 1.2815515655446004;

TEST(calibrate_report, percentile_interpolates_between_the_closest_ranks) {
  const std::vector<double> sorted{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.0), 1);
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.5), 3);
  EXPECT_DOUBLE_EQ(percentile(sorted, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(percentile(sorted, 1.0), 5);
  EXPECT_DOUBLE_EQ(percentile(std::vector<double>{7}, 0.9), 7);
}

TEST(calibrate_report, summarise_sorts_and_counts_and_an_empty_set_has_no_samples) {
  const Summary s = summarise({50, 10, 40, 20, 30, 60, 70, 80, 90, 100, 0});
  EXPECT_EQ(s.n, 11u);
  EXPECT_DOUBLE_EQ(s.p10, 10);
  EXPECT_DOUBLE_EQ(s.p50, 50);
  EXPECT_DOUBLE_EQ(s.p90, 90);
  EXPECT_EQ(summarise({}).n, 0u);
}

TEST(calibrate_report, a_symmetric_spread_is_a_uniform_centred_on_the_median) {
  const Fit fit = fit_distribution(Summary{1000, 110, 150, 190});
  EXPECT_EQ(fit.form, Form::uniform);
  EXPECT_EQ(fit.text, "uniform(100ns, 200ns)");  // p10 and p90 at a tenth in from each end
}

TEST(calibrate_report, a_log_symmetric_spread_is_a_lognormal_with_its_mean_and_cv) {
  const double sigma = 0.5;
  const Fit fit = fit_distribution(
      Summary{1000, 1000 * std::exp(-kZ90 * sigma), 1000, 1000 * std::exp(kZ90 * sigma)});
  EXPECT_EQ(fit.form, Form::lognormal);
  // mean = median exp(sigma^2 / 2) = 1133; cv = sqrt(exp(sigma^2) - 1) = 0.533.
  EXPECT_EQ(fit.text, "lognormal(1133ns, cv=0.533)");
}

TEST(calibrate_report, a_floor_with_a_long_tail_is_an_exponential_with_its_minimum) {
  // 500 ns plus an exponential tail of mean 200 ns: p10, p50, p90 at -ln(0.9), ln 2, ln 10.
  const auto at = [](double q) { return 500 - 200 * std::log(1 - q); };
  const Fit fit = fit_distribution(Summary{1000, at(0.1), at(0.5), at(0.9)});
  EXPECT_EQ(fit.form, Form::exponential);
  EXPECT_EQ(fit.text, "exponential(700ns, min=500ns)");
}

TEST(calibrate_report, no_spread_is_a_constant_and_a_median_at_or_below_zero_is_zero) {
  EXPECT_EQ(fit_distribution(Summary{10, 172, 172, 172}).text, "172ns");
  EXPECT_EQ(fit_distribution(Summary{10, 172, 172, 172}).form, Form::constant);
  const Fit zero = fit_distribution(Summary{10, -300, -20, 400});
  EXPECT_EQ(zero.text, "0ns");
  EXPECT_NE(zero.why.find("noise"), std::string::npos);
}

TEST(calibrate_report, a_spread_reaching_below_zero_is_written_as_its_median) {
  // Every form placed at 5 ns with this span would reach below 0 ns.
  const Fit fit = fit_distribution(Summary{10, -10, 5, 20});
  EXPECT_EQ(fit.form, Form::constant);
  EXPECT_EQ(fit.text, "5ns");
}

TEST(calibrate_report, every_fit_names_how_it_was_chosen) {
  for (const Summary& s : {Summary{9, 110, 150, 190}, Summary{9, 100, 101, 400},
                           Summary{9, 172, 172, 172}, Summary{9, -1, -1, -1}})
    EXPECT_FALSE(fit_distribution(s).why.empty());
}

TEST(calibrate_report, derive_shifts_and_scales_each_sample) {
  EXPECT_EQ(derive({100, 200, 301}, 50, 2), (Samples{25, 75, 126}));  // 125.5 rounds up
  EXPECT_EQ(derive({10, 20}, 30), (Samples{-20, -10}));
}

Report sample_report() {
  Report r;
  r.header = Header{"AMD EPYC",
                    2,
                    "6.18.44",
                    "2026-12-01T00:00:00Z",
                    "irqmod calibrate --quick",
                    4.5,
                    true,
                    "0.10 -> 0.20",
                    "-20",
                    "measured"};
  r.entries = {
      Entry{"cpu.syscall", "getppid", Summary{100, 160, 170, 180}, "", false, {}},
      Entry{"cpu.veth-poll", "veth's \"NAPI\" poll", Summary{50, 400, 450, 700}, "", false, {}},
      Entry{"cpu.veth-xmit", "", Summary{}, "not separated from cpu.veth-packet", false, {}},
      Entry{"nic.dma-delay", "", Summary{}, "needs a NIC", false, {}},
      Entry{"getppid", "syscall(SYS_getppid)", Summary{100, 160, 170, 180}, "", true, {}},
      Entry{"wake-other-core", "eventfd", Summary{}, "needs two CPUs", true, {}},
  };
  return r;
}

// The simulator's schema as this test pretends it is: it has cpu.syscall only.
bool known(std::string_view key) {
  return key == "cpu.syscall" || key == "nic.dma-delay";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(calibrate_report, the_platform_file_has_the_host_and_the_run_in_its_header) {
  std::ostringstream out;
  write_platform(out, sample_report(), known);
  const std::string text = out.str();
  for (const char* line :
       {"# cpu: AMD EPYC (2 CPUs)\n", "# kernel: 6.18.44\n", "# date: 2026-12-01T00:00:00Z\n",
        "# command: irqmod calibrate --quick\n",
        "# run: 4.5 s, --quick, nice -20; load average 0.10 -> 0.20\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line;
}

TEST(calibrate_report, a_known_key_is_a_value_with_its_method_and_spread_in_its_section) {
  std::ostringstream out;
  write_platform(out, sample_report(), known);
  const auto lines = lines_of(out.str());
  const auto cpu = std::find(lines.begin(), lines.end(), "[cpu]");
  ASSERT_NE(cpu, lines.end());
  EXPECT_EQ(*(cpu + 1),
            "syscall = \"uniform(158ns, 183ns)\"  # getppid; p10/p50/p90 160/170/180 ns; n 100; "
            "fit: " +
                fit_distribution(Summary{100, 160, 170, 180}).why);
}

TEST(calibrate_report, a_chosen_distribution_is_written_with_the_samples_spread_and_why) {
  Report r = sample_report();
  Entry e{"cpu.syscall", "gaps", Summary{20, 300, 1000, 4000}, "", false, "exponential(1500ns)"};
  e.chosen = "Poisson arrivals";
  r.entries = {e};
  std::ostringstream out;
  write_platform(out, r, known);
  EXPECT_NE(out.str().find("syscall = \"exponential(1500ns)\"  # gaps; p10/p50/p90 "
                           "300/1000/4000 ns; n 20; fit: Poisson arrivals\n"),
            std::string::npos)
      << out.str();
  std::ostringstream json;
  write_json(json, r, known);
  EXPECT_NE(json.str().find("\"value\": \"exponential(1500ns)\", \"fit\": \"Poisson arrivals\", "
                            "\"p10\": 300"),
            std::string::npos)
      << json.str();
}

TEST(calibrate_report, a_key_the_schema_lacks_is_a_comment_with_the_same_parts) {
  std::ostringstream out;
  write_platform(out, sample_report(), known);
  const Fit fit = fit_distribution(Summary{50, 400, 450, 700});
  const std::string line =
      "# no key yet: cpu.veth-poll = \"" + fit.text +
      "\"  # veth's \"NAPI\" poll; p10/p50/p90 400/450/700 ns; n 50; fit: " + fit.why;
  const auto lines = lines_of(out.str());
  EXPECT_NE(std::find(lines.begin(), lines.end(), line), lines.end()) << out.str();
}

TEST(calibrate_report, skipped_keys_say_why_in_their_own_section_and_raw_ones_come_last) {
  std::ostringstream out;
  write_platform(out, sample_report(), known);
  const auto lines = lines_of(out.str());
  const auto find = [&](const std::string& l) { return std::find(lines.begin(), lines.end(), l); };
  EXPECT_NE(find("# skipped: cpu.veth-xmit: not separated from cpu.veth-packet"), lines.end());
  const auto nic = find("[nic]");
  ASSERT_NE(nic, lines.end());
  EXPECT_EQ(*(nic + 1), "# skipped: nic.dma-delay: needs a NIC");
  const auto raw =
      find("# measured: getppid: p10/p50/p90 160/170/180 ns; n 100; syscall(SYS_getppid)");
  ASSERT_NE(raw, lines.end());
  EXPECT_GT(raw, nic);
  EXPECT_NE(find("# measured: wake-other-core: skipped: needs two CPUs"), lines.end());
}

TEST(calibrate_report, every_line_that_is_not_a_comment_is_a_key_with_a_method_and_a_spread) {
  std::ostringstream out;
  write_platform(out, sample_report(), known);
  int keys = 0;
  for (const auto& l : lines_of(out.str())) {
    if (l.empty() || l[0] == '#' || l[0] == '[') continue;
    ++keys;
    // name = "value"  # method; p10/p50/p90 ...
    const auto quote = l.find(" = \"");
    const auto comment = l.find("\"  # ");
    ASSERT_NE(quote, std::string::npos) << l;
    ASSERT_NE(comment, std::string::npos) << l;
    EXPECT_LT(quote, comment) << l;
    EXPECT_NE(l.find("; p10/p50/p90 ", comment), std::string::npos) << l;
  }
  EXPECT_EQ(keys, 1);
}

TEST(calibrate_report, json_has_every_entry_with_its_kind_value_spread_and_reason) {
  std::ostringstream out;
  write_json(out, sample_report(), known);
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["cpu_model"], "AMD EPYC");
  EXPECT_EQ(doc["quick"], true);
  EXPECT_DOUBLE_EQ(doc["seconds"].get<double>(), 4.5);
  EXPECT_EQ(doc["nice"], "-20");
  const auto& entries = doc["entries"];
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(entries[0]["kind"], "key");
  EXPECT_EQ(entries[0]["value"], "uniform(158ns, 183ns)");
  EXPECT_EQ(entries[0]["p50"], 170);
  EXPECT_EQ(entries[0]["n"], 100);
  EXPECT_TRUE(entries[0]["skipped"].is_null());
  EXPECT_EQ(entries[1]["kind"], "no-key-yet");
  EXPECT_EQ(entries[1]["method"], "veth's \"NAPI\" poll");
  EXPECT_EQ(entries[2]["kind"], "skipped");
  EXPECT_TRUE(entries[2]["value"].is_null());
  EXPECT_TRUE(entries[2]["p50"].is_null());
  EXPECT_EQ(entries[2]["skipped"], "not separated from cpu.veth-packet");
  EXPECT_EQ(entries[4]["kind"], "measured");
  EXPECT_TRUE(entries[4]["value"].is_null());
  EXPECT_EQ(entries[4]["p90"], 180);
}

TEST(calibrate_report, json_escapes_control_characters) {
  Report r = sample_report();
  r.entries[0].method = "a\tb\nc";
  std::ostringstream out;
  write_json(out, r, known);
  EXPECT_EQ(nlohmann::json::parse(out.str())["entries"][0]["method"], "a\tb\nc");
}

}  // namespace
}  // namespace irqmod::rt::calibrate
