// The trace-event writer: valid JSON always, the event shapes Perfetto reads, the window.
#include "irqmod/sim/trace.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace irqmod::sim {
namespace {

nlohmann::json parse(const std::string& text) {
  return nlohmann::json::parse(text);
}

TEST(trace, writes_every_event_kind_as_trace_event_json) {
  std::ostringstream out;
  {
    TraceWriter trace(out);
    trace.process_name(1, "host \"A\"");
    trace.thread_name(1, 0, "cpu0");
    trace.slice(1, 0, "hardirq", "irq", at_ns(1'000), nanoseconds(1'500));
    trace.begin(1, 0, "softirq", "napi", at_ns(3'000));
    trace.end(1, 0, at_ns(4'250));
    trace.instant(1, 0, "MSI-X 3", "irq", at_ns(999));
    trace.counter(1, "rx ring", "used", at_ns(5'000), 17);
  }
  const auto j = parse(out.str());
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  const auto& ev = j["traceEvents"];
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev[0]["ph"], "M");
  EXPECT_EQ(ev[0]["name"], "process_name");
  EXPECT_EQ(ev[0]["args"]["name"], "host \"A\"");
  EXPECT_EQ(ev[1]["args"]["name"], "cpu0");
  EXPECT_EQ(ev[2]["ph"], "X");
  EXPECT_DOUBLE_EQ(ev[2]["ts"].get<double>(), 1.0);  // microseconds
  EXPECT_DOUBLE_EQ(ev[2]["dur"].get<double>(), 1.5);
  EXPECT_EQ(ev[2]["cat"], "irq");
  EXPECT_EQ(ev[3]["ph"], "B");
  EXPECT_EQ(ev[4]["ph"], "E");
  EXPECT_DOUBLE_EQ(ev[4]["ts"].get<double>(), 4.25);
  EXPECT_EQ(ev[5]["ph"], "i");
  EXPECT_EQ(ev[5]["s"], "t");
  EXPECT_DOUBLE_EQ(ev[5]["ts"].get<double>(), 0.999);
  EXPECT_EQ(ev[6]["ph"], "C");
  EXPECT_EQ(ev[6]["args"]["used"], 17);
}

TEST(trace, an_empty_trace_is_valid_json) {
  std::ostringstream out;
  { TraceWriter trace(out); }
  EXPECT_TRUE(parse(out.str())["traceEvents"].empty());
}

TEST(trace, close_ends_open_slices_so_begins_and_ends_balance) {
  std::ostringstream out;
  TraceWriter trace(out);
  trace.begin(1, 2, "busy poll", "poll", at_ns(100));
  trace.begin(1, 2, "inner", "poll", at_ns(200));
  trace.instant(1, 2, "tick", "", at_ns(700));
  trace.close();
  trace.close();  // idempotent
  trace.instant(1, 2, "after close", "", at_ns(800));
  const auto ev = parse(out.str())["traceEvents"];
  int depth = 0;
  for (const auto& e : ev) {
    if (e["ph"] == "B") ++depth;
    if (e["ph"] == "E") {
      --depth;
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.7);  // the last time seen
    }
  }
  EXPECT_EQ(depth, 0);
  EXPECT_EQ(ev.size(), 5u);
}

TEST(trace, the_window_drops_outside_events_and_clips_straddling_slices) {
  std::ostringstream out;
  {
    TraceWriter trace(out, TraceWindow{at_ns(1'000), at_ns(2'000)});
    trace.instant(0, 0, "before", "", at_ns(999));
    trace.instant(0, 0, "inside", "", at_ns(1'000));
    trace.instant(0, 0, "after", "", at_ns(2'001));
    trace.slice(0, 0, "straddles start", "", at_ns(500), nanoseconds(1'000));  // -> 1000..1500
    trace.slice(0, 0, "straddles end", "", at_ns(1'800), nanoseconds(1'000));  // -> 1800..2000
    trace.slice(0, 0, "outside", "", at_ns(0), nanoseconds(10));
    trace.begin(0, 1, "long", "", at_ns(100));    // before the window
    trace.end(0, 1, at_ns(5'000));                // after it: clipped to both edges
    trace.begin(0, 2, "late", "", at_ns(3'000));  // after the window: left out
    trace.end(0, 2, at_ns(4'000));
    trace.counter(0, "ring", "used", at_ns(1'500), 3);
  }
  const auto ev = parse(out.str())["traceEvents"];
  std::vector<std::string> names;
  for (const auto& e : ev) {
    if (e.contains("name")) names.push_back(e["name"]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"inside", "straddles start", "straddles end", "long",
                                             "ring"}));
  EXPECT_DOUBLE_EQ(ev[1]["ts"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(ev[1]["dur"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(ev[2]["dur"].get<double>(), 0.2);
  EXPECT_EQ(ev[3]["ph"], "B");
  EXPECT_DOUBLE_EQ(ev[3]["ts"].get<double>(), 1.0);
  EXPECT_EQ(ev[4]["ph"], "E");
  EXPECT_DOUBLE_EQ(ev[4]["ts"].get<double>(), 2.0);
}

TEST(trace, a_slice_open_past_the_windows_end_is_closed_at_it) {
  std::ostringstream out;
  {
    TraceWriter trace(out, TraceWindow{at_ns(0), at_ns(1'000)});
    trace.begin(0, 0, "poll", "", at_ns(900));
  }
  const auto ev = parse(out.str())["traceEvents"];
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1]["ph"], "E");
  EXPECT_DOUBLE_EQ(ev[1]["ts"].get<double>(), 1.0);
}

TEST(trace, window_text_takes_units_and_open_ends) {
  const auto both = parse_trace_window("10ms:20.5ms");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->start, at_ns(10'000'000));
  EXPECT_EQ(both->end, at_ns(20'500'000));
  const auto open_end = parse_trace_window("1s:");
  ASSERT_TRUE(open_end.ok());
  EXPECT_EQ(open_end->end, Instant::max());
  const auto open_start = parse_trace_window(":500us");
  ASSERT_TRUE(open_start.ok());
  EXPECT_EQ(open_start->start, Instant::min());
  for (const char* bad : {"10ms", "20ms:10ms", "10:20", "x:y", "1.5ns:2ns"}) {
    const auto w = parse_trace_window(bad);
    ASSERT_FALSE(w.ok()) << bad;
    EXPECT_EQ(w.error().key, "--trace-window");
  }
}

TEST(trace, detail_is_polls_or_frames_and_anything_else_is_named) {
  EXPECT_EQ(parse_trace_detail("polls").value(), TraceDetail::polls);
  EXPECT_EQ(parse_trace_detail("frames").value(), TraceDetail::frames);
  const auto bad = parse_trace_detail("all");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().key, "--trace-detail");
  EXPECT_NE(bad.error().message.find("'all'"), std::string::npos);
}

TEST(trace, the_writer_defaults_to_polls_and_says_whether_frames_are_wanted) {
  std::ostringstream a, b;
  EXPECT_FALSE(TraceWriter(a).frames());
  EXPECT_TRUE(TraceWriter(b, TraceWindow{}, TraceDetail::frames).frames());
}

TEST(trace, bytes_counts_what_the_events_wrote) {
  std::ostringstream out;
  TraceWriter trace(out);
  const std::size_t head = out.str().size();
  trace.counter(1, "rx ring", "used", at_ns(5'000), 17);
  trace.instant(1, 0, "x", "y", at_ns(6'000));
  EXPECT_EQ(trace.bytes(), out.str().size() - head);
  EXPECT_GT(trace.bytes(), 0U);
}

TEST(trace, the_size_estimate_extrapolates_the_part_written) {
  EXPECT_EQ(estimate_trace_bytes(1'000'000, 0.01), 100'000'000U);
  EXPECT_EQ(estimate_trace_bytes(5'000, 1.0), 5'000U);
  EXPECT_EQ(estimate_trace_bytes(5'000, 2.0), 5'000U);  // never below what is written
  EXPECT_EQ(estimate_trace_bytes(5'000, 0.0), 0U);      // nothing to go on yet
}

}  // namespace
}  // namespace irqmod::sim
