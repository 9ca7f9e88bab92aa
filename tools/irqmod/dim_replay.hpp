// dim-replay: runs net_dim over a recorded trace of cumulative counters, one row per NAPI
// completion, and prints the profile it would program after each row.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "irqmod/policy/dim.hpp"

namespace irqmod::cli {

struct DimReplayOptions {
  dim::Direction direction = dim::Direction::rx;
  dim::CqPeriodMode cq_mode = dim::CqPeriodMode::start_from_eqe;
  std::optional<dim::ProfileTable>
      profiles;  // user table (ethtool rx-profile); default table if unset
};

// One input row's outcome: `step` counts rows from 1; `changed` when a new profile was applied.
struct DimReplayRow {
  std::uint64_t step = 0;
  dim::Decision decision{};
  dim::TuneState tune_state{};  // where the search is after this row
};

struct DimReplaySinks {
  std::function<void(const DimReplayRow&)> row;
  // Comment lines ("# ..."), with the number of rows read before them; may be empty.
  std::function<void(std::uint64_t rows_before, const std::string& text)> comment;
};

// Reads CSV `time_ns,events,packets,bytes` from `in` (named `source` in errors), one row per NAPI
// completion, feeds each to net_dim and hands the outcome to `sinks`. Lines that are empty or
// start with '#' are comments. Returns 0, or 2 after writing an error naming the line to `err`.
int replay_dim(std::istream& in, const std::string& source, const DimReplayOptions& options,
               const DimReplaySinks& sinks, std::ostream& err);

// replay_dim printing CSV `step,profile_ix,usec,pkts,changed` to `out`.
int run_dim_replay(std::istream& in, const std::string& source, const DimReplayOptions& options,
                   std::ostream& out, std::ostream& err);

}  // namespace irqmod::cli
