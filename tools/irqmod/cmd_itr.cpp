// irqmod itr --device D (--rate R | --usecs U) [--json]
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "irqmod/policy/itr.hpp"

namespace irqmod::cli {
namespace {

void print_text(const itr::Device& device, const itr::Encoding& e, const std::string& asked,
                bool from_usecs) {
  std::printf("device          %s\n", std::string(device.name).c_str());
  std::printf("asked           %s\n", asked.c_str());
  std::printf("rule            %s\n",
              std::string(from_usecs ? device.usecs_rule : device.rate_rule).c_str());
  std::printf("register        0x%08X (%u)\n", e.register_value, e.register_value);
  if (e.write_value != e.register_value) std::printf("written as      0x%08X\n", e.write_value);
  std::printf("interval        %.3f us\n", static_cast<double>(e.interval.count()) / 1000.0);
  if (e.effective_rate > 0)
    std::printf("effective rate  %.1f interrupts/s\n", e.effective_rate);
  else
    std::printf("effective rate  unlimited (interval 0: no throttling)\n");
}

void print_json(const itr::Encoding& e) {
  std::printf(R"({"device": "%s", "register": %u, "interval_ns": %lld, "effective_rate": %.3f})"
              "\n",
              std::string(e.device).c_str(), e.register_value,
              static_cast<long long>(e.interval.count()), e.effective_rate);
}

}  // namespace

void add_itr_command(CLI::App& app, int& status) {
  struct Args {
    std::string device;
    std::optional<std::uint32_t> rate;
    std::optional<std::uint32_t> usecs;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "itr", "Encode an interrupt rate or interval into a NIC's throttle register");
  cmd->add_option("--device", args->device, "82598, 82599, x540, i40e, ice, e1000 or e1000e")
      ->required();
  auto* rate = cmd->add_option("--rate", args->rate, "Interrupts per second");
  auto* usecs = cmd->add_option("--usecs,--rx-usecs", args->usecs,
                                "Interval in microseconds, ethtool's rx-usecs (0 = no throttling "
                                "on 82599, X540, i40e and ice)");
  rate->excludes(usecs);
  cmd->add_flag("--json", args->json,
                R"(Print {"device", "register", "interval_ns", "effective_rate"})");

  cmd->callback([args, &status] {
    const auto fail = [&status](const Error& e) {
      std::cerr << "irqmod itr: " << e.what() << "\n";
      status = kExitBadInput;
    };
    const Expected<itr::Device> device = itr::find_device(args->device);
    if (!device) return fail(device.error());
    if (!args->rate && !args->usecs)
      return fail(Error{"--rate/--usecs", "give one: interrupts per second or microseconds"});
    const Expected<itr::Encoding> e = args->rate ? itr::encode_rate(*device, *args->rate)
                                                 : itr::encode_usecs(*device, *args->usecs);
    if (!e) return fail(e.error());
    if (args->json) {
      print_json(*e);
    } else {
      print_text(*device, *e,
                 args->rate ? std::to_string(*args->rate) + " interrupts/s"
                            : std::to_string(*args->usecs) + " us",
                 !args->rate);
    }
    status = kExitOk;
  });
}

}  // namespace irqmod::cli
