// Pictures of a sweep's table, drawn by gnuplot (Debian gnuplot-nox): the data file and the
// script, made here; the command runs gnuplot on them.
//
//  - frontier: latency (p50, p99, p99.9, in us) against CPU (% of one core) and against
//    interrupts/s, side by side; the Pareto front of (x, p99) drawn as a line, its points
//    labelled by their settings (the varied keys, without their section).
//  - against: metrics against one varied key, the key's values in the grid's order.
// The output's extension picks the terminal: .svg (svg) or .png (pngcairo).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/series.hpp"
#include "irqmod/sweep/table.hpp"

namespace irqmod::sweep {

struct PlotRequest {
  std::string output;                // .svg or .png
  std::string title;                 // above the picture
  std::string against;               // empty: the frontier; else the varied key on the x axis
  std::vector<std::string> metrics;  // against: the columns drawn (default latency_p99_ns)
};

struct PlotFiles {
  std::string data;                // gnuplot data blocks, written to `data_path`
  std::string script;              // reads `data_path`, writes request.output
  std::vector<std::string> notes;  // what the picture leaves out and why, for the user
};

// The varied keys of a sweep's table: the columns between "points" and "scenario".
std::vector<std::string> varied_keys(const Table& table);

// Whether `path` names a picture gnuplot can write: it ends in .svg or .png. Error key "--plot".
std::optional<Error> check_picture_name(const std::string& path);

// Errors name the flag: --plot / an unknown extension, --against / not a varied key, --metric /
// not a column, or a table with no latency to draw.
Expected<PlotFiles> make_plot(const Table& table, const PlotRequest& request,
                              const std::string& data_path);

// A run's time series (irqmod sim --plot): four panels stacked on one time axis, from the top:
// the packet rate (Rx frames and drops per second, per queue), the interrupt rate per vector,
// the Rx ring (descriptors used, free, and the ring's size) and the moderation setting in us
// (net_dim's profile index on the right axis with dim). Rates are per sample interval, drawn as
// steps over it; the ring is its state at each sample. A dashed line marks the warm-up's end.
// `data` is the series as write_series_csv writes it, the file gnuplot reads at `data_path`.
struct SeriesPlotRequest {
  std::string output;  // .svg or .png
  std::string title;
};
Expected<PlotFiles> make_series_plot(const sim::RunSeries& series, const SeriesPlotRequest& request,
                                     const std::string& data_path);

}  // namespace irqmod::sweep
