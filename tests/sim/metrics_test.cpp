// Counters, conservation, and the report formats: sockperf's lines, JSON, CSV.
#include "irqmod/sim/metrics.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace irqmod::sim {
namespace {

TEST(sockperf, summary_has_sockperfs_lines_in_its_order_and_format) {
  LatencyHistogram h;
  // 100 observations: 10.000 us ... 109.000 us (RTT/2 already), exact below the bucket error
  // since each is a multiple of 1 us and the checks below use the exact min and max.
  for (int i = 0; i < 100; ++i)
    h.record(10'000 + i * 1'000);
  SockperfOptions options;
  options.dropped = 2;
  const std::string text = sockperf_summary(h, options);
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line))
    all.push_back(line);
  ASSERT_EQ(all.size(), 14u) << text;
  EXPECT_EQ(all[0], "sockperf: ====> avg-latency=59.500 (std-dev=28.866)");
  EXPECT_EQ(all[1],
            "sockperf: # dropped messages = 2; # duplicated messages = 0; # out-of-order "
            "messages = 0");
  EXPECT_EQ(all[2], "sockperf: Summary: Latency is 59.500 usec");
  EXPECT_EQ(all[3], "sockperf: Total 100 observations; each percentile contains 1.00 observations");
  EXPECT_EQ(all[4], "sockperf: ---> <MAX> observation =  109.000");
  EXPECT_EQ(all[5].substr(0, 33), "sockperf: ---> percentile 99.999 ");
  EXPECT_EQ(all[6].substr(0, 33), "sockperf: ---> percentile 99.990 ");
  EXPECT_EQ(all[9].substr(0, 33), "sockperf: ---> percentile 90.000 ");
  EXPECT_EQ(all[12].substr(0, 33), "sockperf: ---> percentile 25.000 ");
  EXPECT_EQ(all[13], "sockperf: ---> <MIN> observation =   10.000");
  // rank 100 of 100 is the exact max; rank 25 is 34 us, within the bucket error.
  EXPECT_EQ(all[5], "sockperf: ---> percentile 99.999 =  109.000");
}

TEST(sockperf, full_round_trips_are_labelled_rtt) {
  LatencyHistogram h;
  h.record(1'000);
  SockperfOptions options;
  options.round_trip = true;
  const std::string text = sockperf_summary(h, options);
  EXPECT_NE(text.find("====> avg-rtt=1.000 (std-dev=0.000)"), std::string::npos);
  EXPECT_NE(text.find("Summary: Round trip is 1.000 usec"), std::string::npos);
  // With one observation, only ranks that round to 1 print (99.999 ... 50; 25 rounds to 0).
  EXPECT_EQ(text.find("percentile 25.000"), std::string::npos);
  EXPECT_NE(text.find("percentile 50.000 =    1.000"), std::string::npos);
}

TEST(sockperf, no_observation_gives_sockperfs_message) {
  EXPECT_EQ(sockperf_summary(LatencyHistogram{}),
            "sockperf: No messages were received from the server. Is the server down?\n");
}

TEST(sockperf, microseconds_have_exactly_three_decimals) {
  EXPECT_EQ(format_usec(45'633, 8), "  45.633");
  EXPECT_EQ(format_usec(103'294'331'000 / 1000, 8), "103294.331");
  EXPECT_EQ(format_usec(7), "0.007");
  EXPECT_EQ(format_usec(-1'500), "-1.500");
}

TEST(conservation, balanced_books_pass_and_unbalanced_ones_name_both_sides) {
  Conservation c{100, 90, 7, 3};
  EXPECT_TRUE(c.ok());
  EXPECT_FALSE(c.check().has_value());
  c.in_flight = 2;
  ASSERT_TRUE(c.check().has_value());
  EXPECT_EQ(c.check()->key, "conservation");
  EXPECT_NE(c.check()->message.find("entered 100 != delivered 90 + dropped 7 + in flight 2 = 99"),
            std::string::npos);
}

TEST(counters, drops_interrupts_and_cpu_time_add_up) {
  DropCounters drops;
  drops.add(DropReason::rx_ring_full, 5);
  drops.add(DropReason::rx_no_buffer);
  EXPECT_EQ(drops.total(), 6u);
  EXPECT_EQ(drops.count(DropReason::rx_ring_full), 5u);
  InterruptCounters irqs(3);
  irqs.count(0);
  irqs.count(2);
  irqs.count(2);
  EXPECT_EQ(irqs.total(), 3u);
  EXPECT_EQ(irqs.count_of(2), 2u);
  CpuTime cpu(2);
  cpu.charge(1, ContextKind::hardirq, nanoseconds(300));
  cpu.charge(1, ContextKind::softirq, nanoseconds(700));
  EXPECT_EQ(cpu.busy(1), nanoseconds(1000));
  EXPECT_EQ(cpu.busy(0), Duration::zero());
  EXPECT_EQ(to_string(ContextKind::busy_poll), "busy_poll");
  EXPECT_EQ(to_string(DropReason::socket_queue_full), "socket_queue_full");
}

RunReport sample_report() {
  RunReport r;
  r.scenario = "seed-000, \"before\"";
  r.seed = 7;
  r.sim_time = milliseconds(500);
  r.events = 1234;
  for (int i = 1; i <= 1000; ++i)
    r.latency.record(i * 100);
  r.interrupts = InterruptCounters(2);
  for (int i = 0; i < 10; ++i)
    r.interrupts.count(1);
  r.cpu = CpuTime(1);
  r.cpu.charge(0, ContextKind::softirq, milliseconds(100));
  r.delivered_packets = 1000;
  r.delivered_bytes = 64'000;
  r.drops.add(DropReason::rx_ring_full, 3);
  r.conservation = Conservation{1005, 1000, 3, 2};
  return r;
}

TEST(report, json_has_the_documented_fields_and_values) {
  std::ostringstream out;
  write_json(out, sample_report());
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["scenario"], "seed-000, \"before\"");
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["sim_time_ns"], 500'000'000);
  EXPECT_FALSE(j.contains("wall_ns"));  // -1: left out so that output is byte-identical
  EXPECT_EQ(j["events"], 1234);
  EXPECT_EQ(j["latency_ns"]["count"], 1000);
  EXPECT_EQ(j["latency_ns"]["min"], 100);
  EXPECT_EQ(j["latency_ns"]["max"], 100'000);
  for (const char* k :
       {"p25", "p50", "p75", "p90", "p99", "p99_9", "p99_99", "p99_999", "avg", "stddev"}) {
    EXPECT_TRUE(j["latency_ns"].contains(k)) << k;
  }
  EXPECT_EQ(j["interrupts"]["total"], 10);
  EXPECT_DOUBLE_EQ(j["interrupts"]["per_second"].get<double>(), 20.0);
  EXPECT_EQ(j["interrupts"]["per_vector"]["1"]["total"], 10);
  EXPECT_DOUBLE_EQ(j["cpu"]["utilization"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(j["cpu"]["per_core"][0]["softirq"].get<double>(), 0.2);
  EXPECT_EQ(j["cpu"]["per_core"][0]["core"], 0);
  for (const char* k : {"busy_fraction", "hardirq", "softirq", "thread", "busy_poll"}) {
    EXPECT_TRUE(j["cpu"]["per_core"][0].contains(k)) << k;
  }
  EXPECT_DOUBLE_EQ(j["throughput"]["pps"].get<double>(), 2000.0);
  EXPECT_DOUBLE_EQ(j["throughput"]["bps"].get<double>(), 1'024'000.0);
  EXPECT_EQ(j["drops"]["rx_ring_full"], 3);
  EXPECT_EQ(j["conservation"]["in_flight"], 2);
  EXPECT_EQ(j["conservation"]["ok"], true);
}

TEST(report, zero_simulated_time_gives_null_rates_not_infinities) {
  RunReport r = sample_report();
  r.sim_time = Duration::zero();
  std::ostringstream out;
  write_json(out, r);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_TRUE(j["interrupts"]["per_second"].is_null());
  EXPECT_TRUE(j["throughput"]["pps"].is_null());
}

TEST(report, csv_quotes_the_name_and_has_as_many_cells_as_header_columns) {
  std::ostringstream out;
  write_csv(out, sample_report());
  std::istringstream lines(out.str());
  std::string header;
  std::string row;
  std::getline(lines, header);
  std::getline(lines, row);
  const auto columns = std::count(header.begin(), header.end(), ',');
  EXPECT_EQ(row.rfind("\"seed-000, \"\"before\"\"\",7,500000000,", 0), 0u) << row;
  // The quoted name holds one comma of its own.
  EXPECT_EQ(std::count(row.begin(), row.end(), ','), columns + 1);
  EXPECT_EQ(row.substr(row.size() - 5), ",true");
}

TEST(report, text_ends_with_the_conservation_verdict) {
  std::ostringstream out;
  RunReport r = sample_report();
  r.conservation.in_flight = 0;
  write_text(out, r);
  EXPECT_NE(out.str().find("conservation: entered 1005 = delivered 1000 + dropped 3 + in flight 0: "
                           "BROKEN"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("sockperf: ====> avg-latency=50.050"), std::string::npos);
  EXPECT_NE(out.str().find("drops: 3; rx_ring_full 3"), std::string::npos);
}

TEST(report, stranded_frames_and_the_probes_that_ended_their_stalls_are_in_text_and_json) {
  RunReport r = sample_report();
  std::ostringstream quiet;
  write_text(quiet, r);
  EXPECT_EQ(quiet.str().find("stranded"), std::string::npos);  // nothing to say: left out
  EXPECT_EQ(quiet.str().find("loss probes"), std::string::npos);
  r.stranded_frames = 5;
  r.tcp_loss_probes = 4;
  r.probe_answers = 4;
  std::ostringstream text;
  write_text(text, r);
  EXPECT_NE(text.str().find("stranded frames: 5 (left in a ring, unsignalled, when a poll "
                            "re-enabled its interrupt)\n"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("tcp loss probes: 4; replies that waited for one: 4\n"),
            std::string::npos);
  std::ostringstream json;
  write_json(json, r);
  const nlohmann::json j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["stranded_frames"], 5);
  EXPECT_EQ(j["tcp_loss_probes"], 4);
  EXPECT_EQ(j["probe_answers"], 4);
}

}  // namespace
}  // namespace irqmod::sim
