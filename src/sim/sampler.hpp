// The run's time series (irqmod/sim/series.hpp), sampled from simulate()'s event loop as the
// progress report is: before each event, every sample instant that event passes is recorded, so
// asking for a series adds no event and changes nothing in the run. The ports are landed up to
// the sample's instant first (lazy landing gives the same run wherever it lands: the oracle test
// of simulation.hpp), so the ring is the one at that instant. What is read per queue is
// QueueVector::rx_sample(), which the trace's counters read too.
#pragma once

#include <string>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/series.hpp"
#include "sim/builder.hpp"

namespace irqmod::sim {

// The name of a vector on the timeline and in the series: "vector 0: rx queue 0 tx queue 0".
std::string vector_name(const Host& host, const QueueVector& vector);

class Sampler {
 public:
  // Fills `out` for a run of `scenario` on `host` (built). Records the sample at 0.
  Sampler(Host& host, const Scenario& scenario, RunSeries& out);

  // Before an event at `now`: the sample instants before it.
  void before(Instant now) {
    if (next_ < now) catch_up(now);
  }
  // At the warm-up's end, from its event: the sample the report's counts start from (it stands
  // for a grid instant at the same time).
  void at_warmup();
  // After the last event, before the ports land up to `end`: the instants before it; then
  // finish() once they have, for the sample at the end.
  void finish(Instant end);

 private:
  void catch_up(Instant now);
  void land(Instant t);
  void record(Instant t);

  Host& host_;
  RunSeries& out_;
  Instant next_;  // the next grid instant
  Instant warmup_;
};

}  // namespace irqmod::sim
