// irqmod tune FILE --minimize METRIC [--subject-to 'p99 <= 50us' ...] [--vary KEY=...]
//                  [--search KEY=LOW:HIGH ...] [--evaluations N] [-j N] [--set k=v] [--duration T]
//                  [--seeds N] [--dev DEV] [--runner-ups N] [--csv F] [--json F]
//
// Finds the setting that minimises METRIC under the constraints (sweep/tune.hpp), prints it with
// its metrics, the runner-ups and the commands that apply it; exit 1, with the closest point,
// when no run meets them. Without --vary or --search it searches sweep::default_tune_space().
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "irqmod/sweep/tune.hpp"
#include "scenario_input.hpp"
#include "sweep_output.hpp"

namespace irqmod::cli {
namespace {

struct TuneArgs {
  std::string file;
  std::string minimize;
  std::vector<std::string> subject_to;
  std::vector<std::string> vary;
  std::vector<std::string> search;
  unsigned evaluations = 30;
  unsigned jobs = 0;
  std::vector<std::string> sets;
  std::optional<std::string> duration;
  std::size_t seeds = 1;
  std::string dev = "DEV";
  std::size_t runner_ups = 3;
  std::string csv;
  std::string json;
};

// A metric's value with its unit, and for a "%" what it is a share of: cpu is the mean over every
// core (the report's "cpu", CpuTime::utilization), app-cpu and busiest-cpu one core's own.
std::string shown(double v, const std::string& name, const std::string& unit) {
  const std::string suffix = unit == "%"    ? (name == "cpu" ? " % of all cores" : " % of its core")
                             : unit == "us" ? " us"
                                            : unit;
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, unit == "/s" ? "%.0f%s" : "%.2f%s", v, suffix.c_str());
  return buffer;
}

std::string settings_text(const std::vector<std::string>& overrides) {
  std::string out;
  for (const std::string& o : overrides)
    out += (out.empty() ? "" : "  ") + o;
  return out;
}

// A --vary or --search value the scenario's host cannot be given, said with its flag: a key the
// host lacks (a driver without rx-frames, a kernel without IRQ suspension), or a moderation kind
// its driver does not have (net_dim on i40e). A value equal to the scenario's own is not one;
// combinations (coalescing with adaptive-rx on) are the grid's to skip and count.
std::optional<std::string> outside_the_host(const sweep::Spec& spec, const sim::Scenario& base,
                                            const sweep::Vocabulary& vocabulary,
                                            const std::vector<sweep::Axis>& axes,
                                            const std::vector<sweep::SearchAxis>& search) {
  const std::vector<std::string> base_outside = sweep::outside_vocabulary(vocabulary, base);
  for (const sweep::Axis& axis : axes) {
    for (const std::string& value : axis.values) {
      std::vector<std::string> sets = spec.sets;
      sets.push_back(axis.key + "=" + value);
      const sim::LoadResult point = sweep::load_measured(spec.text, spec.file, sets, spec.duration);
      if (!point || point.value() == base) continue;
      const bool searched =
          std::any_of(search.begin(), search.end(),
                      [&](const sweep::SearchAxis& a) { return a.key == axis.key; });
      const std::string flag = (searched ? "--search " : "--vary ") + axis.key + "=" + value + ": ";
      if (auto why = sweep::lacks(vocabulary, point.value(), axis.key)) return flag + *why;
      for (const std::string& why : sweep::outside_vocabulary(vocabulary, point.value())) {
        const bool new_here =
            std::find(base_outside.begin(), base_outside.end(), why) == base_outside.end();
        // The reason names the key and value itself ("nic.moderation=dim: ..."): said once.
        if (new_here && why.starts_with(axis.key + "="))
          return flag + why.substr(why.find(": ") + 2);
      }
    }
  }
  return std::nullopt;
}

int run_tune(const TuneArgs& args) {
  const auto fail = [](const std::string& message) {
    std::cerr << "irqmod tune: " << message << "\n";
    return kExitBadInput;
  };
  sweep::TuneRequest request;
  // The objective and the constraints against the columns every run will have, before anything
  // runs: a name that is not a metric is refused with the valid ones, never minimised as empty.
  sweep::Spec shape;
  shape.seeds = args.seeds;
  const std::vector<std::string> columns = sweep::columns(shape);
  auto minimize = sweep::parse_metric(args.minimize, columns);
  if (!minimize) return fail("--minimize: " + minimize.error().message);
  request.minimize = minimize.value();
  std::vector<sweep::Metric> shown_metrics{request.minimize};
  for (const std::string& text : args.subject_to) {
    auto c = sweep::parse_constraint(text, columns);
    if (!c) return fail(c.error().what());
    request.constraints.push_back(c.value());
    shown_metrics.push_back(c->metric);
  }
  for (const char* extra : {"p50", "p99", "cpu", "interrupts"}) {
    const sweep::Metric metric = sweep::parse_metric(extra, columns).value();
    bool have = false;
    for (const auto& m : shown_metrics)
      have = have || m.column == metric.column;
    if (!have) shown_metrics.push_back(metric);
  }
  request.base.file = args.file;
  // The scenario itself (and --set, --duration) through the path irqmod sim loads it by, so that
  // a directory or unreadable file is refused and a message names the flag as sim's does.
  const sim::LoadResult base =
      load_scenario(args.file, ScenarioFlags{{}, args.duration, args.sets});
  if (!base) return fail(base.error().what());
  {
    std::ifstream in(args.file, std::ios::binary);
    if (!in) return fail(args.file + ": cannot read the file");
    std::ostringstream text;
    text << in.rdbuf();
    request.base.text = text.str();
  }
  request.base.sets = scenario_assignments(args.sets);  // sysctl and sysfs names understood
  request.base.duration = args.duration;
  request.base.seeds = args.seeds;
  // What the scenario's driver and kernel have: the default space, the grid points offered and
  // the commands printed keep to it.
  const sweep::Vocabulary vocabulary = sweep::vocabulary_of(base.value());
  request.vocabulary = vocabulary;
  const bool defaults = args.vary.empty() && args.search.empty();
  const sweep::TuneSpace space = defaults ? sweep::default_tune_space(vocabulary, base.value())
                                          : sweep::TuneSpace{scenario_assignments(args.vary),
                                                             scenario_assignments(args.search)};
  if (space.vary.empty() && space.search.empty()) {
    return fail("the scenario's host, " + sweep::describe(vocabulary) +
                ", has no knob tune searches by default (" +
                *sweep::lacks(vocabulary, base.value(), "nic.rx-usecs") +
                "); give --vary or --search to search keys of the model anyway");
  }
  for (const std::string& v : space.vary) {
    auto axis = sweep::parse_vary(v);
    if (!axis) return fail(axis.error().what());
    request.base.axes.push_back(axis.value());
  }
  for (const std::string& v : space.search) {
    auto axis = sweep::parse_search(v);
    if (!axis) return fail(axis.error().what());
    request.search.push_back(axis.value());
  }
  // Each grid value and each searched key's bounds the user gave, alone, through the scenario's
  // validation. The default space is not: a value of it the scenario refuses (adaptive-rx on a
  // file without a sample-interval) is a combination skipped and counted like any other.
  sweep::Spec check = request.base;
  for (const auto& s : request.search) {
    check.axes.push_back({s.key,
                          {std::to_string(std::llround(s.low)) + s.unit,
                           std::to_string(std::llround(s.high)) + s.unit}});
  }
  if (!defaults) {
    if (auto bad = sweep::check_axes(check)) return fail(*bad);
    if (auto bad =
            outside_the_host(request.base, base.value(), vocabulary, check.axes, request.search))
      return fail(*bad);
  }
  request.evaluations = args.evaluations;
  request.jobs = args.jobs ? args.jobs : std::max(1u, std::thread::hardware_concurrency());

  // The outputs before the runs: a path that cannot be written fails now.
  TableFiles files;
  if (const int opened = open_table_files(args.csv, args.json, "", "tune", files)) return opened;
  const sweep::TuneResult result = sweep::tune(request);
  if (result.error) {
    std::cerr << "irqmod tune: " << result.error->message << "\n";
    return result.error->bad_input ? kExitBadInput : kExitRunFailed;
  }
  if (const int written = write_table_files(files, result.table, {}, "tune")) return written;

  std::string goal = "minimise " + request.minimize.name;
  for (std::size_t i = 0; i < request.constraints.size(); ++i)
    goal += (i ? ", " : " subject to ") + request.constraints[i].text;
  std::printf("irqmod tune %s: %s\n", args.file.c_str(), goal.c_str());
  std::printf("searched: %zu grid points", sweep::point_count(request.base.axes));
  for (const auto& a : request.base.axes)
    std::printf(" [%s: %zu values]", a.key.c_str(), a.values.size());
  if (!request.search.empty()) {
    std::printf(" x NLopt COBYLA (at most %u runs each) over", request.evaluations);
    for (const auto& s : request.search)
      std::printf(" %s %g..%g%s", s.key.c_str(), s.low, s.high, s.unit.c_str());
  }
  std::printf("; %zu runs\n", result.table.rows.size());
  if (result.same_points > 0) {
    std::printf(
        "same: %zu grid points ran as an earlier one at the middle of the ranges (a "
        "setting with no effect on this scenario) and were not searched again\n",
        result.same_points);
  }
  if (result.not_offered > 0) {
    std::printf("not offered: %zu grid points the scenario's host, %s, does not have (e.g. %s)\n",
                result.not_offered, sweep::describe(vocabulary).c_str(),
                result.not_offered_example.c_str());
  }
  if (result.skipped_points + result.skipped_runs > 0) {
    std::printf(
        "skipped: %zu grid points and %zu searched settings the scenario refuses (e.g. %s)\n",
        result.skipped_points, result.skipped_runs, result.skipped_example.c_str());
  }

  const auto metrics_of = [&](const sweep::Candidate& c) {
    std::string metrics;
    for (const sweep::Metric& m : shown_metrics) {
      const auto v = sweep::metric_value(result.table, c.row, m);
      metrics += "  " + m.name + " " + (v ? shown(*v, m.name, m.unit) : std::string("-"));
    }
    return metrics;
  };
  const auto line = [&](const sweep::Candidate& c) {
    std::printf("  %s\n   %s\n", settings_text(c.overrides).c_str(), metrics_of(c).c_str());
  };
  if (result.ranked.empty()) return fail("no run was made");
  if (!result.met) {
    std::printf(
        "\nNO setting meets the objective. The closest point (constraints missed by "
        "%.1f %% in all):\n",
        result.ranked[0].violation * 100.0);
    line(result.ranked[0]);
    return kExitRunFailed;
  }
  std::printf("\nbest:\n");
  line(result.ranked[0]);
  // Runner-ups: the next settings that meet the objective with metrics of their own (a setting
  // the model cannot tell from one already shown is left out).
  std::size_t shown_ups = 0;
  std::vector<std::string> seen{metrics_of(result.ranked[0])};
  for (std::size_t i = 1; i < result.ranked.size() && shown_ups < args.runner_ups; ++i) {
    if (result.ranked[i].violation != 0) break;
    const std::string m = metrics_of(result.ranked[i]);
    if (std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
    seen.push_back(m);
    if (shown_ups++ == 0) std::printf("runner-ups:\n");
    line(result.ranked[i]);
  }
  // The commands, from the best point's whole scenario (file, --set, its settings).
  std::vector<std::string> sets = request.base.sets;
  sets.insert(sets.end(), result.ranked[0].overrides.begin(), result.ranked[0].overrides.end());
  const sim::LoadResult best =
      sweep::load_measured(request.base.text, request.base.file, sets, request.base.duration);
  // A searched value that changes nothing in the prediction is not advice: left out, and said.
  const std::vector<std::string> no_effect = sweep::keys_without_effect(request, result.ranked[0]);
  const sweep::ApplyPlan plan = sweep::apply_plan(best.value(), args.dev, vocabulary, no_effect);
  if (plan.commands.empty()) {
    std::printf("\napply: no command for the scenario's host, %s\n",
                sweep::describe(vocabulary).c_str());
  } else {
    std::printf("\napply on a Linux host (%s: the interface; %s):\n", args.dev.c_str(),
                sweep::describe(vocabulary).c_str());
  }
  for (const std::string& command : plan.commands)
    std::printf("  %s\n", command.c_str());
  if (!plan.left_out.empty()) std::printf("left out:\n");
  for (const std::string& why : plan.left_out)
    std::printf("  %s\n", why.c_str());
  return kExitOk;
}

}  // namespace

void add_tune_command(CLI::App& app, int& status) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Find the moderation and NAPI settings that minimise a metric under constraints");
  cmd->add_option("file", args->file, "Scenario file (TOML)")->required();
  cmd->add_option("--minimize", args->minimize,
                  "p50, p99, p99.9, max, avg, cpu, app-cpu, interrupts, ... (or a CSV column)")
      ->required();
  cmd->add_option("--subject-to", args->subject_to,
                  "A constraint: 'p99 <= 50us', 'interrupts <= 20000/s', 'cpu <= 30%' "
                  "(repeatable)");
  cmd->add_option("--vary", args->vary,
                  "A discrete choice: KEY=V1,V2,... or FROM:TO:STEP (repeatable; default: "
                  "moderation coalesce,dim,adaptive-itr x adaptive-rx x busy_read 0,50us x "
                  "busy_poll 0,50us x napi_defer_hard_irqs 0,2 x irq_suspend_timeout 0,20ms)");
  cmd->add_option("--search", args->search,
                  "A continuous key for NLopt: KEY=LOW:HIGH (repeatable; default: rx-usecs "
                  "0:128, rx-frames 0:64, gro_flush_timeout 0us:200us)");
  cmd->add_option("--evaluations", args->evaluations, "NLopt's runs per grid point, at most");
  cmd->add_option("-j,--jobs", args->jobs, "Grid points searched at once (default: the cores)");
  cmd->add_option("--set", args->sets, "Override a key in every run (repeatable)");
  cmd->add_option("--duration", args->duration, "Time measured after the warm-up, e.g. 100ms");
  cmd->add_option("--seeds", args->seeds, "Seeds per run (the mean is what is minimised)");
  cmd->add_option("--dev", args->dev, "The interface named in the commands printed");
  cmd->add_option("--runner-ups", args->runner_ups, "Runner-ups shown");
  cmd->add_option("--csv", args->csv, "Write every run as CSV to FILE");
  cmd->add_option("--json", args->json, "Write every run as JSON to FILE");
  cmd->callback([args, &status] {
    remove_results_on_interrupt("irqmod tune");
    status = run_tune(*args);
  });
}

}  // namespace irqmod::cli
