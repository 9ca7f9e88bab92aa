// irqmod dim-replay [--direction rx|tx] [--cq-mode eqe|cqe] [--profile LIST] [FILE|-]
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "commands.hpp"
#include "dim_replay.hpp"

namespace irqmod::cli {

void add_dim_replay_command(CLI::App& app, int& status) {
  struct Args {
    dim::Direction direction = dim::Direction::rx;
    dim::CqPeriodMode cq_mode = dim::CqPeriodMode::start_from_eqe;
    std::string profile;
    std::string file = "-";
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "dim-replay",
      "Run Linux net_dim over CSV samples 'time_ns,events,packets,bytes' (cumulative counters, one "
      "row per NAPI completion) and print 'step,profile_ix,usec,pkts,changed' per row");
  // The transformers' own descriptions would print the enums' values, which are bytes (NULs in
  // --help): they name the words instead.
  cmd->add_option("--direction", args->direction, "Which default profile table: rx or tx")
      ->transform(
          CLI::CheckedTransformer(std::map<std::string, dim::Direction>{{"rx", dim::Direction::rx},
                                                                        {"tx", dim::Direction::tx}})
              .description("{rx,tx}"));
  cmd->add_option("--cq-mode", args->cq_mode,
                  "Moderation timer start: eqe (from the event) or cqe (from each completion)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, dim::CqPeriodMode>{
                                              {"eqe", dim::CqPeriodMode::start_from_eqe},
                                              {"cqe", dim::CqPeriodMode::start_from_cqe}})
                      .description("{eqe,cqe}"));
  cmd->add_option("--profile", args->profile,
                  "User profile table as ethtool's rx-profile/tx-profile takes it, e.g. "
                  "1,256,n_8,256,n_64,256,n_128,256,n_256,256,n ('n' keeps the default value)");
  cmd->add_option("file", args->file, "CSV trace, or - for standard input")->capture_default_str();

  cmd->callback([args, &status] {
    DimReplayOptions options{args->direction, args->cq_mode, std::nullopt};
    if (!args->profile.empty()) {
      const auto& defaults = dim::default_profiles(args->direction, args->cq_mode);
      const std::string key = args->direction == dim::Direction::rx ? "--profile (rx-profile)"
                                                                    : "--profile (tx-profile)";
      auto table = dim::parse_profile_list(args->profile, defaults, key);
      if (!table) {
        std::cerr << "irqmod dim-replay: " << table.error().what() << "\n";
        status = kExitBadInput;
        return;
      }
      options.profiles = table.value();
    }
    if (args->file == "-") {
      // std::cin, kept in step with C stdio, takes one character per call: a buffered stream
      // of its own over the same descriptor reads the rows several times faster (README).
      std::ifstream in("/dev/stdin", std::ios::binary);
      status = run_dim_replay(in ? in : std::cin, "<stdin>", options, std::cout, std::cerr);
      return;
    }
    // A directory opens as a stream that fails at the first read: named here, not as ":0".
    std::error_code ec;
    if (std::filesystem::is_directory(args->file, ec)) {
      std::cerr << "irqmod dim-replay: " << args->file
                << ": is a directory; allowed: a CSV file of time_ns,events,packets,bytes rows, "
                   "or - for standard input\n";
      status = kExitBadInput;
      return;
    }
    std::ifstream in(args->file);
    if (!in) {
      std::cerr << "irqmod dim-replay: cannot open " << args->file << "\n";
      status = kExitBadInput;
      return;
    }
    status = run_dim_replay(in, args->file, options, std::cout, std::cerr);
  });
}

}  // namespace irqmod::cli
