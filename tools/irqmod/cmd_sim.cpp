// irqmod sim FILE [--seed N] [--duration T] [--set k=v ...] [--json F] [--csv F] [--trace F]
//                 [--trace-window START:END] [--no-wall-time] [--print-scenario] [--variant NAME]
// irqmod run [--dir D] [--duration T] [--set k=v ...] [--json F]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
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
#include "irqmod/sim/simulation.hpp"
#include "irqmod/sim/trace.hpp"
#include "irqmod/sim/units.hpp"
#include "irqmod/time.hpp"

namespace irqmod::cli {
namespace {

namespace fs = std::filesystem;

// Loads `file` with `sets`; `--duration T` sets the time measured, after the scenario's own
// warm-up (scenario.duration = scenario.warmup + T): the warm-up builds state the numbers need.
sim::LoadResult load_measured(const std::string& file, std::vector<std::string> sets,
                              const std::optional<std::string>& duration) {
  if (!duration) return sim::load_scenario_file(file, sets);
  const auto measured = sim::parse_duration_ns(*duration, "s");
  if (!measured || *measured <= 0) {
    return sim::Diagnostic{"", 0,
                           Error{"--duration", "'" + *duration +
                                                   "' is not a duration; allowed: a time above 0 "
                                                   "such as 100ms (a bare number is seconds)"}};
  }
  sim::LoadResult first = sim::load_scenario_file(file, sets);
  if (!first) return first;
  const std::int64_t total = first.value().scenario.warmup.count() + *measured;
  sets.insert(sets.begin(), "scenario.duration=" + std::to_string(total) + "ns");
  return sim::load_scenario_file(file, sets);
}

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
  std::string names;
  for (const sim::Variant& v : scenario.variants)
    names += (names.empty() ? "" : ", ") + v.name;
  return Error{"--variant",
               "'" + name + "' is not a variant of " + scenario.scenario.name +
                   "; allowed: " + (names.empty() ? "none (the file has none)" : names)};
}

// A progress bar on stderr, shown only on a terminal and only once a run has taken a second.
struct Progress {
  Instant wall_start = SteadyClock::now();
  bool tty = isatty(STDERR_FILENO) != 0;
  bool shown = false;

  static void report(void* context, Instant reached, Instant end) {
    auto* p = static_cast<Progress*>(context);
    if (!p->tty || SteadyClock::now() - p->wall_start < seconds(1)) return;
    const double fraction = static_cast<double>(ns_since_epoch(reached)) /
                            static_cast<double>(std::max<std::int64_t>(ns_since_epoch(end), 1));
    const int filled = static_cast<int>(fraction * 40.0);
    std::fprintf(stderr, "\r[%-40s] %3d%%  simulated %.3f s", std::string(filled, '#').c_str(),
                 static_cast<int>(fraction * 100.0 + 0.5),
                 static_cast<double>(ns_since_epoch(reached)) / 1e9);
    std::fflush(stderr);
    p->shown = true;
  }
  void done() const {
    if (shown) std::fprintf(stderr, "\r%60s\r", "");
  }
};

struct SimArgs {
  std::string file;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> duration;
  std::vector<std::string> sets;
  std::string json;
  std::string csv;
  std::string trace;
  std::string trace_window;
  bool no_wall_time = false;
  bool print_scenario = false;
  std::string variant;
};

// Opens `path` for writing ("-" is stdout); an Error names the flag when it cannot.
Expected<std::ostream*> open_output(const std::string& path, const std::string& flag,
                                    std::unique_ptr<std::ofstream>& holder) {
  if (path == "-") return &std::cout;
  holder = std::make_unique<std::ofstream>(path);
  if (!*holder) return Error{flag, "cannot write '" + path + "'"};
  return holder.get();
}

int run_sim(const SimArgs& args) {
  std::vector<std::string> overrides = args.sets;
  if (args.seed) overrides.insert(overrides.begin(), "scenario.seed=" + std::to_string(*args.seed));
  sim::LoadResult loaded = load_measured(args.file, overrides, args.duration);
  if (!loaded) {
    std::cerr << "irqmod sim: " << loaded.error().what() << "\n";
    return kExitBadInput;
  }
  if (!args.variant.empty()) {
    auto sets = variant_sets(loaded.value(), args.variant, overrides);
    if (!sets) {
      std::cerr << "irqmod sim: " << sets.error().what() << "\n";
      return kExitBadInput;
    }
    loaded = load_measured(args.file, sets.value(), args.duration);
    if (!loaded) {
      std::cerr << "irqmod sim: " << loaded.error().what() << "\n";
      return kExitBadInput;
    }
  }
  if (args.print_scenario) {
    sim::write_toml(std::cout, loaded.value());
    return kExitOk;
  }
  std::unique_ptr<std::ofstream> json_file, csv_file, trace_file;
  std::ostream* json_out = nullptr;
  std::ostream* csv_out = nullptr;
  std::optional<sim::TraceWriter> trace;
  for (auto [path, flag, holder, out] : {std::tuple{&args.json, "--json", &json_file, &json_out},
                                         std::tuple{&args.csv, "--csv", &csv_file, &csv_out}}) {
    if (path->empty()) continue;
    auto stream = open_output(*path, flag, *holder);
    if (!stream) {
      std::cerr << "irqmod sim: " << stream.error().what() << "\n";
      return kExitBadInput;
    }
    *out = stream.value();
  }
  if (!args.trace.empty()) {
    sim::TraceWindow window;
    if (!args.trace_window.empty()) {
      auto parsed = sim::parse_trace_window(args.trace_window);
      if (!parsed) {
        std::cerr << "irqmod sim: --trace-window: " << parsed.error().what() << "\n";
        return kExitBadInput;
      }
      window = parsed.value();
    }
    auto stream = open_output(args.trace, "--trace", trace_file);
    if (!stream) {
      std::cerr << "irqmod sim: " << stream.error().what() << "\n";
      return kExitBadInput;
    }
    trace.emplace(*stream.value(), window);
  } else if (!args.trace_window.empty()) {
    std::cerr << "irqmod sim: --trace-window: needs --trace FILE\n";
    return kExitBadInput;
  }

  Progress progress;
  sim::RunOptions options;
  options.trace = trace ? &*trace : nullptr;
  options.progress = &Progress::report;
  options.progress_context = &progress;
  auto report = sim::simulate(loaded.value(), options);
  progress.done();
  if (trace) trace->close();
  if (!report) {
    std::cerr << "irqmod sim: " << args.file << ": " << report.error().what() << "\n";
    return report.error().key == "conservation" ? kExitRunFailed : kExitBadInput;
  }
  if (!args.no_wall_time)
    report.value().wall_ns = (SteadyClock::now() - progress.wall_start).count();
  if (json_out != &std::cout && csv_out != &std::cout) sim::write_text(std::cout, report.value());
  if (json_out) sim::write_json(*json_out, report.value());
  if (csv_out) sim::write_csv(*csv_out, report.value());
  return kExitOk;
}

// ---- irqmod run ---------------------------------------------------------------------------

struct RunArgs {
  std::string dir = IRQMOD_SCENARIO_DIR;
  std::optional<std::string> duration;
  std::vector<std::string> sets;
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
  const std::vector<std::string> overrides = args.sets;

  std::unique_ptr<std::ofstream> json_file;
  std::ostream* json_out = nullptr;
  if (!args.json.empty()) {
    auto stream = open_output(args.json, "--json", json_file);
    if (!stream) {
      std::cerr << "irqmod run: " << stream.error().what() << "\n";
      return kExitBadInput;
    }
    json_out = stream.value();
  }
  std::printf("%-36s %9s %10s %8s %9s %9s %10s %11s %6s %8s %5s\n", "scenario", "sim s", "events",
              "wall s", "p50 us", "p99 us", "max us", "irq/s", "cpu %", "drops", "ok");
  int status = kExitOk;
  std::vector<sim::RunReport> reports;
  std::vector<RowResult> rows;
  std::map<fs::path, sim::RunReport> by_file;  // for `versus` rows: every run, by its file
  // One run: `file` with `sets`; its rows are those of `variant` (empty: the file's own).
  const auto run_one = [&](const fs::path& file, const std::string& name,
                           const std::vector<std::string>& sets, const std::string& variant) {
    sim::LoadResult loaded = load_measured(file.string(), sets, args.duration);
    if (!loaded) {
      std::printf("%-36s %s\n", name.c_str(), loaded.error().what().c_str());
      status = kExitBadInput;
      return;
    }
    const Instant wall_start = SteadyClock::now();
    auto report = sim::simulate(loaded.value());
    const Duration wall = SteadyClock::now() - wall_start;
    if (!report) {
      std::printf("%-36s FAILED: %s\n", name.c_str(), report.error().what().c_str());
      status = kExitRunFailed;
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
    double busy = 0;
    for (std::size_t c = 0; c < r.cpu.cores(); ++c)
      busy += static_cast<double>(r.cpu.busy(c).count());
    const double cpu_percent =
        sim_s > 0 ? 100.0 * busy / 1e9 / sim_s / static_cast<double>(r.cpu.cores()) : 0.0;
    const auto usec = [&](std::int64_t ns) {
      return r.latency.count() ? fixed(static_cast<double>(ns) / 1000.0, 2) : std::string("-");
    };
    std::printf("%-36s %9.3f %10llu %8.3f %9s %9s %10s %11.0f %6.1f %8llu %5s\n", name.c_str(),
                sim_s, static_cast<unsigned long long>(r.events),
                static_cast<double>(wall.count()) / 1e9, usec(r.latency.percentile(50'000)).c_str(),
                usec(r.latency.percentile(99'000)).c_str(), usec(r.latency.max()).c_str(),
                sim_s > 0 ? static_cast<double>(r.interrupts.total()) / sim_s : 0.0, cpu_percent,
                static_cast<unsigned long long>(r.drops.total()),
                r.conservation.ok() ? "yes" : "NO");
    if (json_out) reports.push_back(r);
    if (variant.empty()) by_file.emplace(fs::weakly_canonical(file), r);
  };
  for (const fs::path& file : files) {
    const std::string name = fs::relative(file, args.dir).replace_extension().string();
    // A file with [[variant]] tables runs once per variant (each as `irqmod sim FILE --variant
    // NAME`: its assignments, then the command line's).
    sim::LoadResult base = load_measured(file.string(), overrides, args.duration);
    if (!base || base.value().variants.empty()) {
      run_one(file, name, overrides, "");
      continue;
    }
    for (const sim::Variant& v : base.value().variants) {
      std::vector<std::string> sets = v.sets;
      sets.insert(sets.end(), overrides.begin(), overrides.end());
      run_one(file, name + ":" + v.name, sets, v.name);
    }
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
  if (json_out) write_run_json(*json_out, reports, rows);
  return status;
}

}  // namespace

void add_sim_command(CLI::App& app, int& status) {
  auto args = std::make_shared<SimArgs>();
  CLI::App* cmd = app.add_subcommand("sim", "Simulate one scenario file");
  cmd->add_option("file", args->file, "Scenario file (TOML)")->required();
  cmd->add_option("--seed", args->seed, "Override scenario.seed");
  cmd->add_option("--duration", args->duration,
                  "Time measured after the scenario's warm-up (scenario.duration = warmup + T), "
                  "e.g. 100ms");
  cmd->add_option("--set", args->sets, "Override any key: --set nic.rx-usecs=8 (repeatable)");
  cmd->add_option("--json", args->json, "Write the JSON report to FILE ('-': stdout)");
  cmd->add_option("--csv", args->csv, "Write one CSV header and row to FILE ('-': stdout)");
  cmd->add_option("--trace", args->trace,
                  "Write a Chrome trace-event timeline (Perfetto, chrome://tracing) to FILE");
  cmd->add_option("--trace-window", args->trace_window,
                  "Limit the timeline to START:END of simulated time, e.g. 10ms:11ms");
  cmd->add_flag("--no-wall-time", args->no_wall_time,
                "Leave wall_ns out of the JSON, so two runs are byte-identical");
  cmd->add_option("--variant", args->variant,
                  "Run the file's [[variant]] NAME (its assignments, then --set)");
  cmd->add_flag("--print-scenario", args->print_scenario,
                "Print every key of the effective scenario (file, then --set) as TOML; no run");
  cmd->callback([args, &status] { status = run_sim(*args); });
}

void add_run_command(CLI::App& app, int& status) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd =
      app.add_subcommand("run", "Simulate every scenario of the built-in suite; one table");
  cmd->add_option("--dir", args->dir, "Directory of scenario files (searched recursively)");
  cmd->add_option("--duration", args->duration,
                  "Time measured after each scenario's warm-up, e.g. 100ms");
  cmd->add_option("--set", args->sets, "Override a key in every scenario (repeatable)");
  cmd->add_option("--json", args->json,
                  "Write every report and the seeds' rows (\"seed_rows\") as JSON to FILE ('-': "
                  "stdout)");
  cmd->callback([args, &status] { status = run_suite(*args); });
}

}  // namespace irqmod::cli
