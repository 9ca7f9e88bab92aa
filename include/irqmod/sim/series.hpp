// A run's time series (irqmod sim --plot, --plot-csv): at every scenario.series-interval of
// simulated time, the state of each Rx queue (ring descriptors used and free, frames written
// back and dropped so far, the moderation setting in effect and net_dim's profile) and each
// vector's interrupts so far. The simulator samples it from its event loop without adding an
// event (src/sim/sampler.hpp), so a run with a series gives the same report as one without, and
// the same scenario gives the same samples.
//
// The samples are taken at 0, every interval, at the warm-up's end (the instant the report's
// counts start from) and at the run's end. The rows of write_series_csv are the intervals
// between two samples: the state at the interval's end and the counts within it, so the rows
// after the warm-up add up to the report's interrupt count exactly.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "irqmod/time.hpp"

namespace irqmod::sim {

// One Rx queue at one sample.
struct QueueSample {
  std::uint32_t used = 0;          // descriptors holding frames written back, not yet cleaned
  std::uint32_t free = 0;          // descriptors with a buffer, ready for a frame
  std::uint64_t written_back = 0;  // frames landed in the ring since the start
  std::uint64_t dropped = 0;       // frames dropped at the ring since the start (any reason)
  std::int64_t moderation_ns = 0;  // rx-usecs in effect (coalesce, dim) or the vector's ITR
  std::int32_t dim_profile = -1;   // net_dim's profile index; -1 without dim
};

struct RunSeries {
  Duration interval{};     // the step (scenario.series-interval, or the automatic one)
  Instant warmup_end{};    // scenario.warmup: rows ending after it are measured
  std::string moderation;  // what moderation_ns is: "rx-usecs" or "ITR interval"
  bool dim = false;        // dim_profile is set
  struct Queue {
    std::string name;        // "rx queue 0"
    std::uint32_t ring = 0;  // descriptors (nic.ring-size)
  };
  std::vector<Queue> queues;         // the Rx queues, by index
  std::vector<std::string> vectors;  // the MSI-X vectors, by number ("vector 0: rx queue 0")

  // Sample k: times[k]; queue q's state at queue_samples[k * queues.size() + q]; vector v's
  // interrupts since the start at interrupts[k * vectors.size() + v].
  std::vector<Instant> times;
  std::vector<QueueSample> queue_samples;
  std::vector<std::uint64_t> interrupts;

  std::size_t samples() const { return times.size(); }
  const QueueSample& queue(std::size_t k, std::size_t q) const {
    return queue_samples[k * queues.size() + q];
  }
  std::uint64_t interrupts_of(std::size_t k, std::size_t v) const {
    return interrupts[k * vectors.size() + v];
  }
};

// The step of a run of `run` (scenario.duration, the warm-up included) for
// scenario.series-interval `asked`: itself, or for 0 the run / 500 (at least 1 us).
Duration series_step(Duration asked, Duration run);

// One row per interval between samples: end_s, interval_s, measured (1 after the warm-up), then
// per Rx queue N: rxN_used, rxN_free (descriptors at the end), rxN_frames, rxN_dropped (in the
// interval), rxN_frames_per_s, rxN_dropped_per_s, rxN_moderation_us, and rxN_dim_profile with
// dim; then per vector V: vectorV_interrupts (in the interval), vectorV_interrupts_per_s.
void write_series_csv(std::ostream& out, const RunSeries& series);

}  // namespace irqmod::sim
