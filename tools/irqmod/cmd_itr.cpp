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

// rx-usecs as the device's driver takes it, where the policy library's encoder is stricter than
// the driver: ice rounds an odd value down and says so (ice_print_if_odd_usecs: "User set
// rx-usecs to 3, device only supports even values. Rounding down and attempting to set rx-usecs
// to 2"); e1000 and e1000e take 0 as "throttling off" (e1000_set_coalesce: rx-usecs <= 3 is
// itr_setting, and an itr_setting of 0 writes ITR 0). `notice` is set to what the driver says.
// Returns the usecs to encode, or the register value directly (0) through `off`.
std::uint32_t as_the_driver_takes(const itr::Device& device, std::uint32_t usecs, bool& off,
                                  std::string& notice) {
  off = false;
  if (device.family == itr::Family::ice && usecs % 2 == 1 && usecs < itr::kIceItrMaxUsecs) {
    notice =
        "ice rounds an odd rx-usecs down, as its driver does (ice_print_if_odd_usecs: "
        "\"device only supports even values. Rounding down\"): " +
        std::to_string(usecs) + " -> " + std::to_string(usecs - 1) + " us";
    return usecs - 1;
  }
  if (device.family == itr::Family::e1000 && usecs == 0) {
    notice = std::string(device.name) +
             ": rx-usecs 0 is throttling off (e1000_set_coalesce: itr_setting 0 writes ITR 0)";
    off = true;
  }
  return usecs;
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
  auto* usecs =
      cmd->add_option("--usecs,--rx-usecs", args->usecs,
                      "Interval in microseconds, ethtool's rx-usecs as the driver takes it "
                      "(0 = no throttling on 82599, X540, i40e, ice, e1000 and e1000e; "
                      "ice rounds an odd value down)");
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
    std::string notice;
    bool off = false;
    const std::uint32_t taken =
        args->usecs ? as_the_driver_takes(*device, *args->usecs, off, notice) : 0;
    const Expected<itr::Encoding> e = args->rate ? itr::encode_rate(*device, *args->rate)
                                      : off      ? itr::decode(*device, 0)
                                                 : itr::encode_usecs(*device, taken);
    if (!e) return fail(e.error());
    if (!notice.empty()) std::cerr << "irqmod itr: note: " << notice << "\n";
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
