// Traffic generators, the arrival stream's batches, and pcap trace replay.
#include "irqmod/sim/traffic.hpp"

#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint64_t k10G = 10'000'000'000;

std::vector<Packet> take_all(ArrivalStream& stream, std::int64_t until_ns) {
  std::vector<Packet> out;
  stream.take_until(at_ns(until_ns), [&](const Packet& p) { out.push_back(p); });
  return out;
}

TEST(spacing, k_gaps_add_up_to_exactly_k_over_the_rate) {
  Spacing three = Spacing::per_second(3);
  EXPECT_EQ(three.next(), 333'333'333'333);
  EXPECT_EQ(three.next(), 333'333'333'333);
  EXPECT_EQ(three.next(), 333'333'333'334);  // 1e12 after three gaps
  Spacing seven = Spacing::per_second(7'000'000);
  std::int64_t total = 0;
  for (int i = 0; i < 7'000'000; ++i)
    total += seven.next();
  EXPECT_EQ(total, kPicosecondsPerSecond);
}

TEST(traffic, constant_rate_below_line_rate_keeps_its_spacing) {
  // 1 Mpps of 64 B on 10G: one frame every 1 us, each 57.6 ns on the wire before it is whole.
  ArrivalStream stream(ConstantRate(Spacing::per_second(1'000'000), 64, 0), Link(k10G), Rng(1));
  const std::vector<Packet> got = take_all(stream, 3'100);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].arrival_ns, 57);
  EXPECT_EQ(got[3].arrival_ns, 3'057);
  EXPECT_EQ(stream.next_arrival(), at_ns(4'057));
  EXPECT_EQ(stream.taken(), 4u);
}

TEST(traffic, offers_above_line_rate_leave_at_line_rate) {
  ArrivalStream stream(ConstantRate(Spacing::per_second(20'000'000), 64), Link(k10G), Rng(1));
  const std::vector<Packet> got = take_all(stream, 1'000);
  ASSERT_GE(got.size(), 3u);
  EXPECT_EQ(got[1].arrival_ns - got[0].arrival_ns, 67);  // 124.8 - 57.6 = 67.2, rounded per frame
  EXPECT_EQ(got[2].arrival_ns, 192);                     // 2 x 67.2 + 57.6 = 192.0
}

TEST(traffic, take_until_batches_continue_exactly_where_the_last_one_stopped) {
  ArrivalStream one(Poisson(2'000'000, 128), Link(k10G), Rng(5, 1));
  ArrivalStream split(Poisson(2'000'000, 128), Link(k10G), Rng(5, 1));
  const std::vector<Packet> whole = take_all(one, 1'000'000);
  std::vector<Packet> parts;
  for (std::int64_t t = 777; t <= 1'000'000; t += 777) {
    auto batch = take_all(split, t);
    parts.insert(parts.end(), batch.begin(), batch.end());
  }
  auto rest = take_all(split, 1'000'000);
  parts.insert(parts.end(), rest.begin(), rest.end());
  ASSERT_EQ(whole.size(), parts.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(whole[i].arrival_ns, parts[i].arrival_ns);
  }
}

TEST(traffic, poisson_arrivals_have_the_requested_rate_and_depend_only_on_seed_and_stream) {
  ArrivalStream a(Poisson(1'000'000, 64), Link(k10G), Rng(99, 3));
  ArrivalStream b(Poisson(1'000'000, 64), Link(k10G), Rng(99, 3));
  ArrivalStream c(Poisson(1'000'000, 64), Link(k10G), Rng(99, 4));
  const auto pa = take_all(a, 100'000'000);
  const auto pb = take_all(b, 100'000'000);
  const auto pc = take_all(c, 100'000'000);
  // 100 000 expected in 100 ms; Poisson sd = 316, 5 sd = 1581.
  EXPECT_NEAR(static_cast<double>(pa.size()), 100'000.0, 1'581.0);
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i)
    ASSERT_EQ(pa[i].arrival_ns, pb[i].arrival_ns);
  EXPECT_NE(pa[0].arrival_ns, pc[0].arrival_ns);
}

TEST(traffic, on_off_sends_bursts_on_their_period_boundaries) {
  // 10 Mpps (100 ns apart) for 1 us, then 4 us off: 10 frames per 5 us burst period.
  ArrivalStream stream(OnOff(Spacing::per_second(10'000'000), 64, 1'000'000, 4'000'000), Link(k10G),
                       Rng(1));
  const auto got = take_all(stream, 20'000);
  ASSERT_EQ(got.size(), 40u);
  EXPECT_EQ(got[9].arrival_ns, 957);      // 900 ns + 57.6
  EXPECT_EQ(got[10].arrival_ns, 5'057);   // next burst at 5 us
  EXPECT_EQ(got[39].arrival_ns, 15'957);  // fourth burst's last
}

TEST(traffic, arrivals_land_in_a_ring_until_it_is_full) {
  ArrivalStream stream(ConstantRate(Spacing::fixed(0), 64), Link(k10G), Rng(1));
  Ring<Packet> ring(100);
  std::uint64_t dropped = 0;
  stream.take_until(at_ns(10'000), [&](const Packet& p) {
    if (!ring.push(p)) ++dropped;
  });
  EXPECT_EQ(ring.size(), 100u);
  EXPECT_EQ(ring.size() + dropped, stream.taken());  // conservation at the ring
  EXPECT_EQ(stream.taken(), 148u);                   // floor((10000 - 57.6) / 67.2) + 1
  EXPECT_EQ(ring.front().arrival_ns, 57);
}

TEST(ring, keeps_fifo_order_across_the_wrap_with_a_capacity_that_is_not_a_power_of_two) {
  Ring<int> ring(5);
  EXPECT_EQ(ring.capacity(), 5u);
  int next_in = 0;
  int next_out = 0;
  for (int round = 0; round < 20; ++round) {
    while (ring.push(next_in))
      ++next_in;
    EXPECT_EQ(ring.size(), 5u);
    EXPECT_TRUE(ring.full());
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(ring.front(), next_out++);
      ring.pop();
    }
  }
  EXPECT_EQ(ring[0], next_out);
  EXPECT_EQ(ring.pushed() - ring.popped(), ring.size());
}

// ---- pcap ------------------------------------------------------------------------------------

struct Frame {
  std::int64_t t_ns;
  std::uint32_t len;
};

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("irqmod-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// Writes a nanosecond pcap with libpcap itself, so the reader is tested against the real format.
std::string write_pcap(const std::string& name, const std::vector<Frame>& frames,
                       int linktype = DLT_EN10MB) {
  const std::string path = temp_path(name);
  pcap_t* dead = pcap_open_dead_with_tstamp_precision(linktype, 65535, PCAP_TSTAMP_PRECISION_NANO);
  pcap_dumper_t* dumper = pcap_dump_open(dead, path.c_str());
  std::vector<u_char> bytes(16, 0xab);
  for (const Frame& f : frames) {
    pcap_pkthdr h{};
    h.ts.tv_sec = f.t_ns / 1'000'000'000;
    h.ts.tv_usec = f.t_ns % 1'000'000'000;  // nanoseconds in a nanosecond file
    h.caplen = 16;                          // snapped: the reader must use len
    h.len = f.len;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &h, bytes.data());
  }
  pcap_dump_close(dumper);
  pcap_close(dead);
  return path;
}

TEST(pcap, reads_timestamps_to_the_nanosecond_and_sizes_with_fcs) {
  const std::string path =
      write_pcap("good.pcap", {{5'000'000'123, 60}, {5'000'000'500, 1514}, {5'000'001'000, 42}});
  const auto trace = load_pcap(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(trace.ok()) << trace.error().what();
  ASSERT_EQ(trace->records.size(), 3u);
  EXPECT_EQ(trace->records[0].offset_ns, 0);
  EXPECT_EQ(trace->records[0].frame_bytes, 64u);  // 60 + FCS
  EXPECT_EQ(trace->records[1].offset_ns, 377);
  EXPECT_EQ(trace->records[1].frame_bytes, 1518u);
  EXPECT_EQ(trace->records[2].offset_ns, 877);
  EXPECT_EQ(trace->records[2].frame_bytes, 64u);  // 42 + 4 is a runt: padded to 64
}

TEST(pcap, replay_offers_the_trace_and_loops_after_an_average_gap) {
  auto trace = std::make_shared<Trace>();
  trace->records = {{0, 64}, {1'000, 64}, {3'000, 128}};
  TraceReplay replay(trace, /*loop=*/true);
  Rng rng(1);
  std::vector<std::int64_t> times;
  for (int i = 0; i < 6; ++i)
    times.push_back(replay.next(rng).time_ps / 1000);
  // period = span 3000 + 3000 / 2 = 4500 ns
  EXPECT_EQ(times, (std::vector<std::int64_t>{0, 1'000, 3'000, 4'500, 5'500, 7'500}));
  TraceReplay once(trace, /*loop=*/false);
  for (int i = 0; i < 3; ++i)
    once.next(rng);
  EXPECT_EQ(once.next(rng).time_ps, kNever);
}

TEST(pcap, a_stream_of_a_finished_trace_reports_no_next_arrival) {
  auto trace = std::make_shared<Trace>();
  trace->records = {{0, 64}, {100, 64}};
  ArrivalStream stream(TraceReplay(trace, false), Link(k10G), Rng(1));
  EXPECT_EQ(take_all(stream, 1'000'000).size(), 2u);
  EXPECT_EQ(stream.next_arrival(), Instant::max());
}

TEST(pcap, a_capture_drives_a_whole_simulation_frame_for_frame) {
  std::vector<Frame> frames;
  for (int i = 0; i < 1000; ++i) {
    frames.push_back({1'000'000 + i * 10'000LL, static_cast<std::uint32_t>(60 + (i % 3) * 700)});
  }
  const std::string path = write_pcap("drive.pcap", frames);
  Scenario s = default_scenario();
  s.scenario.duration = milliseconds(20);
  s.traffic.kind = TrafficKind::pcap;
  s.traffic.pcap = path;
  s.cpu.rx_packet = Distribution::constant_ns(500);
  auto report = simulate(s);
  ASSERT_TRUE(report.ok()) << report.error().what();
  EXPECT_EQ(report.value().conservation.entered, 1000U);  // every captured frame, once
  EXPECT_EQ(report.value().delivered_packets, 1000U);
  EXPECT_TRUE(report.value().conservation.ok());
  std::remove(path.c_str());
}

TEST(pcap, a_missing_capture_fails_the_run_naming_the_key) {
  Scenario s = default_scenario();
  s.traffic.kind = TrafficKind::pcap;
  s.traffic.pcap = temp_path("no-such.pcap");
  auto report = simulate(s);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().key, "traffic.pcap");
}

TEST(pcap, a_timestamp_going_backwards_is_an_error_naming_file_and_frame) {
  const std::string path = write_pcap("backwards.pcap", {{1'000, 60}, {2'000, 60}, {1'500, 60}});
  const auto trace = load_pcap(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().key, path);
  EXPECT_NE(trace.error().message.find("frame 3"), std::string::npos) << trace.error().message;
  EXPECT_NE(trace.error().message.find("earlier"), std::string::npos);
}

TEST(pcap, a_merged_super_frame_is_an_error) {
  const std::string path = write_pcap("tso.pcap", {{0, 60}, {10, 65'000}});
  const auto trace = load_pcap(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("frame 2"), std::string::npos);
  EXPECT_NE(trace.error().message.find("TSO"), std::string::npos);
}

TEST(pcap, other_link_types_empty_captures_and_non_captures_are_errors_naming_the_file) {
  const std::string raw = write_pcap("raw.pcap", {{0, 60}}, DLT_RAW);
  const auto not_ethernet = load_pcap(raw);
  std::filesystem::remove(raw);
  ASSERT_FALSE(not_ethernet.ok());
  EXPECT_NE(not_ethernet.error().message.find("DLT_EN10MB"), std::string::npos);

  const std::string empty = write_pcap("empty.pcap", {});
  const auto no_frames = load_pcap(empty);
  std::filesystem::remove(empty);
  ASSERT_FALSE(no_frames.ok());
  EXPECT_NE(no_frames.error().message.find("no frame"), std::string::npos);

  const std::string text = temp_path("text.pcap");
  std::ofstream(text) << "this is not a capture\n";
  const auto garbage = load_pcap(text);
  std::filesystem::remove(text);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().key, text);
  EXPECT_EQ(garbage.error().what().rfind(text, 0), 0u);  // the message starts with the file

  EXPECT_FALSE(load_pcap(temp_path("does-not-exist.pcap")).ok());
}

}  // namespace
}  // namespace irqmod::sim
