// The numbers of the seeds' tables a scenario reproduces ([[seed_row]] tables in the scenario
// file), and how each is read off a run's report. `irqmod run` prints them per seed and writes
// them as the "seed_rows" array of its JSON, in the one format ../shared/DESIGN.md gives:
//   {"seed":"004","table":"EITR 8000 vs 4000","row":"4000 intr/s","metric":"throughput",
//    "unit":"kpps","seed_value":550,"irqmod_value":561.3,"role":"predicted",
//    "scenario":"scenarios/seeds/004-eitr-4000.toml"}
// A row irqmod cannot produce yet names why in "missing" and has "irqmod_value": null.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "irqmod/error.hpp"
#include "irqmod/sim/metrics.hpp"

namespace irqmod::sim {

enum class SeedRole : std::uint8_t {
  fitted,     // a platform number was fitted so that this row comes out right
  predicted,  // nothing was fitted on it: the model's prediction
};

struct SeedRow {
  std::string seed;       // the seed document's number: "000" .. "004"
  std::string table;      // which table of the seed
  std::string row;        // which row of it, in the seed's words
  std::string metric;     // what of the report it compares (seed_row_metrics())
  std::string unit;       // the seed's unit for it (seed_row_units(metric))
  double seed_value = 0;  // the number as the seed states it, in `unit`
  std::string seed_text;  // the seed's own words when they are not one number ("50%-60%")
  SeedRole role = SeedRole::predicted;
  // Another scenario (its file, relative to this one's directory): the row is then how much
  // lower this run's metric is than that run's, in percent (unit "% fewer"), as seeds state
  // a reduction ("30-50% fewer"). Empty: the metric itself.
  std::string versus;
  std::string missing;  // why irqmod cannot produce it yet; empty when it can
  // The scenario's [[variant]] whose run the row reads; empty: the file's own run. A file with
  // variants runs only its variants, so each of its rows names one.
  std::string variant;
  friend bool operator==(const SeedRow&, const SeedRow&) = default;
};

std::string_view to_string(SeedRole role);

// The metrics a row may compare:
//   throughput            frames delivered (answered, sunk or forwarded) per second
//   latency.avg, .p50, .p99, .p99.999, .stddev, .max   (sockperf's lines)
//   observations          latencies recorded (sockperf's "Total N observations"), in messages
//   interrupts            interrupts per second, all vectors;  interrupts.coreN, interrupts.vectorN
//   cpu                   busy time over all cores, percent of their time;  cpu.coreN
// A metric ending in a number (coreN, vectorN) names that core or vector.
std::span<const std::string_view> seed_row_metrics();
// The units a metric's value may be given in (the seed's own): pps / kpps / Mpps; ns / us / ms;
// intr/s / k intr/s; %; messages.
std::optional<Error> check_seed_row(const SeedRow& row);

// `row`'s metric read off `report`, in the row's unit. Error: a core or vector the run does not
// have, a latency with no observation, or a row with `versus` (see seed_row_reduction).
Expected<double> seed_row_value(const SeedRow& row, const RunReport& report);

// A `versus` row: 100 x (1 - metric(report) / metric(reference)), the percentage by which
// `report`'s metric is lower than `reference`'s. Error: as seed_row_value, or a reference value
// of 0 (no reduction can be computed).
Expected<double> seed_row_reduction(const SeedRow& row, const RunReport& report,
                                    const RunReport& reference);

}  // namespace irqmod::sim
