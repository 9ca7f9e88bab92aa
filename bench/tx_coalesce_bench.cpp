// ns per Tx coalescing calculation: what a driver pays on a link change.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "irqmod/policy/tx_coalesce.hpp"

namespace {

namespace tx_coalesce = irqmod::tx_coalesce;

// The arithmetic alone, on a config the optimiser cannot see through.
void BM_tx_coalesce_compute(benchmark::State& state) {
  tx_coalesce::TxConfig config{10'000'000'000, 1024, 1518, 50};
  for (auto _ : state) {
    benchmark::DoNotOptimize(config);
    benchmark::DoNotOptimize(tx_coalesce::compute(config));
  }
}
BENCHMARK(BM_tx_coalesce_compute);

// Validation plus arithmetic, the configuration-edge entry point (no allocation on success).
void BM_tx_coalesce_plan(benchmark::State& state) {
  tx_coalesce::TxConfig config{25'000'000'000, 4096, 64, 50};
  for (auto _ : state) {
    benchmark::DoNotOptimize(config);
    benchmark::DoNotOptimize(tx_coalesce::plan(config));
  }
}
BENCHMARK(BM_tx_coalesce_plan);

// The precomputed table: what a driver would do on a link-speed change.
void BM_tx_coalesce_table_lookup(benchmark::State& state) {
  std::uint64_t speed = 100'000'000'000;
  for (auto _ : state) {
    benchmark::DoNotOptimize(speed);
    benchmark::DoNotOptimize(tx_coalesce::find_in_table(speed));
  }
}
BENCHMARK(BM_tx_coalesce_table_lookup);

}  // namespace
