// irqmod: interrupt moderation, modelled and measured. The command-line front end.
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "irqmod_version.hpp"

namespace {

// The first word of the command line when it names no command ("irqmod bogus"), else empty:
// CLI11 alone would answer "A subcommand is required".
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  for (const CLI::App* sub : app.get_subcommands(nullptr)) {
    if (sub->get_name() == argv[1]) return {};
  }
  return argv[1];
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = irqmod::cli;
  CLI::App app{"irqmod: interrupt moderation policies, modelled and measured", "irqmod"};
  app.require_subcommand(1);
  app.set_version_flag(
      "--version", std::string("irqmod ") + IRQMOD_VERSION + " (git " + IRQMOD_GIT_COMMIT + ")");
  app.footer(cli::exit_status_text());
  int status = cli::kExitOk;
  // One line per command.
  cli::add_demo_command(app, status);
  cli::add_dim_replay_command(app, status);
  cli::add_itr_command(app, status);
  cli::add_kernel_diff_command(app, status);
  cli::add_sim_command(app, status);
  cli::add_run_command(app, status);
  cli::add_serve_command(app, status);
  cli::add_lab_command(app, status);
  cli::add_load_command(app, status);
  cli::add_napi_command(app, status);
  cli::add_top_command(app, status);
  cli::add_sweep_command(app, status);
  cli::add_plot_command(app, status);
  cli::add_tune_command(app, status);
  cli::add_calibrate_command(app, status);
  cli::add_help_command(app, status);
  for (CLI::App* command : app.get_subcommands(nullptr))
    command->footer(
        "Exit status: 0 success, 1 the run found a problem, 2 bad input, 3 results "
        "not written (irqmod help exit-status)");
  if (const std::string word = unknown_command(app, argc, argv); !word.empty()) {
    std::cerr << "irqmod: unknown command '" << word << "'; allowed: " << cli::command_names(app)
              << " (irqmod help CMD)\n";
    return cli::kExitBadInput;
  }
  if (argc < 2) {
    std::cerr << "irqmod: a command is required; allowed: " << cli::command_names(app)
              << " (irqmod --help)\n";
    return cli::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every real usage error is "bad input" (2).
    const int code = app.exit(e);
    return cli::finish_stdout(code == 0 ? cli::kExitOk : cli::kExitBadInput, "irqmod");
  }
  return cli::finish_stdout(status, "irqmod");
}
