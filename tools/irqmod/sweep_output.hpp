// What irqmod sweep, plot and tune share on the command line: writing a results table to the
// files named by --csv / --json and drawing --plot, through output.hpp's Output (a temporary name
// renamed into place; kExitIoFailed when one cannot be written), and the progress bar.
#pragma once

#include <string>

#include "irqmod/sweep/plot.hpp"
#include "irqmod/sweep/table.hpp"
#include "irqmod/time.hpp"
#include "output.hpp"

namespace irqmod::cli {

// Writes `table` as CSV to `csv` and as JSON to `json` (either may be empty: not written; "-":
// stdout). Returns kExitOk, or kExitIoFailed after saying which file on stderr.
int write_table_files(const sweep::Table& table, const std::string& csv, const std::string& json,
                      const std::string& command);

// Draws `table` with gnuplot (sweep/plot.hpp) into a scratch file, then copies it to
// request.output through Output. Returns kExitOk; kExitBadInput when the request is wrong (an
// extension, a key, a directory); kExitIoFailed when gnuplot cannot be run or the file written.
int draw_plot(const sweep::Table& table, const sweep::PlotRequest& request,
              const std::string& command);

// Points done and the time left, on stderr, only when stderr is a terminal.
class PointProgress {
 public:
  PointProgress();
  void update(std::size_t done, std::size_t total);
  void finish() const;

 private:
  Instant start_;
  bool tty_;
  bool shown_ = false;
};

}  // namespace irqmod::cli
