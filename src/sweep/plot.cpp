#include "irqmod/sweep/plot.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>

#include "irqmod/sweep/names.hpp"
#include "irqmod/sweep/objective.hpp"
#include "irqmod/sweep/pareto.hpp"

namespace irqmod::sweep {
namespace {

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A string for gnuplot between single quotes (a quote is doubled).
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (char ch : text)
    out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

// A string for gnuplot between double quotes, a line break as \\n.
std::string double_quoted(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '\n') {
      out += "\\n";
    } else {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
  }
  return out + "\"";
}

// A string in a data file, between double quotes.
std::string data_string(std::string_view text) {
  std::string out = "\"";
  for (char ch : text)
    out += ch == '"' ? '\'' : ch;
  return out + "\"";
}

std::string number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

std::string terminal(const std::string& output, int width, int height) {
  const std::string size = std::to_string(width) + "," + std::to_string(height);
  if (ends_with(output, ".svg")) {
    return "set terminal svg size " + size +
           " dynamic font 'DejaVu Sans,13' background rgb 'white'\n";
  }
  return "set terminal pngcairo size " + size + " font 'DejaVu Sans,11' background rgb 'white'\n";
}

// "nic.rx-usecs" -> "rx-usecs": the section is clear from the key.
std::string short_key(const std::string& key) {
  const std::size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

struct Latency {
  double x_cpu, x_irq, p50, p99, p999;
  std::string label;
};

// The frontier's data: block 0 every point, blocks 1 and 2 the fronts; `sides[b - 1]` counts the
// labels of block b on each side (0 above, 1 below its point), so that the script draws a labels
// plot only where there is one (gnuplot 5.4.4 dies on a labels plot whose points are all NaN).
Expected<std::string> frontier_data(const Table& table, std::vector<Latency>& rows,
                                    std::array<std::array<std::size_t, 2>, 2>& sides) {
  const auto cpu = table.column("cpu_percent"), irq = table.column("interrupts_per_second"),
             p50 = table.column("latency_p50_ns"), p99 = table.column("latency_p99_ns"),
             p999 = table.column("latency_p99_9_ns"), count = table.column("latency_count");
  if (!cpu || !irq || !p50 || !p99 || !p999 || !count) {
    return Error{"--plot", "the table has no latency and CPU columns: not a sweep's table"};
  }
  const std::vector<std::string> keys = varied_keys(table);
  for (const auto& row : table.rows) {
    if (std::strtod(row[*count].c_str(), nullptr) == 0 || row[*cpu].empty() || row[*irq].empty())
      continue;
    std::string label;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      label += (k ? " / " : "") + row[*table.column(keys[k])];
    }
    const auto us = [&](std::size_t c) { return std::strtod(row[c].c_str(), nullptr) / 1000.0; };
    rows.push_back({std::strtod(row[*cpu].c_str(), nullptr),
                    std::strtod(row[*irq].c_str(), nullptr), us(*p50), us(*p99), us(*p999), label});
  }
  std::ostringstream data;
  data << "# cpu_percent interrupts_per_second p50_us p99_us p99.9_us label\n";
  for (const Latency& r : rows) {
    data << number(r.x_cpu) << ' ' << number(r.x_irq) << ' ' << number(r.p50) << ' '
         << number(r.p99) << ' ' << number(r.p999) << ' ' << data_string(r.label) << '\n';
  }
  // Blocks 1 and 2: the Pareto fronts of (CPU, p99) and (interrupts/s, p99), sorted along x,
  // each point with its label (columns as block 0; column 7: 0 or 1, which side the label is).
  for (const bool by_cpu : {true, false}) {
    std::vector<std::vector<double>> objectives;
    for (const Latency& r : rows)
      objectives.push_back({by_cpu ? r.x_cpu : r.x_irq, r.p99});
    const std::vector<bool> front = pareto_front(objectives);
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (front[i]) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return objectives[a][0] < objectives[b][0];
    });
    data << "\n\n";
    // Points at the same place get one label: the first's settings and how many more.
    std::size_t side = 0;
    for (std::size_t k = 0; k < order.size();) {
      std::size_t same = k + 1;
      while (same < order.size() && objectives[order[same]] == objectives[order[k]])
        ++same;
      const Latency& r = rows[order[k]];
      std::string label = r.label;
      if (same - k > 1) label += " (+" + std::to_string(same - k - 1) + " same)";
      ++sides[by_cpu ? 0 : 1][side % 2];
      data << number(r.x_cpu) << ' ' << number(r.x_irq) << ' ' << number(r.p50) << ' '
           << number(r.p99) << ' ' << number(r.p999) << ' ' << data_string(label) << ' '
           << (side++ % 2) << '\n';
      k = same;
    }
  }
  return data.str();
}

// How a metric column is drawn: the axis it shares with the columns of its unit (the values are
// metric_value's: times in µs) and the series' title.
struct Drawn {
  std::string axis;   // the axis label, one per unit: "time (µs)", "CPU (% of all cores)", ...
  std::string title;  // "latency_p99 (µs)"
};

Drawn drawn_as(const std::string& column) {
  std::string base = column;
  std::string bound;  // "_min" / "_max" of a seeds spread
  for (const char* tail : {"_min", "_max"}) {
    if (base.size() > 4 && ends_with(base, tail)) {
      bound = tail;
      base.resize(base.size() - 4);
    }
  }
  if (ends_with(base, "_ns"))
    return {"time (µs)", base.substr(0, base.size() - 3) + bound + " (µs)"};
  if (base == "cpu_percent") return {"CPU (% of all cores)", column};
  if (base == "busiest_cpu_percent" || base == "app_cpu_percent" ||
      base == "app_process_cpu_percent")
    return {"CPU (% of one core)", column};
  if (base == "interrupts_per_second" || base == "pps") return {"per second", column};
  if (base == "bps") return {"bits per second", column};
  static constexpr std::string_view kCounts[] = {"events",  "latency_count", "interrupts",
                                                 "drops",   "entered",       "delivered",
                                                 "dropped", "in_flight",     "seed"};
  for (std::string_view c : kCounts) {
    if (base == c) return {"count", column};
  }
  return {column, column};  // a unit of its own: its axis is named by the column
}

// --against's script after the terminal line, and the picture's height: the metrics against the
// varied key in the grid's order, one axis per unit (a second unit on the right-hand axis, more
// as panels stacked on the key's axis); a metric with no value in any row is left out and said.
Expected<std::pair<std::string, int>> against_plot(const Table& table, const PlotRequest& request,
                                                   const std::string& d, PlotFiles& files) {
  const auto key = table.column(request.against);
  const std::vector<std::string> keys = varied_keys(table);
  if (!key || std::find(keys.begin(), keys.end(), request.against) == keys.end()) {
    return Error{"--against", unknown_name(request.against, "a varied key", keys,
                                           keys.empty() ? "none (no --vary)" : joined(keys))};
  }
  std::vector<Metric> asked;
  std::vector<std::string> metrics;  // their columns
  for (const std::string& m :
       request.metrics.empty() ? std::vector<std::string>{"p99"} : request.metrics) {
    auto metric = parse_metric(m, table.columns);
    if (!metric) return Error{"--metric", metric.error().message};
    if (std::find(metrics.begin(), metrics.end(), metric->column) != metrics.end()) continue;
    metrics.push_back(metric->column);
    asked.push_back(metric.value());
  }
  // Rows in the grid's order, each metric one column (in its unit shown); the key's value as the
  // tick label.
  std::vector<Drawn> how;
  for (const std::string& m : metrics)
    how.push_back(drawn_as(m));
  std::vector<bool> has_value(metrics.size(), false);
  std::ostringstream data;
  for (const auto& row : table.rows) {
    data << data_string(row[*key]);
    for (std::size_t i = 0; i < asked.size(); ++i) {
      const auto v = metric_value(table, row, asked[i]);
      data << ' ' << (v ? number(*v) : std::string("NaN"));
      has_value[i] = has_value[i] || v.has_value();
    }
    data << '\n';
  }
  files.data = data.str();
  // The axes, in the order their first metric was asked for; the metrics with no value apart.
  std::vector<std::string> axes;
  std::vector<std::string> empty;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (!has_value[i]) {
      empty.push_back(metrics[i]);
      continue;
    }
    if (std::find(axes.begin(), axes.end(), how[i].axis) == axes.end()) axes.push_back(how[i].axis);
  }
  std::ostringstream s;
  s << "set grid\nset key outside right top box noenhanced\nset xtics rotate by -30\n"
    << "set xlabel " << quoted(request.against) << " noenhanced\n";
  // A metric left out is said under the title.
  std::string title = request.title;
  if (!empty.empty()) {
    const std::string why = "no value in any row: " + joined(empty);
    files.notes.push_back(why + " (left out of the picture)");
    title += "\n" + why;
  }
  if (axes.empty()) {
    s << "set title " << double_quoted(title) << " noenhanced\nunset key\nunset ytics\n"
      << "set xrange [0:1]\nset yrange [0:1]\nset format x ''\nplot 2 notitle\n";
    return std::pair{s.str(), 600};
  }
  // Two units: the second on the right; more: a panel each, the key's axis at the bottom one.
  // Each metric has its colour and its point's shape (circle, square, diamond, triangle, ...), so
  // that p50 and p99 on one axis are told apart where they meet.
  static constexpr int kPointTypes[] = {7, 5, 13, 9, 11};
  const bool panels = axes.size() > 2;
  // The key's values label the x axis once per plot: from its first series.
  const auto series = [&](const std::string& axis, bool right) {
    std::string out;
    bool first = !right;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      if (!has_value[i] || how[i].axis != axis) continue;
      out += (out.empty() ? "" : ", \\\n  ") + d + " using 0:" + std::to_string(i + 2) +
             (first ? ":xtic(1)" : "") + (right ? " axes x1y2" : "") + " with linespoints pt " +
             std::to_string(kPointTypes[i % std::size(kPointTypes)]) + " lw 1.5 dt " +
             (right ? "2" : "1") + " lc " + std::to_string(i + 1) + " title " +
             quoted(how[i].title);
      first = false;
    }
    return out;
  };
  if (!panels) {
    s << "set title " << double_quoted(title) << " noenhanced\n"
      << "set ylabel " << quoted(axes[0]) << " noenhanced\nset yrange [0:*]\n";
    std::string plot = series(axes[0], false);
    if (axes.size() == 2) {
      s << "set ytics nomirror\nset y2tics\nset y2range [0:*]\nset y2label "
        << quoted(axes[1] + " (dashed, right)") << " noenhanced\n";
      plot += ", \\\n  " + series(axes[1], true);
    }
    s << "plot " << plot << "\n";
    return std::pair{s.str(), 600};
  }
  // The panels' plot areas share their left and right edges, whatever their keys' widths.
  s << "set multiplot layout " << axes.size() << ",1 title " << double_quoted(title)
    << " noenhanced\nset yrange [0:*]\nset lmargin at screen 0.1\nset rmargin at screen 0.72\n";
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (a + 1 < axes.size()) {
      s << "unset xlabel\n";
    } else {
      s << "set xlabel " << quoted(request.against) << " noenhanced\n";
    }
    s << "set ylabel " << quoted(axes[a]) << " noenhanced\nplot " << series(axes[a], false) << "\n";
  }
  s << "unset multiplot\n";
  return std::pair{s.str(), static_cast<int>(260 * axes.size() + 80)};
}

}  // namespace

std::vector<std::string> varied_keys(const Table& table) {
  std::vector<std::string> keys;
  const auto end = table.column("scenario");
  const auto begin = table.column("points");
  for (std::size_t c = begin ? *begin + 1 : 1; end && c < *end; ++c)
    keys.push_back(table.columns[c]);
  return keys;
}

std::optional<Error> check_picture_name(const std::string& path) {
  if (ends_with(path, ".svg") || ends_with(path, ".png")) return std::nullopt;
  return Error{"--plot", "'" + path + "': allowed: a file name ending in .svg or .png"};
}

Expected<PlotFiles> make_plot(const Table& table, const PlotRequest& request,
                              const std::string& data_path) {
  if (auto bad = check_picture_name(request.output)) return *bad;
  PlotFiles files;
  std::ostringstream s;
  s << "set encoding utf8\nset output " << quoted(request.output) << "\n";
  const std::string d = quoted(data_path);
  if (request.against.empty()) {
    std::vector<Latency> rows;
    std::array<std::array<std::size_t, 2>, 2> sides{};
    auto data = frontier_data(table, rows, sides);
    if (!data) return data.error();
    files.data = data.value();
    s << terminal(request.output, 1500, 620);
    // Labels are the values alone, short enough not to collide; the title says whose.
    std::string legend;
    for (const std::string& k : varied_keys(table))
      legend += (legend.empty() ? "" : " / ") + short_key(k);
    if (!legend.empty()) legend = "\nPareto points labelled " + legend;
    s << "set multiplot layout 1,2 title " << double_quoted(request.title + legend)
      << " noenhanced\n"
      << "set grid\nset key top right box opaque\nset ylabel 'latency (µs)'\n"
      << "set xrange [0:*]\nset yrange [0:*]\nset offsets 0, graph 0.2, graph 0.08, 0\n";
    if (rows.empty()) {
      // Nothing to draw: empty axes that say why, rather than no picture.
      const std::string why = "no point measured a latency";
      const std::string detail = "(latency_count 0: one-way traffic, or no reply within the run)";
      files.notes.push_back(why + " " + detail + ": the picture's axes are empty");
      s << "set xrange [0:1]\nset yrange [0:1]\nset offsets 0, 0, 0, 0\nunset key\n"
        << "unset xtics\nunset ytics\nset label 1 " << double_quoted(why + "\n" + detail)
        << " at graph 0.5, graph 0.5 center noenhanced\n";
      for (const char* xlabel : {"CPU (% of all cores)", "interrupts/s"})
        s << "set xlabel '" << xlabel << "'\nplot 2 notitle\n";
      s << "unset multiplot\n";
      files.script = s.str();
      return files;
    }
    // Each point's spread from p50 to p99.9 as a thin line, and the three percentiles as shapes
    // of three sizes (a dot inside a square inside a triangle), so that equal percentiles stay
    // three marks. Pareto labels are written right of their point, alternately above and below
    // (column 7), so that neighbours along the front do not write over each other; the x range
    // leaves room for them on the right.
    const auto panel = [&](const char* xlabel, int x, int block) {
      const std::string points = d + " index 0 using " + std::to_string(x);
      const std::string front =
          d + " index " + std::to_string(block) + " using " + std::to_string(x);
      s << "set xlabel '" << xlabel << "'\n"
        << "plot " << points
        << ":3:(0):($5-$3) with vectors nohead lw 1 lc rgb '#b0b0b0' notitle, \\\n  " << points
        << ":3 with points pt 7 ps 0.5 lc rgb '#2ca02c' title 'p50', \\\n  " << points
        << ":4 with points pt 4 ps 1.3 lw 1.5 lc rgb '#1f77b4' title 'p99', \\\n  " << points
        << ":5 with points pt 8 ps 2.0 lw 1.5 lc rgb '#d62728' title 'p99.9', \\\n  " << front
        << ":4 with linespoints pt 6 ps 3.0 lw 1 lc rgb 'black' title 'Pareto front (p99)'";
      const auto& side = sides[block - 1];
      if (side[0] > 0) {
        s << ", \\\n  " << front
          << ":($7 == 0 ? $4 : NaN):6 with labels left offset char 1,0.9 font ',9' noenhanced "
             "notitle";
      }
      if (side[1] > 0) {
        s << ", \\\n  " << front
          << ":($7 == 1 ? $4 : NaN):6 with labels left offset char 1,-0.9 font ',9' noenhanced "
             "notitle";
      }
      s << "\n";
    };
    panel("CPU (% of all cores)", 1, 1);
    panel("interrupts/s", 2, 2);
    s << "unset multiplot\n";
  } else {
    auto drawn = against_plot(table, request, d, files);
    if (!drawn) return drawn.error();
    s << terminal(request.output, 1000, drawn.value().second) << drawn.value().first;
  }
  files.script = s.str();
  return files;
}

Expected<PlotFiles> make_series_plot(const sim::RunSeries& series, const SeriesPlotRequest& request,
                                     const std::string& data_path) {
  if (auto bad = check_picture_name(request.output)) return *bad;
  if (series.samples() < 2) return Error{"--plot", "the run has no interval to draw"};
  PlotFiles files;
  std::ostringstream data;
  sim::write_series_csv(data, series);
  files.data = data.str();

  // The columns of write_series_csv, 1-based as gnuplot counts them.
  const std::size_t per_queue = series.dim ? 8 : 7;
  const auto queue_column = [&](std::size_t q, std::size_t field) {
    return 4 + q * per_queue + field;  // field: 0 used, 1 free, 4 frames/s, 5 drops/s, 6 us, 7 dim
  };
  const auto vector_column = [&](std::size_t v) {
    return 4 + series.queues.size() * per_queue + 2 * v + 1;  // interrupts/s
  };
  // Time in ms up to 10 s of run, else in s.
  const double end_s = static_cast<double>((series.times.back() - at_ns(0)).count()) / 1e9;
  const bool ms = end_s <= 10.0;
  const std::string x = ms ? "($1*1000)" : "($1)";
  const double scale = ms ? 1000.0 : 1.0;
  const double warmup = static_cast<double>((series.warmup_end - at_ns(0)).count()) / 1e9 * scale;
  bool any_drops = false;
  for (std::size_t q = 0; q < series.queues.size(); ++q)
    any_drops = any_drops || series.queue(series.samples() - 1, q).dropped > 0;

  const std::string d = quoted(data_path);
  std::ostringstream s;
  s << "set encoding utf8\nset output " << quoted(request.output) << "\n"
    << terminal(request.output, 1200, 1100) << "set datafile separator ','\nset grid\n"
    << "set key at screen 0.80, graph 1 left top Left reverse samplen 2 noenhanced font ',10'\n"
    << "set xrange [0:" << number(end_s * scale) << "]\nset multiplot title "
    << double_quoted(request.title + "\nsample interval " +
                     number(static_cast<double>(series.interval.count()) / 1e3) + " µs")
    << " noenhanced\n"
    << "set lmargin at screen 0.09\nset rmargin at screen 0.72\n";
  if (warmup > 0) {
    s << "set arrow 1 from " << number(warmup) << ", graph 0 to " << number(warmup)
      << ", graph 1 nohead dt 2 lw 1.5 lc rgb 'gray40'\n";
  }
  // Four panels between 0.06 and 0.90 of the height, the time axis labelled on the lowest.
  const double top = 0.90, bottom = 0.06, gap = 0.015;
  const double height = (top - bottom - 3 * gap) / 4;
  const auto panel = [&](int i, const std::string& ylabel) {
    const double t = top - i * (height + gap);
    s << "set tmargin at screen " << number(t) << "\nset bmargin at screen " << number(t - height)
      << "\nset ylabel " << double_quoted(ylabel) << "\n";
    if (i == 3) {
      s << "set format x '%g'\nset xlabel " << double_quoted(ms ? "time (ms)" : "time (s)") << "\n";
    } else {
      s << "set format x ''\nunset xlabel\n";
    }
  };
  const auto join = [](const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts)
      out += (out.empty() ? "" : ", \\\n  ") + p;
    return out;
  };
  const auto using_ = [&](std::size_t column) {
    return d + " skip 1 using " + x + ":" + std::to_string(column);
  };
  // Colours: one per queue when there are several (a line's kind then told by its dash), else
  // one per kind of line, so that a single queue's panels are not all one colour.
  enum Kind { frames, dropped, used, free_, moderation, profile };
  const auto colour = [&](std::size_t q, Kind kind) {
    static constexpr const char* kByKind[] = {"#1f77b4", "#d62728", "#1f77b4",
                                              "#2ca02c", "#9467bd", "#ff7f0e"};
    if (series.queues.size() > 1) return "lc " + std::to_string(q + 1);
    return std::string("lc rgb '") + kByKind[kind] + "'";
  };

  // 1: packet rate.
  panel(0, "Rx packet rate (frames/s)");
  s << "set format y '%.1s%c'\nset yrange [0:*]\n";
  if (warmup > 0)
    s << "set label 1 'end of warm-up' at " << number(warmup) << ", graph 1 center offset 0,0.7 "
      << "font ',9' tc rgb 'gray40'\n";
  std::vector<std::string> lines;
  for (std::size_t q = 0; q < series.queues.size(); ++q) {
    lines.push_back(using_(queue_column(q, 4)) + " with fsteps lw 1.5 " + colour(q, frames) +
                    " title " + quoted(series.queues[q].name + " frames"));
    if (any_drops) {
      lines.push_back(using_(queue_column(q, 5)) + " with fsteps dt 2 lw 1.5 " +
                      colour(q, dropped) + " title " + quoted(series.queues[q].name + " dropped"));
    }
  }
  s << "plot " << join(lines) << "\nunset label 1\n";

  // 2: interrupt rate.
  panel(1, "interrupts/s");
  lines.clear();
  for (std::size_t v = 0; v < series.vectors.size(); ++v) {
    lines.push_back(using_(vector_column(v)) + " with fsteps lw 1.5 lc " + std::to_string(v + 1) +
                    " title " + quoted(series.vectors[v]));
  }
  s << "plot " << join(lines) << "\n";

  // 3: the Rx ring.
  panel(2, "Rx descriptors");
  s << "set format y '%g'\n";
  std::uint32_t ring = 0;
  lines.clear();
  for (std::size_t q = 0; q < series.queues.size(); ++q) {
    ring = std::max(ring, series.queues[q].ring);
    lines.push_back(using_(queue_column(q, 0)) + " with lines lw 1.5 " + colour(q, used) +
                    " title " + quoted(series.queues[q].name + " used"));
    lines.push_back(using_(queue_column(q, 1)) + " with lines dt 2 lw 1.5 " + colour(q, free_) +
                    " title " + quoted(series.queues[q].name + " free"));
  }
  lines.push_back(number(ring) + " with lines dt 3 lw 1 lc rgb 'black' title 'ring size'");
  s << "set yrange [0:" << number(ring * 1.08) << "]\nplot " << join(lines) << "\n";

  // 4: the moderation setting.
  panel(3, series.moderation + " (µs)");
  s << "set yrange [0:*]\nset offsets 0, 0, graph 0.1, 0\n";
  lines.clear();
  for (std::size_t q = 0; q < series.queues.size(); ++q) {
    lines.push_back(using_(queue_column(q, 6)) + " with steps lw 1.5 " + colour(q, moderation) +
                    " title " + quoted(series.queues[q].name + " " + series.moderation));
  }
  if (series.dim) {
    s << "set y2label 'net_dim profile' noenhanced\nset y2range [-0.5:4.5]\nset y2tics 0,1,4\n";
    for (std::size_t q = 0; q < series.queues.size(); ++q) {
      lines.push_back(using_(queue_column(q, 7)) + " axes x1y2 with steps dt 2 lw 1 " +
                      colour(q, profile) + " title " + quoted(series.queues[q].name + " profile"));
    }
  }
  s << "plot " << join(lines) << "\nunset multiplot\n";
  files.script = s.str();
  return files;
}

}  // namespace irqmod::sweep
