// The run's time series as CSV. See irqmod/sim/series.hpp.
#include "irqmod/sim/series.hpp"

#include <algorithm>
#include <cstdio>

namespace irqmod::sim {
namespace {

std::string seconds_text(Duration d) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.9f", static_cast<double>(d.count()) / 1e9);
  return buffer;
}

// A count over an interval as a rate per second, three decimals; the interval is never zero
// (samples are taken at distinct instants).
std::string rate_text(std::uint64_t count, Duration interval) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.3f",
                static_cast<double>(count) * 1e9 / static_cast<double>(interval.count()));
  return buffer;
}

}  // namespace

Duration series_step(Duration asked, Duration run) {
  if (asked > Duration::zero()) return asked;
  // 500 samples: about one per two pixels of the 1000-pixel panels irqmod sim --plot draws.
  return std::max(run / 500, Duration(microseconds(1)));
}

void write_series_csv(std::ostream& out, const RunSeries& series) {
  out << "end_s,interval_s,measured";
  for (std::size_t q = 0; q < series.queues.size(); ++q) {
    const std::string p = "rx" + std::to_string(q) + "_";
    out << ',' << p << "used," << p << "free," << p << "frames," << p << "dropped," << p
        << "frames_per_s," << p << "dropped_per_s," << p << "moderation_us";
    if (series.dim) out << ',' << p << "dim_profile";
  }
  for (std::size_t v = 0; v < series.vectors.size(); ++v) {
    const std::string p = "vector" + std::to_string(v) + "_";
    out << ',' << p << "interrupts," << p << "interrupts_per_s";
  }
  out << '\n';
  for (std::size_t k = 1; k < series.samples(); ++k) {
    const Duration interval = series.times[k] - series.times[k - 1];
    out << seconds_text(series.times[k] - at_ns(0)) << ',' << seconds_text(interval) << ','
        << (series.times[k - 1] >= series.warmup_end ? 1 : 0);
    for (std::size_t q = 0; q < series.queues.size(); ++q) {
      const QueueSample& now = series.queue(k, q);
      const QueueSample& before = series.queue(k - 1, q);
      const std::uint64_t frames = now.written_back - before.written_back;
      const std::uint64_t dropped = now.dropped - before.dropped;
      char usecs[32];
      std::snprintf(usecs, sizeof usecs, "%.3f", static_cast<double>(now.moderation_ns) / 1e3);
      out << ',' << now.used << ',' << now.free << ',' << frames << ',' << dropped << ','
          << rate_text(frames, interval) << ',' << rate_text(dropped, interval) << ',' << usecs;
      if (series.dim) out << ',' << now.dim_profile;
    }
    for (std::size_t v = 0; v < series.vectors.size(); ++v) {
      const std::uint64_t n = series.interrupts_of(k, v) - series.interrupts_of(k - 1, v);
      out << ',' << n << ',' << rate_text(n, interval);
    }
    out << '\n';
  }
}

}  // namespace irqmod::sim
