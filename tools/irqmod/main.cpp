// irqmod: interrupt moderation, modelled and measured. The command-line front end.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"irqmod: interrupt moderation policies, modelled and measured"};
  app.require_subcommand(1);
  int status = irqmod::cli::kExitOk;
  irqmod::cli::add_demo_command(app, status);
  irqmod::cli::add_dim_replay_command(app, status);
  irqmod::cli::add_itr_command(app, status);
  irqmod::cli::add_kernel_diff_command(app, status);
  irqmod::cli::add_sim_command(app, status);
  irqmod::cli::add_run_command(app, status);
  irqmod::cli::add_serve_command(app, status);
  irqmod::cli::add_lab_command(app, status);
  irqmod::cli::add_napi_command(app, status);
  irqmod::cli::add_top_command(app, status);
  irqmod::cli::add_sweep_command(app, status);
  irqmod::cli::add_plot_command(app, status);
  irqmod::cli::add_tune_command(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and friends exit 0; every real usage error is "bad input" (2).
    const int code = app.exit(e);
    return code == 0 ? irqmod::cli::kExitOk : irqmod::cli::kExitBadInput;
  }
  return status;
}
