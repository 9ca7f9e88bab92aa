// irqmod lab up|down|status: the veth lab with real NAPI contexts (irqmod/rt/lab.hpp).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "irqmod/rt/lab.hpp"

namespace irqmod::cli {
namespace {

namespace lab = rt::lab;

std::string optional_text(const std::optional<std::uint32_t>& v, const char* none) {
  return v ? std::to_string(*v) : none;
}

void print_status(const lab::Status& s) {
  std::printf("lab          %s (%s)\n", s.name.c_str(), s.up() ? "up" : "not up");
  std::printf("namespaces   %s (server, %s), %s (client, %s)\n", lab::server_netns(s.name).c_str(),
              s.server_netns ? "present" : "absent", lab::client_netns(s.name).c_str(),
              s.client_netns ? "present" : "absent");
  for (const auto& d : s.devices)
    std::printf("%-12s netns %s, ifindex %u, %s, %u Rx / %u Tx queues, egress loss %g\n",
                d.name.c_str(), d.netns.c_str(), d.ifindex, d.address.c_str(), d.rx_queues,
                d.tx_queues, d.loss);
  for (const auto& n : s.napis)
    std::printf("NAPI         %u on ifindex %u, threaded %s, poll thread %s\n", n.id, n.ifindex,
                n.threaded ? (*n.threaded ? "on" : "off") : "?",
                optional_text(n.pid, "none").c_str());
  if (s.socket_napi_id != 0)
    std::printf("check        a datagram %s -> %s arrived on NAPI %u\n", lab::kClientAddress,
                lab::kServerAddress, s.socket_napi_id);
  else
    std::printf("check        no NAPI id: %s\n", s.check_note.empty()
                                                     ? "the datagram came through no NAPI context"
                                                     : s.check_note.c_str());
}

void print(const lab::Status& s, bool json) {
  if (json)
    std::printf("%s\n", lab::status_json(s).c_str());
  else
    print_status(s);
}

}  // namespace

void add_lab_command(CLI::App& app, int& status) {
  auto config = std::make_shared<lab::Config>();
  auto json = std::make_shared<bool>(false);
  auto loss = std::make_shared<std::string>("0");
  CLI::App* cmd = app.add_subcommand(
      "lab", "Two network namespaces joined by a veth pair with real NAPI contexts (needs root)");
  cmd->require_subcommand(1);
  const auto add_name = [&](CLI::App* sub) {
    sub->add_option("--name", config->name,
                    "The lab's name (namespaces NAME-srv, NAME-cli); starts with irqmod-lab")
        ->capture_default_str();
  };
  const auto report = [&status](const Error& e) {
    std::cerr << "irqmod lab: " << e.what() << "\n";
    status = exit_status_for(e);
  };

  CLI::App* up = cmd->add_subcommand("up", "Create or update the lab and check its NAPI path");
  add_name(up);
  up->add_option("--queues", config->queues, "Rx and Tx queues per veth end (1 to 64)")
      ->capture_default_str();
  up->add_flag("--threaded", config->threaded, "Poll NAPI in kernel threads, not softirqs");
  up->add_option("--napi-cpu", config->napi_cpu, "Pin the server end's NAPI threads to this CPU");
  up->add_option("--loss", *loss,
                 "Drop each packet leaving either veth end with this probability (0 to 1; a "
                 "tc clsact egress BPF filter)")
      ->capture_default_str();
  up->add_flag("--json", *json, "Print the status as one JSON line");
  up->callback([config, json, loss, report, &status] {
    const auto p = lab::parse_loss(*loss);
    if (!p) return report(p.error());
    config->loss = *p;
    if (auto e = lab::validate(*config)) return report(*e);
    const auto s = lab::up(*config);
    if (!s) return report(s.error());
    print(*s, *json);
    status = kExitOk;
  });

  CLI::App* down = cmd->add_subcommand("down", "Remove the lab's namespaces and devices");
  add_name(down);
  down->callback([config, report, &status] {
    if (auto e = lab::down(config->name)) return report(*e);
    status = kExitOk;
  });

  CLI::App* show = cmd->add_subcommand("status", "Namespaces, devices, addresses and NAPI ids");
  add_name(show);
  show->add_flag("--json", *json, "One JSON line, for scripts");
  show->callback([config, json, report, &status] {
    const auto s = lab::status(config->name);
    if (!s) return report(s.error());
    print(*s, *json);
    status = kExitOk;
  });
}

}  // namespace irqmod::cli
