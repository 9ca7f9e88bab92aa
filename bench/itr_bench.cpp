// ns per ITR encode (the configuration edge) and per throttle check (once per interrupt in the
// simulator).
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>

#include "irqmod/policy/itr.hpp"

namespace {

namespace itr = irqmod::itr;
using irqmod::at_ns;
using irqmod::microseconds;

// Inputs cycled so the compiler cannot fold the division.
constexpr std::array<std::uint32_t, 8> kRates = {1000,  4000,  8000,  12000,
                                                 20000, 33000, 50000, 97000};
constexpr std::array<std::uint32_t, 8> kUsecs = {10, 20, 50, 62, 122, 124, 250, 1000};

// Validated encode with the device already looked up: OpenBSD's (4000000 / rate) & 0xff8.
void BM_itr_encode_rate_82599(benchmark::State& state) {
  const itr::Device& d = itr::kDevices[1];
  std::size_t i = 0;
  for (auto _ : state) {
    auto e = itr::encode_rate(d, kRates[i++ & 7]);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_itr_encode_rate_82599);

// Validated encode through the usecs path of the 2 us family.
void BM_itr_encode_usecs_i40e(benchmark::State& state) {
  const itr::Device& d = itr::kDevices[3];
  std::size_t i = 0;
  for (auto _ : state) {
    auto e = itr::encode_usecs(d, kUsecs[i++ & 7]);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_itr_encode_usecs_i40e);

// Encode by name: the device lookup plus the encode, as a configuration parser would call it.
void BM_itr_encode_rate_by_name_e1000e(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    auto e = itr::encode_rate("e1000e", kRates[i++ & 7] + 100);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_itr_encode_rate_by_name_e1000e);

// The register arithmetic alone, no validation: what a simulator reprogramming ITR pays.
void BM_itr_register_from_rate_82598(benchmark::State& state) {
  const itr::Device& d = itr::kDevices[0];
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(itr::decode(d, itr::register_from_rate(d, kRates[i++ & 7])));
  }
}
BENCHMARK(BM_itr_register_from_rate_82598);

// One may_fire check plus a fired() when allowed, with events every 37 us against a 124 us gap.
void BM_itr_throttle_check(benchmark::State& state) {
  itr::Throttle t(microseconds(124));
  std::int64_t now = 0;
  for (auto _ : state) {
    now += 37'000;
    const bool fire = t.may_fire(at_ns(now));
    if (fire) t.fired(at_ns(now));
    benchmark::DoNotOptimize(fire);
  }
}
BENCHMARK(BM_itr_throttle_check);

}  // namespace
