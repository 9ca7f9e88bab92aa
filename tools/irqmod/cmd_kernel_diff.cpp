// irqmod kernel-diff A B [--json]: the kernel behaviours that differ between two Linux releases
// (irqmod/napi/kernel.hpp), each with its commit, title and first release.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "irqmod/napi/kernel.hpp"
#include "irqmod/sim/json.hpp"

namespace irqmod::cli {
namespace {

using napi::BehaviourKind;
using napi::KernelBehaviour;
using napi::KernelVersion;

// A feature row's "value": whether the key can be set at all.
std::string value_text(const KernelBehaviour& b, KernelVersion version) {
  if (b.kind == BehaviourKind::switch_value) return std::string(napi::value_on(b, version));
  return napi::has_commit(b, version) ? "settable" : "not available";
}

std::string key_text(const KernelBehaviour& b) {
  std::string text(b.key);
  if (!b.driver.empty()) text += " (" + std::string(b.driver) + ")";
  if (!b.when.empty()) text += " (" + std::string(b.when) + ")";
  return text;
}

void print_text(KernelVersion a, KernelVersion b, const std::vector<const KernelBehaviour*>& rows) {
  const std::string from = napi::to_string(a);
  const std::string to = napi::to_string(b);
  std::printf("kernel %s -> %s: %zu behaviour%s differ%s\n", from.c_str(), to.c_str(), rows.size(),
              rows.size() == 1 ? "" : "s", rows.size() == 1 ? "s" : "");
  for (const KernelBehaviour* row : rows) {
    const std::string change = value_text(*row, a) + " -> " + value_text(*row, b);
    std::printf("  %-5s %-46s %-26s %s \"%.*s\"\n", napi::to_string(row->release).c_str(),
                key_text(*row).c_str(), change.c_str(), std::string(row->commit).c_str(),
                static_cast<int>(row->title.size()), row->title.data());
    const std::string note = row->driver.empty() ? ""
                                                 : " (applied by `kernel` with nic.driver = \"" +
                                                       std::string(row->driver) + "\")";
    std::printf("        %.*s%s\n", static_cast<int>(row->what.size()), row->what.data(),
                note.c_str());
    if (!row->backports.empty()) {
      std::printf("        stable: %.*s\n", static_cast<int>(row->backports.size()),
                  row->backports.data());
    }
  }
}

void print_json(KernelVersion a, KernelVersion b, const std::vector<const KernelBehaviour*>& rows) {
  sim::JsonWriter json(std::cout);
  json.begin_object();
  json.field("from", napi::to_string(a));
  json.field("to", napi::to_string(b));
  json.key("differences");
  json.begin_array();
  for (const KernelBehaviour* row : rows) {
    json.begin_object();
    json.field("key", row->key);
    json.field("driver", row->driver);
    json.field("when", row->when);
    json.field("kind", row->kind == BehaviourKind::switch_value ? "switch" : "feature");
    json.field("what", row->what);
    json.field("from_value", value_text(*row, a));
    json.field("to_value", value_text(*row, b));
    json.field("commit", row->commit);
    json.field("title", row->title);
    json.field("release", napi::to_string(row->release));
    json.field("stable", row->backports);
    json.field("applied_by_kernel_key_with_driver",
               row->driver.empty() ? std::string("any") : std::string(row->driver));
    json.end_object();
  }
  json.end_array();
  json.end_object();
  std::cout << "\n";
}

}  // namespace

namespace {

// A release as `uname -r` prints it ("6.1.0-18-amd64", "6.18.44-fc-v1045") is the mainline
// release before its first character that is not a digit or a dot; said on stderr, since a
// distribution's kernel may carry backports the table does not know.
std::string release_of(const std::string& text) {
  const std::size_t end = text.find_first_not_of("0123456789.");
  if (end == std::string::npos || end == 0) return text;
  std::string release = text.substr(0, end);
  // "6.1.0" is the mainline 6.1.
  if (release.size() > 2 && release.ends_with(".0") &&
      std::count(release.begin(), release.end(), '.') == 2)
    release.resize(release.size() - 2);
  std::cerr << "irqmod kernel-diff: note: '" << text << "' read as Linux " << release
            << " (the text after the release is the distribution's; backports it carries are "
               "not in the table)\n";
  return release;
}

}  // namespace

void add_kernel_diff_command(CLI::App& app, int& status) {
  struct Args {
    std::string from;
    std::string to;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "kernel-diff", "List the kernel behaviours that differ between two Linux releases");
  cmd->add_option("A", args->from, "The first release, MAJOR.MINOR[.PATCH] (\"5.10\")")->required();
  cmd->add_option("B", args->to, "The second release (\"6.18\")")->required();
  cmd->add_flag("--json", args->json,
                R"(Print {"from", "to", "differences": [{"key", "commit", "release", ...}]})");
  cmd->callback([args, &status] {
    const auto a = napi::parse_kernel_version(release_of(args->from));
    const auto b = napi::parse_kernel_version(release_of(args->to));
    for (const auto* parsed : {&a, &b}) {
      if (!parsed->ok()) {
        std::cerr << "irqmod kernel-diff: " << parsed->error().what() << "\n";
        status = kExitBadInput;
        return;
      }
    }
    std::vector<const KernelBehaviour*> rows;
    for (const KernelBehaviour& row : napi::kernel_behaviours()) {
      if (napi::differs(row, *a, *b)) rows.push_back(&row);
    }
    if (args->json) {
      print_json(*a, *b, rows);
    } else {
      print_text(*a, *b, rows);
    }
    status = kExitOk;
  });
}

}  // namespace irqmod::cli
