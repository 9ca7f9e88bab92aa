// The server's statistics (src/rt/stats.cpp): the text line and the JSON object give the same
// fields with the same values, durations are seconds with nanosecond precision (exact, negative
// ones too), every reject reason appears by its name, and rejected_total is their sum.
#include "irqmod/rt/stats.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "irqmod/rt/sockperf_protocol.hpp"

namespace irqmod::rt {
namespace {

// Every field set to a value of its own, so that a field printed in another's place shows.
ServerStats distinct_stats() {
  ServerStats s;
  s.elapsed = nanoseconds(1'500'000'001);
  s.messages = 101;
  s.replies = 60;
  s.reply_failures = 2;
  s.warmup = 3;
  s.no_reply = 4;
  for (std::size_t i = 0; i < s.rejected.size(); ++i)
    s.rejected[i] = 5 + i;  // 5 ... 10: 45 in all
  s.connections_accepted = 11;
  s.connections_closed = 12;
  s.connections_refused = 13;
  s.wakeups = 14;
  s.spins = 15;
  s.timer_sleeps = 16;
  s.mode_switches = 17;
  s.recheck_found_work = 18;
  s.mean_gap = nanoseconds(250);
  s.gap_deviation = nanoseconds(-250);
  s.spin_window = microseconds(20);
  s.cpu_user = milliseconds(1'234);
  s.cpu_system = nanoseconds(-1'500'000'000);
  s.voluntary_switches = 19;
  s.involuntary_switches = 20;
  return s;
}

// The text line's `name=value` words (the label and the parentheses left out).
std::map<std::string, std::string> words_of(const std::string& line) {
  std::map<std::string, std::string> words;
  std::istringstream in(line);
  std::string word;
  while (in >> word) {
    if (!word.empty() && word.front() == '(') word.erase(0, 1);
    if (!word.empty() && word.back() == ')') word.pop_back();
    const std::size_t eq = word.find('=');
    if (eq != std::string::npos) words[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return words;
}

TEST(stats, rejected_total_is_the_sum_of_every_reason) {
  const ServerStats s = distinct_stats();
  EXPECT_EQ(s.rejected_total(), 45U);
  EXPECT_EQ(ServerStats{}.rejected_total(), 0U);
}

TEST(stats, the_text_line_starts_with_its_label_and_names_the_reject_reasons) {
  const std::string line = format_text(distinct_stats(), "interval");
  EXPECT_EQ(line.rfind("interval elapsed_s=1.500000001 messages=101 replies=60 ", 0), 0U) << line;
  const auto words = words_of(line);
  for (std::size_t i = 0; i < sockperf::kRejectReasons; ++i) {
    const std::string name(sockperf::reject_name(static_cast<sockperf::Reject>(i)));
    ASSERT_TRUE(words.count(name)) << name << " in " << line;
    EXPECT_EQ(words.at(name), std::to_string(5 + i)) << name;
  }
  EXPECT_EQ(words.at("rejected_total"), "45");
  EXPECT_NE(line.find("rejected_total=45 (truncated=5 "), std::string::npos) << line;
}

TEST(stats, every_counter_is_printed_under_its_own_name) {
  const auto words = words_of(format_text(distinct_stats(), "final"));
  const std::map<std::string, std::string> expected{{"messages", "101"},
                                                    {"replies", "60"},
                                                    {"reply_failures", "2"},
                                                    {"warmup", "3"},
                                                    {"no_reply", "4"},
                                                    {"connections_accepted", "11"},
                                                    {"connections_closed", "12"},
                                                    {"connections_refused", "13"},
                                                    {"wakeups", "14"},
                                                    {"spins", "15"},
                                                    {"timer_sleeps", "16"},
                                                    {"mode_switches", "17"},
                                                    {"recheck_found_work", "18"},
                                                    {"voluntary_switches", "19"},
                                                    {"involuntary_switches", "20"}};
  for (const auto& [name, value] : expected) {
    ASSERT_TRUE(words.count(name)) << name;
    EXPECT_EQ(words.at(name), value) << name;
  }
}

TEST(stats, durations_are_exact_seconds_with_nanosecond_precision) {
  const auto words = words_of(format_text(distinct_stats(), "final"));
  EXPECT_EQ(words.at("elapsed_s"), "1.500000001");
  EXPECT_EQ(words.at("mean_gap_s"), "0.000000250");
  EXPECT_EQ(words.at("gap_deviation_s"), "-0.000000250");
  EXPECT_EQ(words.at("spin_window_s"), "0.000020000");
  EXPECT_EQ(words.at("cpu_user_s"), "1.234000000");
  EXPECT_EQ(words.at("cpu_system_s"), "-1.500000000");
}

TEST(stats, the_json_object_parses_and_holds_the_texts_values) {
  const ServerStats s = distinct_stats();
  const std::string json = format_json(s, "final");
  EXPECT_EQ(json.find('\n'), std::string::npos);  // one line
  const auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j.at("event"), "final");
  const auto words = words_of(format_text(s, "final"));
  std::size_t compared = 0;
  for (const auto& [key, value] : j.items()) {
    if (key == "event" || key == "rejected") continue;
    ASSERT_TRUE(words.count(key)) << key << " is in the JSON but not in the text";
    if (value.is_number_unsigned()) {
      EXPECT_EQ(std::to_string(value.get<std::uint64_t>()), words.at(key)) << key;
    } else {
      EXPECT_DOUBLE_EQ(value.get<double>(), std::stod(words.at(key))) << key;
    }
    ++compared;
  }
  EXPECT_EQ(compared + sockperf::kRejectReasons, words.size());  // nothing only in the text
  ASSERT_EQ(j.at("rejected").size(), sockperf::kRejectReasons);
  EXPECT_EQ(j.at("rejected").at("not_client"), 9);
  EXPECT_EQ(j.at("rejected_total"), 45);
  EXPECT_EQ(j.at("involuntary_switches"), 20);
}

}  // namespace
}  // namespace irqmod::rt
