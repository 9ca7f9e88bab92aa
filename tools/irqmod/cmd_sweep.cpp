// irqmod sweep FILE --vary KEY=V1,V2,... [--vary KEY=FROM:TO:STEP ...] [--seeds N] [-j N]
//                   [--set k=v ...] [--duration T] [--csv F] [--json F] [--shard I/N]
// irqmod sweep --merge SHARD.csv ... [--csv F] [--json F]
//
// One row per point of the grid (sweep/runner.hpp): the point's number, its values and every
// column of `irqmod sim --csv`. Without --csv or --json the CSV goes to stdout.
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "irqmod/sweep/grid.hpp"
#include "irqmod/sweep/runner.hpp"
#include "irqmod/sweep/table.hpp"
#include "scenario_input.hpp"
#include "sweep_mpi.hpp"
#include "sweep_output.hpp"

namespace irqmod::cli {
namespace {

struct SweepArgs {
  std::string file;
  std::vector<std::string> vary;
  std::size_t seeds = 1;
  unsigned jobs = 0;
  std::vector<std::string> sets;
  std::optional<std::string> duration;
  std::string csv;
  std::string json;
  std::string shard;
  std::vector<std::string> merge;
  std::string plot;
};

// Opens --csv/--json (CSV on stdout when neither) and --plot's picture, before any work.
int open_results(const SweepArgs& args, TableFiles& files) {
  const std::string csv = args.csv.empty() && args.json.empty() ? "-" : args.csv;
  return open_table_files(csv, args.json, args.plot, "sweep", files);
}

int write_results(TableFiles& files, const sweep::Table& table, const std::string& title) {
  sweep::PlotRequest request;
  request.title = title;
  return write_table_files(files, table, request, "sweep");
}

int run_merge(const SweepArgs& args) {
  std::vector<sweep::Table> shards;
  for (const std::string& path : args.merge) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "irqmod sweep: --merge: cannot read '" << path << "'\n";
      return kExitBadInput;
    }
    auto table = sweep::read_csv(in, path);
    if (!table) {
      std::cerr << "irqmod sweep: --merge: " << table.error().what() << "\n";
      return kExitBadInput;
    }
    shards.push_back(std::move(table).value());
  }
  TableFiles files;
  if (const int opened = open_results(args, files)) return opened;
  auto merged = sweep::merge(shards, args.merge, sweep::kPointColumn, sweep::kPointsColumn);
  if (!merged) {
    std::cerr << "irqmod sweep: " << merged.error().what() << "\n";
    return kExitBadInput;
  }
  return write_results(files, merged.value(), "irqmod sweep --merge");
}

int run_sweep(const SweepArgs& args, const MpiWorld& world) {
  if (!args.merge.empty()) {
    if (!args.file.empty() || !args.vary.empty()) {
      std::cerr << "irqmod sweep: --merge takes the shards' CSV files only, no FILE or --vary\n";
      return kExitBadInput;
    }
    return world.rank == 0 ? run_merge(args) : kExitOk;
  }
  if (args.file.empty()) {
    std::cerr << "irqmod sweep: FILE: a scenario file is required (or --merge SHARD.csv ...)\n";
    return kExitBadInput;
  }
  if (args.seeds == 0) {
    std::cerr << "irqmod sweep: --seeds: 0; allowed: 1 or more\n";
    return kExitBadInput;
  }
  sweep::Spec spec;
  spec.file = args.file;
  spec.sets = scenario_assignments(args.sets);  // net.core.busy_read=50 as napi.busy_read=50
  spec.duration = args.duration;
  spec.seeds = args.seeds;
  // The scenario itself (and --set, --duration) through the path irqmod sim loads it by, so that
  // a directory or unreadable file is refused and a message names the flag as sim's does.
  const sim::LoadResult base =
      load_scenario(args.file, ScenarioFlags{{}, args.duration, args.sets});
  if (!base) {
    std::cerr << "irqmod sweep: " << base.error().what() << "\n";
    return kExitBadInput;
  }
  {
    std::ifstream in(args.file, std::ios::binary);
    if (!in) {
      std::cerr << "irqmod sweep: " << args.file << ": cannot read the file\n";
      return kExitBadInput;
    }
    std::ostringstream text;
    text << in.rdbuf();
    spec.text = text.str();
  }
  for (const std::string& v : args.vary) {
    auto axis = sweep::parse_vary(scenario_assignment(v));
    if (!axis) {
      std::cerr << "irqmod sweep: " << axis.error().what() << "\n";
      return kExitBadInput;
    }
    spec.axes.push_back(std::move(axis).value());
  }
  // Each value of each axis alone.
  if (auto bad = sweep::check_axes(spec)) {
    std::cerr << "irqmod sweep: " << *bad << "\n";
    return kExitBadInput;
  }
  const std::size_t total = sweep::point_count(spec.axes);
  sweep::Range range{0, total};
  if (!args.shard.empty()) {
    auto shard = sweep::parse_shard(args.shard);
    if (!shard) {
      std::cerr << "irqmod sweep: " << shard.error().what() << "\n";
      return kExitBadInput;
    }
    range = sweep::shard_range(total, shard.value());
  }
  // Under MPI, rank r takes the shard's points r, r + N, r + 2N, ...
  std::vector<std::size_t> points;
  for (std::size_t i = range.begin; i < range.end; ++i) {
    if ((i - range.begin) % static_cast<std::size_t>(world.size) ==
        static_cast<std::size_t>(world.rank))
      points.push_back(i);
  }
  // The outputs before the points: a path that cannot be written fails now, not after the
  // sweep. Rank 0 writes them; every rank learns whether it could open them.
  TableFiles files;
  const int opened = broadcast_int(world, world.rank == 0 ? open_results(args, files) : kExitOk);
  if (opened != kExitOk) return opened;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned jobs =
      args.jobs ? args.jobs : std::max(1u, cores / static_cast<unsigned>(world.size));
  PointProgress progress;
  sweep::Outcome outcome = sweep::run_points(
      spec, points, jobs, [&](std::size_t done, std::size_t n) { progress.update(done, n); });
  progress.finish();
  if (world.size > 1) {
    // Each rank's rows (or its error) to rank 0, which merges them on the point number.
    std::ostringstream mine;
    if (outcome.error) {
      mine << (outcome.error->bad_input ? 'B' : 'F') << outcome.error->message;
    } else {
      mine << 'T';
      sweep::write_csv(mine, outcome.table);
    }
    const std::vector<std::string> all = gather_text(world, mine.str());
    std::vector<sweep::Table> tables;
    std::vector<std::string> names;
    for (std::size_t r = 0; r < all.size() && !outcome.error; ++r) {
      if (all[r][0] != 'T') {
        outcome.error = sweep::PointError{"rank " + std::to_string(r) + ": " + all[r].substr(1),
                                          all[r][0] == 'B'};
        break;
      }
      std::istringstream in(all[r].substr(1));
      tables.push_back(sweep::read_csv(in, "rank " + std::to_string(r)).value());
      names.push_back("rank " + std::to_string(r));
    }
    if (world.rank == 0 && !outcome.error) {
      auto merged = sweep::merge(tables, names, sweep::kPointColumn, sweep::kPointsColumn);
      if (!merged) {
        outcome.error = sweep::PointError{merged.error().what(), false};
      } else {
        outcome.table = std::move(merged).value();
      }
    }
  }
  if (outcome.error) {
    std::cerr << "irqmod sweep: " << outcome.error->message << "\n";
    return outcome.error->bad_input ? kExitBadInput : kExitRunFailed;
  }
  if (world.rank != 0) return kExitOk;
  std::string title = "irqmod sweep " + args.file;
  for (const std::string& v : args.vary)
    title += " --vary " + v;
  return write_results(files, outcome.table, title);
}

}  // namespace

void add_sweep_command(CLI::App& app, int& status) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a scenario over a grid of settings (and seeds); one row per point");
  cmd->add_option("file", args->file, "Scenario file (TOML)");
  cmd->add_option("--vary", args->vary,
                  "KEY=V1,V2,... or KEY=FROM:TO:STEP, any scenario key (repeatable: the "
                  "cartesian product)");
  cmd->add_option("--seeds", args->seeds,
                  "Run each point with N seeds (scenario.seed, +1, ...): the mean, min and max");
  cmd->add_option("-j,--jobs", args->jobs, "Points run at once (default: the machine's cores)");
  cmd->add_option("--set", args->sets, "Override a key in every point (repeatable)");
  cmd->add_option("--duration", args->duration,
                  "Time measured after the scenario's warm-up, as for irqmod sim");
  cmd->add_option("--csv", args->csv, "Write the rows as CSV to FILE ('-': stdout, the default)");
  cmd->add_option("--json", args->json, "Write the rows as JSON to FILE ('-': stdout)");
  cmd->add_option("--shard", args->shard,
                  "Run only shard I of N (0-based, contiguous blocks of points), for job arrays");
  cmd->add_option("--merge", args->merge,
                  "Merge the shards' CSV files into the single run's table (no FILE)");
  cmd->add_option("--plot", args->plot,
                  "Also draw latency against CPU and interrupts/s, Pareto points labelled, to "
                  "FILE.svg or FILE.png (gnuplot)");
  cmd->callback([args, &status] {
    remove_results_on_interrupt("irqmod sweep");
    const MpiWorld world = start_mpi();
    // Ranks other than 0 say nothing: rank 0 reports the same errors, and writes the output.
    std::streambuf* cerr = std::cerr.rdbuf();
    if (world.rank != 0) std::cerr.rdbuf(nullptr);
    // Every rank exits with rank 0's status, so that mpirun's is the sweep's.
    status = broadcast_int(world, run_sweep(*args, world));
    std::cerr.clear();
    std::cerr.rdbuf(cerr);
    finish_mpi(world);
  });
}

}  // namespace irqmod::cli
