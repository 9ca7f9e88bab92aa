// irqmod plot SWEEP.csv --out F.svg|F.png [--against KEY [--metric COLUMN ...]] [--title T]
//
// A sweep's table as a picture (sweep/plot.hpp): the latency-CPU and latency-interrupts
// frontier with the Pareto points labelled, or metrics against one varied key.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "irqmod/sweep/plot.hpp"
#include "irqmod/sweep/table.hpp"
#include "sweep_output.hpp"

namespace irqmod::cli {
namespace {

struct PlotArgs {
  std::string table;
  sweep::PlotRequest request;
};

int run_plot(const PlotArgs& args) {
  std::ifstream in(args.table);
  if (!in) {
    std::cerr << "irqmod plot: cannot read '" << args.table << "'\n";
    return kExitBadInput;
  }
  auto table = sweep::read_csv(in, args.table);
  if (!table) {
    std::cerr << "irqmod plot: " << table.error().what() << "\n";
    return kExitBadInput;
  }
  sweep::PlotRequest request = args.request;
  if (request.title.empty()) request.title = args.table;
  return draw_plot(table.value(), request, "plot");
}

}  // namespace

void add_plot_command(CLI::App& app, int& status) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Draw a sweep's CSV with gnuplot: latency against CPU and interrupts/s, or a "
      "metric against a varied key");
  cmd->add_option("table", args->table, "The CSV irqmod sweep wrote")->required();
  cmd->add_option("-o,--out", args->request.output, "The picture: FILE.svg or FILE.png")
      ->required();
  cmd->add_option("--against", args->request.against,
                  "Draw --metric against this varied key instead of the frontier");
  cmd->add_option("--metric", args->request.metrics,
                  "With --against: a column to draw (repeatable; default latency_p99_ns)");
  cmd->add_option("--title", args->request.title, "The picture's title (default: the file)");
  cmd->callback([args, &status] {
    remove_results_on_interrupt("irqmod plot");
    status = run_plot(*args);
  });
}

}  // namespace irqmod::cli
