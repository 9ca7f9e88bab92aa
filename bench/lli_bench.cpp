// ns per low-latency-interrupt decision: the work per received packet.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>

#include "irqmod/policy/lli.hpp"

namespace {

using irqmod::Instant;
namespace lli = irqmod::lli;

lli::Config config(const lli::Settings& settings) {
  const irqmod::Expected<lli::Config> c = lli::make_config(settings);
  return c ? *c : lli::Config{};
}

// Seed 004's storm: the ring stays below 64 free descriptors, one packet per microsecond, most
// causes suppressed by the 60 us interval.
void BM_lli_ring_storm(benchmark::State& state) {
  lli::LowLatencyInterrupts l(config(lli::Settings{}));
  const lli::PacketInfo packet{};
  std::int64_t ns = 0;
  for (auto _ : state) {
    ns += 1000;
    benchmark::DoNotOptimize(l.on_rx(irqmod::at_ns(ns), 10, packet));
  }
}
BENCHMARK(BM_lli_ring_storm);

// A healthy ring and eight port filters, none matching: the full matcher scan per packet.
void BM_lli_eight_filters_no_match(benchmark::State& state) {
  std::array<lli::Matcher, lli::kMaxMatchers> filters{};
  for (std::size_t i = 0; i < filters.size(); ++i)
    filters[i] = lli::Matcher::port(lli::PortProtocol::tcp, static_cast<std::uint16_t>(9000 + i));
  lli::Settings settings;
  settings.filters = filters;
  lli::LowLatencyInterrupts l(config(settings));
  lli::PacketInfo packet;
  packet.l4 = lli::L4::tcp;
  packet.dst_port = 80;
  packet.length = 1500;
  std::int64_t ns = 0;
  for (auto _ : state) {
    ns += 1000;
    benchmark::DoNotOptimize(l.on_rx(irqmod::at_ns(ns), 400, packet));
  }
}
BENCHMARK(BM_lli_eight_filters_no_match);

// Unmoderated LLIs (interval 0): every cause fires.
void BM_lli_unmoderated(benchmark::State& state) {
  lli::Settings settings;
  settings.interval = irqmod::Duration::zero();
  lli::LowLatencyInterrupts l(config(settings));
  const lli::PacketInfo packet{};
  std::int64_t ns = 0;
  for (auto _ : state) {
    ns += 1000;
    benchmark::DoNotOptimize(l.on_rx(irqmod::at_ns(ns), 10, packet));
  }
}
BENCHMARK(BM_lli_unmoderated);

}  // namespace
