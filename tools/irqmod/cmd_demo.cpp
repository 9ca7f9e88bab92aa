// irqmod demo: the README's main job until the simulator exists. It replays a bundled trace
// through net_dim and shows the profile it settles on in each traffic phase, then the ITR
// register encodings of the seeds' devices.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "dim_replay.hpp"
#include "irqmod/policy/itr.hpp"
#include "irqmod/sim/share.hpp"

namespace irqmod::cli {
namespace {

// What net_dim did during one phase of the trace (a "# phase: NAME" comment opens a phase).
struct PhaseSummary {
  std::string name;
  std::uint64_t first_step = 0;
  std::uint64_t last_step = 0;
  int changes = 0;
  std::uint64_t at_profile[dim::kNumProfiles] = {};  // completions spent at each profile
  std::uint64_t tired = 0;                           // completions while parked tired
  dim::Decision last{};
};

int demo_dim(const std::string& data_dir) {
  const std::string trace = data_dir + "/traces/dim-demo.csv";
  std::ifstream in(trace);
  if (!in) {
    std::cerr << "irqmod demo: cannot open " << trace << "\n";
    return kExitBadInput;
  }
  std::vector<PhaseSummary> phases;
  DimReplaySinks sinks;
  sinks.comment = [&](std::uint64_t rows_before, const std::string& text) {
    constexpr std::string_view kTag = " phase: ";
    if (text.rfind(kTag, 0) == 0)
      phases.push_back({text.substr(kTag.size()), rows_before + 1, rows_before, 0, {}, 0, {}});
  };
  sinks.row = [&](const DimReplayRow& r) {
    if (phases.empty()) phases.push_back({"(unnamed)", 1, 0, 0, {}, 0, {}});
    PhaseSummary& p = phases.back();
    p.last_step = r.step;
    p.changes += r.decision.apply ? 1 : 0;
    p.last = r.decision;
    ++p.at_profile[r.decision.profile_ix];
    p.tired += r.tune_state == dim::TuneState::parking_tired ? 1 : 0;
  };
  if (const int status = replay_dim(in, trace, DimReplayOptions{}, sinks, std::cerr); status != 0)
    return status;

  const dim::ProfileTable& table =
      dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_eqe);
  std::printf("net_dim (Linux lib/dim), RX table, EQE mode, over %s\n", trace.c_str());
  std::printf("one row per NAPI completion; a decision every 64 events. Profiles (usec/pkts):");
  for (std::size_t i = 0; i < dim::kNumProfiles; ++i)
    std::printf(" #%zu %u/%u", i, unsigned{table[i].usec}, unsigned{table[i].pkts});
  std::printf("\n\n  %-42s %11s %8s  %-29s %6s  %s\n", "traffic phase", "completions", "changes",
              "% of completions #0 #1 #2 #3 #4", "tired", "end");
  for (const PhaseSummary& p : phases) {
    const std::string range = std::to_string(p.first_step) + "-" + std::to_string(p.last_step);
    const double n = static_cast<double>(p.last_step - p.first_step + 1);
    std::printf("  %-42s %11s %8d  %16s", p.name.c_str(), range.c_str(), p.changes, "");
    for (const std::uint64_t count : p.at_profile)
      std::printf(" %2.0f", 100.0 * static_cast<double>(count) / n);
    std::printf("  %5.0f%%  #%u\n", 100.0 * static_cast<double>(p.tired) / n,
                unsigned{p.last.profile_ix});
  }
  std::printf(
      "\n  A replayed trace does not react to the profile, so no profile measures better than\n"
      "  another: net_dim steps, turns back, and after ten steps rests tired for ten windows,\n"
      "  ignoring the traffic meanwhile, as the kernel does. A change of traffic moves it only\n"
      "  when it is not resting. Every decision: build/bin/irqmod dim-replay %s\n\n",
      trace.c_str());
  return kExitOk;
}

// The throttle settings the seeds talk about, encoded as their drivers would write them.
int demo_itr() {
  struct Row {
    const char* seed;
    const char* what;
    const char* device;
    std::uint32_t rate;   // interrupts/s, or 0 to use usecs
    std::uint32_t usecs;  // microseconds when rate is 0
  };
  const Row rows[] = {
      {"004", "OpenBSD ix, IXGBE_INTS_PER_SEC", "82599", 8000, 0},
      {"004", "the 4000 intr/s row of its table", "82599", 4000, 0},
      {"004", "LLI's longest interval, 60 us", "82599", 0, 60},
      {"004", "the same 8000/s on the older 82598", "82598", 8000, 0},
      {"000", "I40E_ITR_20K, also the SW-interrupt cap", "i40e", 0, 50},
      {"000", "I40E_ITR_8K", "i40e", 0, 122},
      {"000", "ICE_ITR_20K", "ice", 0, 50},
      {"-", "e1000e InterruptThrottleRate=8000", "e1000e", 8000, 0},
  };
  std::printf("Interrupt throttle registers of the seeds' devices (irqmod itr --device D ...)\n\n");
  std::printf("  %-4s %-40s %-7s %-10s %-10s %-11s %-12s %s\n", "seed", "setting", "device",
              "asked", "register", "written", "interval", "interrupts/s");
  for (const Row& r : rows) {
    const Expected<itr::Encoding> e =
        r.rate != 0 ? itr::encode_rate(r.device, r.rate) : itr::encode_usecs(r.device, r.usecs);
    if (!e) {
      std::cerr << "irqmod demo: " << e.error().what() << "\n";
      return kExitBadInput;
    }
    const std::string asked =
        r.rate != 0 ? std::to_string(r.rate) + "/s" : std::to_string(r.usecs) + " us";
    std::printf("  %-4s %-40s %-7s %-10s 0x%08X 0x%08X %8.3f us %12.1f\n", r.seed, r.what, r.device,
                asked.c_str(), e->register_value, e->write_value,
                static_cast<double>(e->interval.count()) / 1000.0, e->effective_rate);
  }
  std::printf(
      "\n  82599/X540 hold 2 us counts in bits 11:3, i40e/ice 2 us counts, 82598 and e1000 256 ns\n"
      "  counts; 'written' adds IXGBE_EITR_CNT_WDIS (82599) or mirrors the field (82598).\n");
  return kExitOk;
}

}  // namespace

void add_demo_command(CLI::App& app, int& status) {
  CLI::App* cmd = app.add_subcommand(
      "demo", "A short tour: net_dim over a bundled trace, and the seeds' ITR encodings");
  cmd->callback([&status] {
    status = demo_dim(sim::share_dir() + "/data");
    if (status == kExitOk) status = demo_itr();
  });
}

}  // namespace irqmod::cli
