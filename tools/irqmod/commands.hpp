// The irqmod subcommands. Each registers itself on the CLI11 app and, when chosen, stores its
// exit status in `status`: 0 on success, 2 on bad input (usage, file contents, values).
#pragma once

#include <CLI/CLI.hpp>

#include "irqmod/error.hpp"

namespace irqmod::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitRunFailed = 1;  // a simulation broke an invariant, a system call failed

// For commands that talk to the system (lab, napi, top): an Error keyed by a flag ("--queues")
// is the user's input, exit 2; any other is the system's (no root, a refused call), exit 1.
inline int exit_status_for(const Error& e) {
  return e.key.rfind("--", 0) == 0 ? kExitBadInput : kExitRunFailed;
}

void add_dim_replay_command(CLI::App& app, int& status);
void add_itr_command(CLI::App& app, int& status);
void add_kernel_diff_command(CLI::App& app, int& status);
void add_demo_command(CLI::App& app, int& status);
void add_sim_command(CLI::App& app, int& status);
void add_run_command(CLI::App& app, int& status);
void add_serve_command(CLI::App& app, int& status);
void add_lab_command(CLI::App& app, int& status);
void add_napi_command(CLI::App& app, int& status);
void add_top_command(CLI::App& app, int& status);
void add_sweep_command(CLI::App& app, int& status);
void add_plot_command(CLI::App& app, int& status);
void add_tune_command(CLI::App& app, int& status);

}  // namespace irqmod::cli
