// The irqmod subcommands. Each registers itself on the CLI11 app and, when chosen, stores its
// exit status in `status` (output.hpp: 0 success, 1 the run found a problem, 2 bad input, 3 the
// results could not be written).
#pragma once

#include <CLI/CLI.hpp>

#include "irqmod/error.hpp"
#include "output.hpp"

namespace irqmod::cli {

// The exit statuses, as `irqmod --help` and `irqmod help exit-status` print them.
std::string exit_status_text();
// The commands registered on `app`, in order: "demo, dim-replay, ...".
std::string command_names(const CLI::App& app);

// For commands that talk to the system (lab, napi, top): an Error keyed by a flag ("--queues")
// is the user's input, exit 2; any other is the system's (no root, a refused call), exit 1.
inline int exit_status_for(const Error& e) {
  return e.key.rfind("--", 0) == 0 ? kExitBadInput : kExitRunFailed;
}

void add_dim_replay_command(CLI::App& app, int& status);
void add_help_command(CLI::App& app, int& status);
void add_itr_command(CLI::App& app, int& status);
void add_kernel_diff_command(CLI::App& app, int& status);
void add_demo_command(CLI::App& app, int& status);
void add_sim_command(CLI::App& app, int& status);
void add_run_command(CLI::App& app, int& status);
void add_serve_command(CLI::App& app, int& status);
void add_lab_command(CLI::App& app, int& status);
void add_load_command(CLI::App& app, int& status);
void add_napi_command(CLI::App& app, int& status);
void add_top_command(CLI::App& app, int& status);
void add_sweep_command(CLI::App& app, int& status);
void add_plot_command(CLI::App& app, int& status);
void add_tune_command(CLI::App& app, int& status);
void add_calibrate_command(CLI::App& app, int& status);

}  // namespace irqmod::cli
