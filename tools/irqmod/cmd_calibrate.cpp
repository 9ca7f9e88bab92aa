// irqmod calibrate [--out FILE] [--quick] [--json]: this host's costs that the simulator charges,
// measured (irqmod/rt/calibrate_plan.hpp) and written as a platform file that `platform = NAME`
// loads (irqmod/rt/calibrate_report.hpp), or as JSON.
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "irqmod/rt/calibrate_plan.hpp"
#include "irqmod/rt/calibrate_report.hpp"
#include "irqmod/sim/scenario.hpp"

namespace irqmod::cli {
namespace {

struct Args {
  std::string out;
  bool quick = false;
  bool json = false;
};

// The command as typed, for the file's header.
std::string command_line(const Args& args) {
  std::string line = "irqmod calibrate";
  if (!args.out.empty()) line += " --out " + args.out;
  if (args.quick) line += " --quick";
  if (args.json) line += " --json";
  return line;
}

int run_calibrate(const Args& args) {
  // The platform file goes to --out, or to standard output when neither --out nor --json is
  // given; both outputs are opened before measuring, so a path that cannot be written fails at
  // once.
  const std::string platform_path = !args.out.empty() ? args.out : (args.json ? "" : "-");
  if (args.json && platform_path == "-") {
    std::cerr << "irqmod calibrate: --json: standard output already has the platform file "
                 "(--out -); give --out a file\n";
    return kExitBadInput;
  }
  std::unique_ptr<Output> platform;
  if (!platform_path.empty()) {
    auto opened = Output::open(platform_path, "--out");
    if (!opened) {
      std::cerr << "irqmod calibrate: " << opened.error().what() << "\n";
      return kExitIoFailed;
    }
    platform = std::move(opened).value();
  }
  rt::calibrate::PlanOptions options;
  options.quick = args.quick;
  options.progress = [](const std::string& what) {
    std::cerr << "irqmod calibrate: " << what << "\n";
  };
  rt::calibrate::Report report = rt::calibrate::run_plan(options);
  report.header.command = command_line(args);
  const rt::calibrate::KeyKnown known = [](std::string_view key) {
    return sim::find_key(key) != nullptr;
  };
  int keys = 0;
  int waiting = 0;
  int skipped = 0;
  for (const auto& e : report.entries) {
    if (e.raw) continue;
    if (!e.skipped.empty())
      ++skipped;
    else
      ++(known(e.key) ? keys : waiting);
  }
  if (platform) {
    rt::calibrate::write_platform(platform->stream(), report, known);
    if (auto e = platform->commit()) {
      std::cerr << "irqmod calibrate: " << e->what() << "\n";
      return kExitIoFailed;
    }
  }
  if (args.json) rt::calibrate::write_json(std::cout, report, known);
  std::cerr << "irqmod calibrate: " << keys << " keys, " << waiting << " without a key yet, "
            << skipped << " skipped, in " << static_cast<int>(report.header.seconds + 0.5) << " s"
            << (args.out.empty() ? "" : "; wrote " + args.out) << "\n";
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& app, int& status) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure this host's costs that the simulator charges and write them as a platform file");
  cmd->add_option("--out", args->out,
                  "The platform file to write (platform = \"NAME\" loads NAME.toml from "
                  "IRQMOD_PLATFORM_PATH or platforms/); '-' or none: standard output");
  cmd->add_flag("--quick", args->quick, "About a tenth of the samples: within 10 s (full: 60 s)");
  cmd->add_flag("--json", args->json,
                "Print every number as JSON (key, value, p10/p50/p90, n, method, skipped)");
  cmd->callback([args, &status] { status = run_calibrate(*args); });
}

}  // namespace irqmod::cli
