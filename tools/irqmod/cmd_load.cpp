// irqmod load: open-loop Poisson requests in sockperf's protocol over several connections, with
// sockperf-style latency percentiles (irqmod/rt/load.hpp).
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "irqmod/rt/load.hpp"

namespace irqmod::cli {

void add_load_command(CLI::App& app, int& status) {
  auto config = std::make_shared<rt::load::Config>();
  auto udp = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "load",
      "Open-loop Poisson requests to a sockperf-protocol server (irqmod serve, sockperf sr)");
  cmd->add_option("-i,--ip", config->ip, "Server address")->capture_default_str();
  cmd->add_option("-p,--port", config->port, "Server port")->capture_default_str();
  cmd->add_flag("--udp", *udp, "UDP (default TCP)");
  cmd->add_option("--connections", config->connections, "Connections, used in turn (1 to 64)")
      ->capture_default_str();
  cmd->add_option("--rate", config->rate, "Requests per second (Poisson mean)")
      ->capture_default_str();
  cmd->add_option("--duration", config->duration_s, "Seconds of scheduled requests")
      ->capture_default_str();
  cmd->add_option("--warmup", config->warmup_s, "Seconds left out of the statistics")
      ->capture_default_str();
  cmd->add_option("--size", config->size, "Bytes per message, header included")
      ->capture_default_str();
  cmd->add_option("--grace", config->grace_s, "Seconds to wait for the last replies")
      ->capture_default_str();
  cmd->add_option("--seed", config->seed, "Seed of the request schedule")->capture_default_str();
  cmd->add_option("--cpu", config->cpu, "Pin the client to this CPU");
  cmd->add_flag("--json", *json, "One JSON line");
  cmd->callback([config, udp, json, &status] {
    config->transport = *udp ? rt::Transport::udp : rt::Transport::tcp;
    const auto result = rt::load::run(*config);
    if (!result) {
      std::cerr << "irqmod load: " << result.error().what() << "\n";
      status = exit_status_for(result.error());
      return;
    }
    const std::string line =
        *json ? rt::load::format_json(*result) : rt::load::format_text(*result);
    std::printf("%s\n", line.c_str());
    status = kExitOk;
  });
}

}  // namespace irqmod::cli
