// irqmod sim FILE [--seed N] [--duration T] [--set k=v ...] [--json F] [--csv F] [--trace F]
//                 [--trace-detail polls|frames] [--trace-window START:END] [--no-wall-time]
//                 [--print-scenario] [--variant NAME] [--plot F.svg|F.png] [--plot-csv F]
// irqmod run [--dir D] [--duration T] [--set k=v ...] [--json F]
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "irqmod/sim/json.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/seed_rows.hpp"
#include "irqmod/sim/series.hpp"
#include "irqmod/sim/share.hpp"
#include "irqmod/sim/simulation.hpp"
#include "irqmod/sim/trace.hpp"
#include "irqmod/sim/units.hpp"
#include "irqmod/sweep/names.hpp"
#include "irqmod/sweep/plot.hpp"
#include "irqmod/sweep/runner.hpp"
#include "irqmod/time.hpp"
#include "scenario_input.hpp"
#include "sweep_output.hpp"

namespace irqmod::cli {
namespace {

namespace fs = std::filesystem;

// The assignments of `file`'s [[variant]] `name` followed by `sets` (the command line's win), or
// a message listing the file's variants.
Expected<std::vector<std::string>> variant_sets(const sim::Scenario& scenario,
                                                const std::string& name,
                                                const std::vector<std::string>& sets) {
  for (const sim::Variant& v : scenario.variants) {
    if (v.name != name) continue;
    std::vector<std::string> all = v.sets;
    all.insert(all.end(), sets.begin(), sets.end());
    return all;
  }
  std::vector<std::string> names;
  for (const sim::Variant& v : scenario.variants)
    names.push_back(v.name);
  return Error{"--variant", sweep::unknown_name(
                                name, "a variant of " + scenario.scenario.name, names,
                                names.empty() ? "none (the file has none)" : sweep::joined(names))};
}

// A progress bar on stderr, shown only on a terminal and only once a run (or `irqmod run`'s
// suite) has taken a second ($IRQMOD_PROGRESS_AFTER, a duration, changes the second: the tests
// set 0s, which does not depend on how fast the machine simulates); and the trace's size watch: a
// warning, once, as soon as the part written so far extrapolates past sim::kTraceWarnBytes (the
// report comes about every 1 % of simulated time, so before).
struct Progress {
  Instant wall_start = SteadyClock::now();
  Duration after = seconds(1);  // a run quicker than this shows no bar
  bool tty = isatty(STDERR_FILENO) != 0;
  bool shown = false;
  std::string label;  // before the bar: irqmod run's "[3/48] basics/pingpong-udp"
  const sim::TraceWriter* trace = nullptr;
  std::uint64_t trace_warn_bytes = sim::kTraceWarnBytes;  // $IRQMOD_TRACE_WARN_BYTES overrides
  bool trace_warned = false;

  void watch_trace(Instant reached, Instant end) {
    if (!trace || trace_warned) return;
    const sim::TraceWindow& w = trace->window();
    const Instant from = std::max(w.start, at_ns(0));
    const Instant to = std::min(w.end, end);
    if (reached <= from || to <= from) return;
    const double fraction = static_cast<double>((std::min(reached, to) - from).count()) /
                            static_cast<double>((to - from).count());
    // The first percent sets the rate: earlier, a run's first microseconds (names, the initial
    // fill of rings) would be extrapolated over all of it.
    if (fraction < 0.01) return;
    const std::uint64_t estimate = sim::estimate_trace_bytes(trace->bytes(), fraction);
    if (estimate <= trace_warn_bytes) return;
    trace_warned = true;
    std::fprintf(stderr,
                 "%sirqmod sim: --trace: warning: about %.0f MB at this rate (%.1f MB for the "
                 "first %.1f %% of the window; the limit is %.0f MB); --trace-detail polls (the "
                 "default) or --trace-window START:END keep it smaller\n",
                 shown ? "\n" : "", static_cast<double>(estimate) / 1e6,
                 static_cast<double>(trace->bytes()) / 1e6, fraction * 100.0,
                 static_cast<double>(trace_warn_bytes) / 1e6);
  }

  static void report(void* context, Instant reached, Instant end) {
    auto* p = static_cast<Progress*>(context);
    p->watch_trace(reached, end);
    if (!p->tty || SteadyClock::now() - p->wall_start < p->after) return;
    const double fraction = static_cast<double>(ns_since_epoch(reached)) /
                            static_cast<double>(std::max<std::int64_t>(ns_since_epoch(end), 1));
    const int filled = static_cast<int>(fraction * 40.0);
    std::fprintf(stderr, "\r%s[%-40s] %3d%%  simulated %.3f s\033[K", p->label.c_str(),
                 std::string(filled, '#').c_str(), static_cast<int>(fraction * 100.0 + 0.5),
                 static_cast<double>(ns_since_epoch(reached)) / 1e9);
    std::fflush(stderr);
    p->shown = true;
  }
  // Clears the line (ECMA-48 EL, "erase to the end of the line") for what is printed next.
  void done() {
    if (shown) std::fprintf(stderr, "\r\033[K");
    shown = false;
  }
  // Reads $IRQMOD_PROGRESS_AFTER; false (with the error written) when it is not a duration.
  bool read_after(const char* program) {
    const char* text = std::getenv("IRQMOD_PROGRESS_AFTER");
    if (!text) return true;
    const std::optional<std::int64_t> ns = sim::parse_duration_ns(text, "");
    if (!ns) {
      std::cerr << program << ": IRQMOD_PROGRESS_AFTER: '" << text
                << "' is not a duration; allowed: a time of 0 or more in ns, us, ms or s, such "
                   "as 1s (the default)\n";
      return false;
    }
    after = Duration{*ns};
    return true;
  }
};

struct SimArgs {
  std::string file;
  ScenarioFlags flags;
  std::string json;
  std::string csv;
  std::string trace;
  std::string trace_window;
  std::optional<std::string> trace_detail;  // --trace-detail; polls when not given
  bool no_wall_time = false;
  bool print_scenario = false;
  std::string variant;
  std::string plot;      // --plot: the run's time series as a picture
  std::string plot_csv;  // --plot-csv: its samples
};

// Writes the error of a failed commit; returns whether `out` was written.
bool committed(Output* out, const char* program) {
  if (!out) return true;
  const std::optional<Error> e = out->commit();
  if (e) std::cerr << program << ": " << e->what() << "\n";
  return !e;
}

int run_sim(const SimArgs& args) {
  sim::LoadResult loaded = load_scenario(args.file, args.flags);
  if (!loaded) {
    std::cerr << "irqmod sim: " << loaded.error().what() << "\n";
    return kExitBadInput;
  }
  if (!args.variant.empty()) {
    auto sets = variant_sets(loaded.value(), args.variant, args.flags.sets);
    if (!sets) {
      std::cerr << "irqmod sim: " << sets.error().what() << "\n";
      return kExitBadInput;
    }
    ScenarioFlags flags = args.flags;
    flags.sets = sets.value();
    loaded = load_scenario(args.file, flags);
    if (!loaded) {
      std::cerr << "irqmod sim: " << loaded.error().what() << "\n";
      return kExitBadInput;
    }
  }
  if (args.print_scenario) {
    sim::write_toml(std::cout, loaded.value());
    return kExitOk;
  }
  sim::TraceWindow window;
  if (!args.trace_window.empty()) {
    if (args.trace.empty()) {
      std::cerr << "irqmod sim: --trace-window: needs --trace FILE\n";
      return kExitBadInput;
    }
    auto parsed = sim::parse_trace_window(args.trace_window);
    if (!parsed) {
      std::cerr << "irqmod sim: --trace-window: " << parsed.error().what() << "\n";
      return kExitBadInput;
    }
    window = parsed.value();
  }
  const auto detail = sim::parse_trace_detail(args.trace_detail.value_or("polls"));
  if (!detail) {
    std::cerr << "irqmod sim: " << detail.error().what() << "\n";
    return kExitBadInput;
  }
  if (args.trace_detail && args.trace.empty()) {
    std::cerr << "irqmod sim: --trace-detail: needs --trace FILE\n";
    return kExitBadInput;
  }
  {
    // One output at most on stdout.
    std::vector<const char*> on_stdout;
    for (const auto& [path, flag] :
         {std::pair{&args.json, "--json"}, std::pair{&args.csv, "--csv"},
          std::pair{&args.trace, "--trace"}, std::pair{&args.plot_csv, "--plot-csv"}}) {
      if (*path == "-") on_stdout.push_back(flag);
    }
    if (on_stdout.size() > 1) {
      std::cerr << "irqmod sim: " << on_stdout[1] << " -: stdout already carries the "
                << on_stdout[0] << " output; allowed: one of them on stdout, the others to files\n";
      return kExitBadInput;
    }
  }
  const sim::Scenario& scenario = loaded.value();
  const bool series_wanted = !args.plot.empty() || !args.plot_csv.empty();
  if (series_wanted && (scenario.storage.drives > 0 || scenario.xdp.app != sim::XdpApp::none)) {
    std::cerr << "irqmod sim: " << (args.plot.empty() ? "--plot-csv" : "--plot")
              << ": the time series samples the NIC's Rx queues and vectors; a storage ([storage]) "
                 "or AF_XDP ([xdp]) run has none (--trace shows its timeline)\n";
    return kExitBadInput;
  }
  Progress progress;
  if (!progress.read_after("irqmod sim")) return kExitBadInput;
  // Every output is opened before the run, so that a wrong path costs no simulation.
  std::unique_ptr<Output> json, csv, trace_out, plot, plot_csv;
  if (!args.plot.empty()) {
    if (const int opened = open_picture(args.plot, "--plot", "sim", plot)) return opened;
  }
  for (auto [path, flag, holder] :
       {std::tuple{&args.json, "--json", &json}, std::tuple{&args.csv, "--csv", &csv},
        std::tuple{&args.trace, "--trace", &trace_out},
        std::tuple{&args.plot_csv, "--plot-csv", &plot_csv}}) {
    if (path->empty()) continue;
    auto opened = Output::open(*path, flag);
    if (!opened) {
      std::cerr << "irqmod sim: " << opened.error().what() << "\n";
      return kExitIoFailed;
    }
    *holder = std::move(opened).value();
  }
  std::optional<sim::TraceWriter> trace;
  if (trace_out) trace.emplace(trace_out->stream(), window, detail.value());

  progress.trace = trace ? &*trace : nullptr;
  if (const char* limit = std::getenv("IRQMOD_TRACE_WARN_BYTES"); limit && trace) {
    std::uint64_t bytes = 0;
    const std::string_view text = limit;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
      std::cerr << "irqmod sim: IRQMOD_TRACE_WARN_BYTES: '" << limit
                << "' is not a byte count; allowed: a whole number such as 1000000000\n";
      return kExitBadInput;
    }
    progress.trace_warn_bytes = bytes;
  }
  sim::RunOptions options;
  options.trace = trace ? &*trace : nullptr;
  options.progress = &Progress::report;
  options.progress_context = &progress;
  sim::RunSeries series;
  if (series_wanted) options.series = &series;
  auto report = sim::simulate(scenario, options);
  progress.done();
  if (trace) trace->close();
  if (!report) {
    std::cerr << "irqmod sim: " << args.file << ": " << report.error().what() << "\n";
    return exit_status_for_run(report.error());
  }
  if (!args.no_wall_time)
    report.value().wall_ns = (SteadyClock::now() - progress.wall_start).count();
  // Whatever takes stdout ('-') has it alone: the text report is left out, as it is for
  // --json - and --csv -, so the output can be piped into a parser (or Perfetto's trace_processor).
  const bool stdout_taken = (json && json->is_stdout()) || (csv && csv->is_stdout()) ||
                            (trace_out && trace_out->is_stdout()) ||
                            (plot_csv && plot_csv->is_stdout());
  if (!stdout_taken) sim::write_text(std::cout, report.value());
  if (json) sim::write_json(json->stream(), report.value());
  if (csv) sim::write_csv(csv->stream(), report.value());
  if (plot_csv) sim::write_series_csv(plot_csv->stream(), series);
  bool written = true;
  for (Output* out : {json.get(), csv.get(), trace_out.get(), plot_csv.get()})
    written = committed(out, "irqmod sim") && written;
  if (plot) {
    const int drawn = draw_picture(
        *plot, args.plot, "--plot", "sim", [&](const std::string& image, const std::string& data) {
          return sweep::make_series_plot(series, {image, "irqmod sim " + args.file}, data);
        });
    if (drawn != kExitOk) return drawn;
  }
  return written ? kExitOk : kExitIoFailed;
}

// ---- irqmod run ---------------------------------------------------------------------------

struct RunArgs {
  std::string dir;  // empty: scenarios/ of the data directory (sim::share_dir())
  ScenarioFlags flags;
  std::string json;
};

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// One seed row as run: the scenario it came from and irqmod's value (or why there is none).
struct RowResult {
  sim::SeedRow row;
  std::string scenario;
  std::optional<double> value;
  std::string missing;
  fs::path file;    // the scenario's file
  fs::path versus;  // a `versus` row: the other scenario's file, resolved once all have run
};

// The seeds' tables: for each seed and table, its rows with the seed's and irqmod's numbers.
// A seed's number as its tables print it: as many decimals as its size needs.
std::string seed_number(double v) {
  const double a = v < 0 ? -v : v;
  return fixed(v, a >= 1000 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

// Per seed and table: the seed's number, irqmod's, their ratio, fitted or predicted. Columns are
// as wide as their widest cell.
void print_seed_tables(const std::vector<RowResult>& rows) {
  std::vector<std::pair<std::string, std::string>> tables;  // (seed, table) in first-seen order
  for (const RowResult& r : rows) {
    const std::pair<std::string, std::string> key{r.row.seed, r.row.table};
    if (std::find(tables.begin(), tables.end(), key) == tables.end()) tables.push_back(key);
  }
  std::stable_sort(tables.begin(), tables.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [seed, table] : tables) {
    std::vector<std::vector<std::string>> cells{
        {"row", "metric", "unit", "seed", "irqmod", "irqmod/seed", "role", "scenario"}};
    for (const RowResult& r : rows) {
      if (r.row.seed != seed || r.row.table != table) continue;
      std::string ratio = "-";
      if (r.value && r.row.seed_value != 0) ratio = "x" + fixed(*r.value / r.row.seed_value, 2);
      std::string scenario = r.scenario;
      if (!r.missing.empty()) scenario += "  (missing: " + r.missing + ")";
      cells.push_back({r.row.row, r.row.metric, r.row.unit,
                       r.row.seed_text.empty() ? seed_number(r.row.seed_value) : r.row.seed_text,
                       r.value ? seed_number(*r.value) : "-", ratio,
                       std::string(sim::to_string(r.row.role)), scenario});
    }
    std::vector<std::size_t> width(cells[0].size(), 0);
    for (const auto& line : cells) {
      for (std::size_t c = 0; c < line.size(); ++c)
        width[c] = std::max(width[c], line[c].size());
    }
    std::printf("\nseed %s: %s\n", seed.c_str(), table.c_str());
    for (const auto& line : cells) {
      std::string out = " ";
      for (std::size_t c = 0; c < line.size(); ++c) {
        const bool number = c >= 3 && c <= 5;  // seed, irqmod, ratio: right-aligned
        const std::string pad(width[c] - line[c].size(), ' ');
        out += " " + (number ? pad + line[c] : c + 1 == line.size() ? line[c] : line[c] + pad);
      }
      std::printf("%s\n", out.c_str());
    }
  }
}

void write_run_json(std::ostream& out, const std::vector<sim::RunReport>& reports,
                    const std::vector<RowResult>& rows) {
  out << "{\"scenarios\":[";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (i) out << ",";
    std::ostringstream one;
    sim::write_json(one, reports[i]);
    std::string text = one.str();
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    out << text;
  }
  out << "],\n\"seed_rows\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RowResult& r = rows[i];
    out << (i ? ",\n" : "\n");
    sim::JsonWriter json(out);
    json.begin_object();
    json.field("seed", r.row.seed);
    json.field("table", r.row.table);
    json.field("row", r.row.row);
    json.field("metric", r.row.metric);
    json.field("unit", r.row.unit);
    json.field("seed_value", r.row.seed_value);
    if (!r.row.seed_text.empty()) json.field("seed_text", r.row.seed_text);
    json.key("irqmod_value");
    if (r.value) {
      json.value(*r.value);
    } else {
      json.null();
    }
    json.field("role", sim::to_string(r.row.role));
    if (!r.row.versus.empty()) json.field("versus", r.row.versus);
    json.field("scenario", r.scenario);
    if (!r.missing.empty()) json.field("missing", r.missing);
    json.end_object();
  }
  out << "]}\n";
}

int run_suite(const RunArgs& args) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(args.dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".toml") files.push_back(it->path());
  }
  if (ec) {
    std::cerr << "irqmod run: --dir: cannot read '" << args.dir << "': " << ec.message() << "\n";
    return kExitBadInput;
  }
  if (files.empty()) {
    std::cerr << "irqmod run: --dir: no scenario (*.toml) under '" << args.dir << "'\n";
    return kExitBadInput;
  }
  std::sort(files.begin(), files.end());

  std::unique_ptr<Output> json;
  if (!args.json.empty()) {
    auto opened = Output::open(args.json, "--json");
    if (!opened) {
      std::cerr << "irqmod run: " << opened.error().what() << "\n";
      return kExitIoFailed;
    }
    json = std::move(opened).value();
  }
  Progress progress;  // the suite's: shown once it has taken a second, the line says which run
  if (!progress.read_after("irqmod run")) return kExitBadInput;
  std::printf("%-36s %9s %10s %8s %9s %9s %10s %11s %6s %14s %9s\n", "scenario", "sim s", "events",
              "wall s", "p50 us", "p99 us", "max us", "irq/s", "cpu %", "dropped frames",
              "conserved");
  int status = kExitOk;
  std::vector<sim::RunReport> reports;
  std::vector<RowResult> rows;
  std::map<fs::path, sim::RunReport> by_file;  // for `versus` rows: every run, by its file
  // One run: `file` with `flags`; its rows are those of `variant` (empty: the file's own).
  const auto run_one = [&](const fs::path& file, const std::string& name,
                           const ScenarioFlags& flags, const std::string& variant) {
    sim::LoadResult loaded = load_scenario(file.string(), flags);
    if (!loaded) {
      std::printf("%-36s %s\n", name.c_str(), loaded.error().what().c_str());
      status = std::max(status, kExitBadInput);
      return;
    }
    const Instant wall_start = SteadyClock::now();
    sim::RunOptions options;
    options.progress = &Progress::report;
    options.progress_context = &progress;
    auto report = sim::simulate(loaded.value(), options);
    const Duration wall = SteadyClock::now() - wall_start;
    progress.done();
    if (!report) {
      std::printf("%-36s FAILED: %s\n", name.c_str(), report.error().what().c_str());
      status = std::max(status, exit_status_for_run(report.error()));
      return;
    }
    const sim::RunReport& r = report.value();
    // The scenario as named from the directory above --dir: "scenarios/seeds/004-x.toml", and
    // ":variant" after it for a variant's run.
    std::string path = fs::relative(file, fs::absolute(args.dir).parent_path()).generic_string();
    if (!variant.empty()) path += ":" + variant;
    for (const sim::SeedRow& row : loaded.value().seed_rows) {
      if (row.variant != variant) continue;
      RowResult result{row, path, std::nullopt, row.missing, fs::weakly_canonical(file), {}};
      if (row.missing.empty() && !row.versus.empty()) {
        result.versus = fs::weakly_canonical(file.parent_path() / row.versus);
      } else if (row.missing.empty()) {
        auto value = sim::seed_row_value(row, r);
        if (value) {
          result.value = value.value();
        } else {
          result.missing = value.error().what();
        }
      }
      rows.push_back(std::move(result));
    }
    const double sim_s = static_cast<double>(r.sim_time.count()) / 1e9;
    const double cpu_percent = 100.0 * r.cpu.utilization(r.sim_time).value_or(0.0);
    const auto usec = [&](std::int64_t ns) {
      return r.latency.count() ? fixed(static_cast<double>(ns) / 1000.0, 2) : std::string("-");
    };
    std::printf("%-36s %9.3f %10llu %8.3f %9s %9s %10s %11.0f %6.1f %14llu %9s\n", name.c_str(),
                sim_s, static_cast<unsigned long long>(r.events),
                static_cast<double>(wall.count()) / 1e9, usec(r.latency.percentile(50'000)).c_str(),
                usec(r.latency.percentile(99'000)).c_str(), usec(r.latency.max()).c_str(),
                sim_s > 0 ? static_cast<double>(r.interrupts.total()) / sim_s : 0.0, cpu_percent,
                static_cast<unsigned long long>(r.drops.total()),
                r.conservation.ok() ? "yes" : "NO");
    if (json) reports.push_back(r);
    if (variant.empty()) by_file.emplace(fs::weakly_canonical(file), r);
  };
  // The runs first, so that the progress line can say how many: a file with [[variant]] tables
  // runs once per variant (each as `irqmod sim FILE --variant NAME`: its assignments, then the
  // command line's).
  struct Job {
    fs::path file;
    std::string name;
    ScenarioFlags flags;
    std::string variant;
  };
  std::vector<Job> jobs;
  for (const fs::path& file : files) {
    const std::string name = fs::relative(file, args.dir).replace_extension().string();
    sim::LoadResult base = load_scenario(file.string(), args.flags);
    if (!base || base.value().variants.empty()) {
      jobs.push_back({file, name, args.flags, ""});
      continue;
    }
    for (const sim::Variant& v : base.value().variants) {
      ScenarioFlags flags = args.flags;
      flags.sets = v.sets;
      flags.sets.insert(flags.sets.end(), args.flags.sets.begin(), args.flags.sets.end());
      jobs.push_back({file, name + ":" + v.name, flags, v.name});
    }
  }
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    progress.label =
        "[" + std::to_string(j + 1) + "/" + std::to_string(jobs.size()) + "] " + jobs[j].name + " ";
    run_one(jobs[j].file, jobs[j].name, jobs[j].flags, jobs[j].variant);
  }
  // `versus` rows: this run's metric against the other scenario's, once both have run.
  for (RowResult& result : rows) {
    if (result.versus.empty()) continue;
    const auto it = by_file.find(result.versus);
    const auto self = by_file.find(result.file);
    if (it == by_file.end() || self == by_file.end()) {
      result.missing = "versus: " + result.row.versus + " did not run in this suite";
      continue;
    }
    auto value = sim::seed_row_reduction(result.row, self->second, it->second);
    if (value) {
      result.value = value.value();
    } else {
      result.missing = value.error().what();
    }
  }
  if (!rows.empty()) print_seed_tables(rows);
  if (json) {
    write_run_json(json->stream(), reports, rows);
    if (!committed(json.get(), "irqmod run")) return kExitIoFailed;
  }
  return status;
}

}  // namespace

void add_sim_command(CLI::App& app, int& status) {
  auto args = std::make_shared<SimArgs>();
  CLI::App* cmd = app.add_subcommand("sim", "Simulate one scenario file");
  cmd->add_option("file", args->file, "Scenario file (TOML)")->required();
  cmd->add_option("--seed", args->flags.seed, "Override scenario.seed (0 to 2^63-1)");
  cmd->add_option("--duration", args->flags.duration,
                  "Time measured after the scenario's warm-up (scenario.duration = warmup + T), "
                  "e.g. 100ms");
  cmd->add_option("--set", args->flags.sets,
                  "Override any key: --set nic.rx-usecs=8 (repeatable; wins over --seed and "
                  "--duration)");
  cmd->add_option("--json", args->json, "Write the JSON report to FILE ('-': stdout)");
  cmd->add_option("--csv", args->csv, "Write one CSV header and row to FILE ('-': stdout)");
  cmd->add_option("--trace", args->trace,
                  "Write a Chrome trace-event timeline (Perfetto, chrome://tracing) to FILE ('-': "
                  "stdout, alone: no text report)");
  cmd->add_option("--trace-detail", args->trace_detail,
                  "With --trace: polls (default: per-poll slices, ring and drop counters; a 1 s "
                  "line-rate run is ~15 MB) or frames (also an event per frame written back: "
                  "~130 MB per line-rate second)");
  cmd->add_option("--trace-window", args->trace_window,
                  "Limit the timeline to START:END of simulated time, e.g. 10ms:11ms");
  cmd->add_flag("--no-wall-time", args->no_wall_time,
                "Leave wall_ns out of the JSON, so two runs are byte-identical");
  cmd->add_option("--variant", args->variant,
                  "Run the file's [[variant]] NAME (its assignments, then --set)");
  cmd->add_option("--plot", args->plot,
                  "Draw the run's time series to FILE.svg or FILE.png (gnuplot): packet rate, "
                  "interrupts/s per vector, Rx ring used/free, moderation setting; one sample per "
                  "scenario.series-interval");
  cmd->add_option("--plot-csv", args->plot_csv,
                  "Write the time series' samples as CSV to FILE ('-': stdout)");
  cmd->add_flag("--print-scenario", args->print_scenario,
                "Print every key of the effective scenario (file, then --set) as TOML; no run");
  cmd->callback([args, &status] {
    remove_results_on_interrupt("irqmod sim");
    status = run_sim(*args);
  });
}

void add_run_command(CLI::App& app, int& status) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd =
      app.add_subcommand("run", "Simulate every scenario of the built-in suite; one table");
  cmd->add_option("--dir", args->dir,
                  "Directory of scenario files (searched recursively); default: scenarios/ of the "
                  "data directory ($IRQMOD_SHARE_DIR, else the installed share/irqmod, else the "
                  "source tree)");
  cmd->add_option("--duration", args->flags.duration,
                  "Time measured after each scenario's warm-up, e.g. 100ms");
  cmd->add_option("--set", args->flags.sets, "Override a key in every scenario (repeatable)");
  cmd->add_option("--json", args->json,
                  "Write every report and the seeds' rows (\"seed_rows\") as JSON to FILE ('-': "
                  "stdout)");
  cmd->callback([args, &status] {
    remove_results_on_interrupt("irqmod run");
    if (args->dir.empty()) args->dir = (fs::path(sim::share_dir()) / "scenarios").string();
    status = run_suite(*args);
  });
}

}  // namespace irqmod::cli
