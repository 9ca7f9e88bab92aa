// `irqmod calibrate`'s plan: which measurement (calibrate.hpp) runs with which budget, and how
// each simulator cost is derived from them (docs/calibration.md, "irqmod calibrate", has the
// table). The tool adds the command line and writes the Report (calibrate_report.hpp).
#pragma once

#include <functional>
#include <string>

#include "irqmod/rt/calibrate_report.hpp"

namespace irqmod::rt::calibrate {

struct PlanOptions {
  bool quick = false;  // --quick: about a tenth of the samples, the whole run within 10 s
  bool lab = true;     // run the measurements that need root (skipped with a reason without it)
  // Every budget multiplied by this: 1 for irqmod calibrate; the tests run a smaller plan.
  double scale = 1.0;
  // Called with a line before each measurement (the tool prints them on standard error).
  std::function<void(const std::string&)> progress;
};

// Runs every measurement and derives every key: an entry per key (measured or skipped, with
// why) and one per raw measurement. The header has everything but the command.
Report run_plan(const PlanOptions& options);

}  // namespace irqmod::rt::calibrate
