// ns per posted MSI and per notification: the bookkeeping a simulator pays per device interrupt.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "irqmod/policy/posted_msi.hpp"

namespace {

namespace posted_msi = irqmod::posted_msi;

// A post that finds ON set and its bit pending: the common case under load (coalesced, merged).
void BM_posted_msi_post_coalesced(benchmark::State& state) {
  posted_msi::PostedMsiDescriptor d;
  d.post(40);
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.post(40));
    benchmark::DoNotOptimize(d);  // keep the counters in memory: no folding of the loop
  }
}
BENCHMARK(BM_posted_msi_post_coalesced);

// N distinct vectors posted, then one whole notification (loop, clear ON, final pass, EOI) with
// every delivered vector visited.
void BM_posted_msi_notification_with_n_vectors(benchmark::State& state) {
  const auto n = static_cast<unsigned>(state.range(0));
  posted_msi::PostedMsiDescriptor d;
  for (auto _ : state) {
    for (unsigned i = 0; i < n; ++i)
      d.post(static_cast<std::uint8_t>(32 + i));
    unsigned sum = 0;
    posted_msi::handle_notification(d, [&](const posted_msi::PassResult& p) {
      for (const std::uint8_t v : p.vectors)
        sum += v;
    });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * n);
}
BENCHMARK(BM_posted_msi_notification_with_n_vectors)->Arg(1)->Arg(4)->Arg(32)->Arg(203);

// A notification during which an MSI arrives after every pass: the loop limit decides.
void BM_posted_msi_notification_with_posts_during_passes(benchmark::State& state) {
  posted_msi::PostedMsiDescriptor d;
  for (auto _ : state) {
    d.post(40);
    std::uint8_t next = 41;
    posted_msi::handle_notification(d, [&](const posted_msi::PassResult& p) {
      if (!p.final) d.post(next++);
    });
    benchmark::DoNotOptimize(d.counters().delivered);
  }
}
BENCHMARK(BM_posted_msi_notification_with_posts_during_passes);

}  // namespace
