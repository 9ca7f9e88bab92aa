#include "irqmod/sweep/plot.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>

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

Expected<std::string> frontier_data(const Table& table, std::vector<Latency>& rows) {
  const auto cpu = table.column("cpu_percent"), irq = table.column("interrupts_per_second"),
             p50 = table.column("latency_p50_ns"), p99 = table.column("latency_p99_ns"),
             p999 = table.column("latency_p99_9_ns"), count = table.column("latency_count");
  if (!cpu || !irq || !p50 || !p99 || !p999 || !count) {
    return Error{"--plot", "the table has no latency and CPU columns: not a sweep's table"};
  }
  const std::vector<std::string> keys = varied_keys(table);
  for (const auto& row : table.rows) {
    if (row[*count] == "0" || row[*cpu].empty() || row[*irq].empty()) continue;
    std::string label;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      label += (k ? " / " : "") + row[*table.column(keys[k])];
    }
    const auto us = [&](std::size_t c) { return std::strtod(row[c].c_str(), nullptr) / 1000.0; };
    rows.push_back({std::strtod(row[*cpu].c_str(), nullptr),
                    std::strtod(row[*irq].c_str(), nullptr), us(*p50), us(*p99), us(*p999), label});
  }
  if (rows.empty()) return Error{"--plot", "no point measured a latency: nothing to draw"};
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
      data << number(r.x_cpu) << ' ' << number(r.x_irq) << ' ' << number(r.p50) << ' '
           << number(r.p99) << ' ' << number(r.p999) << ' ' << data_string(label) << ' '
           << (side++ % 2) << '\n';
      k = same;
    }
  }
  return data.str();
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
    auto data = frontier_data(table, rows);
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
    // Pareto labels are written right of their point, alternately above and below (column 7),
    // so that neighbours along the front do not write over each other; the x range leaves room
    // for them on the right.
    const auto panel = [&](const char* xlabel, int x, int block) {
      s << "set xlabel '" << xlabel << "'\n"
        << "plot " << d << " index 0 using " << x
        << ":3 with points pt 7 ps 0.7 lc rgb '#2ca02c' title 'p50', \\\n  " << d
        << " index 0 using " << x
        << ":4 with points pt 5 ps 0.7 lc rgb '#1f77b4' title 'p99', \\\n  " << d
        << " index 0 using " << x
        << ":5 with points pt 9 ps 0.8 lc rgb '#d62728' title 'p99.9', \\\n  " << d << " index "
        << block << " using " << x
        << ":4 with linespoints pt 6 ps 1.8 lw 1.5 lc rgb 'black' title 'Pareto front (p99)', \\\n "
           " "
        << d << " index " << block << " using " << x
        << ":($7 == 0 ? $4 : NaN):6 with labels left offset char 1,0.9 font ',9' noenhanced "
           "notitle, \\\n  "
        << d << " index " << block << " using " << x
        << ":($7 == 1 ? $4 : NaN):6 with labels left offset char 1,-0.9 font ',9' noenhanced "
           "notitle\n";
    };
    panel("CPU (% of one core)", 1, 1);
    panel("interrupts/s", 2, 2);
    s << "unset multiplot\n";
  } else {
    const auto key = table.column(request.against);
    const std::vector<std::string> keys = varied_keys(table);
    if (!key || std::find(keys.begin(), keys.end(), request.against) == keys.end()) {
      std::string allowed;
      for (const auto& k : keys)
        allowed += (allowed.empty() ? "" : ", ") + k;
      return Error{"--against", "'" + request.against + "' is not a varied key. allowed: " +
                                    (allowed.empty() ? "none (no --vary)" : allowed)};
    }
    std::vector<std::string> metrics = request.metrics;
    if (metrics.empty()) metrics = {"latency_p99_ns"};
    std::vector<std::size_t> at;
    for (const std::string& m : metrics) {
      const auto c = table.column(m);
      if (!c) return Error{"--metric", "'" + m + "' is not a column of the table"};
      at.push_back(*c);
    }
    // Times (the *_ns columns) are drawn in us; a mix keeps the columns' own units.
    const bool times = std::all_of(metrics.begin(), metrics.end(),
                                   [](const std::string& m) { return ends_with(m, "_ns"); });
    // Rows in the grid's order, each metric one column; the key's value as the tick label.
    std::ostringstream data;
    for (const auto& row : table.rows) {
      data << data_string(row[*key]);
      for (std::size_t c : at) {
        if (row[c].empty()) {
          data << " NaN";
        } else {
          data << ' ' << (times ? number(std::strtod(row[c].c_str(), nullptr) / 1000.0) : row[c]);
        }
      }
      data << '\n';
    }
    files.data = data.str();
    s << terminal(request.output, 1000, 600) << "set title " << quoted(request.title)
      << " noenhanced\nset grid\nset key outside right top box noenhanced\n"
      << "set xlabel " << quoted(request.against) << " noenhanced\n"
      << "set ylabel "
      << quoted(times                 ? "time (µs)"
                : metrics.size() == 1 ? metrics[0]
                                      : "value (column's unit)")
      << " noenhanced\nset yrange [0:*]\nset xtics rotate by -30\nplot ";
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      s << (i ? ", \\\n  " : "") << d << " using 0:" << i + 2 << (i ? "" : ":xtic(1)")
        << " with linespoints pt 7 lw 1.5 title "
        << quoted(times ? metrics[i].substr(0, metrics[i].size() - 3) + " (µs)" : metrics[i]);
    }
    s << "\n";
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

  // 1: packet rate.
  panel(0, "Rx packet rate (frames/s)");
  s << "set format y '%.1s%c'\nset yrange [0:*]\n";
  if (warmup > 0)
    s << "set label 1 'end of warm-up' at " << number(warmup) << ", graph 1 center offset 0,0.7 "
      << "font ',9' tc rgb 'gray40'\n";
  std::vector<std::string> lines;
  for (std::size_t q = 0; q < series.queues.size(); ++q) {
    lines.push_back(using_(queue_column(q, 4)) + " with fsteps lw 1.5 lc " + std::to_string(q + 1) +
                    " title " + quoted(series.queues[q].name + " frames"));
    if (any_drops) {
      lines.push_back(using_(queue_column(q, 5)) + " with fsteps dt 2 lw 1.5 lc " +
                      std::to_string(q + 1) + " title " +
                      quoted(series.queues[q].name + " dropped"));
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
    lines.push_back(using_(queue_column(q, 0)) + " with lines lw 1.5 lc " + std::to_string(q + 1) +
                    " title " + quoted(series.queues[q].name + " used"));
    lines.push_back(using_(queue_column(q, 1)) + " with lines dt 2 lw 1.5 lc " +
                    std::to_string(q + 1) + " title " + quoted(series.queues[q].name + " free"));
  }
  lines.push_back(number(ring) + " with lines dt 3 lw 1 lc rgb 'black' title 'ring size'");
  s << "set yrange [0:" << number(ring * 1.08) << "]\nplot " << join(lines) << "\n";

  // 4: the moderation setting.
  panel(3, series.moderation + " (µs)");
  s << "set yrange [0:*]\nset offsets 0, 0, graph 0.1, 0\n";
  lines.clear();
  for (std::size_t q = 0; q < series.queues.size(); ++q) {
    lines.push_back(using_(queue_column(q, 6)) + " with steps lw 1.5 lc " + std::to_string(q + 1) +
                    " title " + quoted(series.queues[q].name + " " + series.moderation));
  }
  if (series.dim) {
    s << "set y2label 'net_dim profile' noenhanced\nset y2range [-0.5:4.5]\nset y2tics 0,1,4\n";
    for (std::size_t q = 0; q < series.queues.size(); ++q) {
      lines.push_back(using_(queue_column(q, 7)) + " axes x1y2 with steps dt 2 lw 1 lc " +
                      std::to_string(q + 1) + " title " +
                      quoted(series.queues[q].name + " profile"));
    }
  }
  s << "plot " << join(lines) << "\nunset multiplot\n";
  files.script = s.str();
  return files;
}

}  // namespace irqmod::sweep
