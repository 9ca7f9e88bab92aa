// irqmod help [TOPIC...]: the commands' help from their CLI11 definitions, the scenario keys from
// the schema, and the exit statuses: nothing here is typed twice.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "irqmod/sim/scenario.hpp"

namespace irqmod::cli {
namespace {

// Topics that are not commands, with what they print.
constexpr const char* kKeysTopic = "keys";
constexpr const char* kExitTopic = "exit-status";
constexpr const char* kAllTopic = "all";

// The help of `path` ("lab up"), as `irqmod lab up --help` prints it, or nullptr.
const CLI::App* find_command(const CLI::App& app, const std::vector<std::string>& path) {
  const CLI::App* at = &app;
  for (const std::string& word : path) {
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : at->get_subcommands(nullptr)) {
      if (sub->get_name() == word) next = sub;
    }
    if (!next) return nullptr;
    at = next;
  }
  return at;
}

// `app`'s own help: App::help() would hand over to the command being run, which is `help`.
std::string own_help(const CLI::App& app, const std::string& prefix) {
  const std::string path = prefix.empty() ? app.get_name() : prefix + " " + app.get_name();
  return app.get_formatter()->make_help(&app, path, CLI::AppFormatMode::Normal);
}

// Every command and subcommand's help, depth first: the manual in one text.
void print_all(const CLI::App& app, const std::string& prefix) {
  std::cout << own_help(app, prefix) << "\n";
  const std::string path = prefix.empty() ? app.get_name() : prefix + " " + app.get_name();
  for (const CLI::App* sub : app.get_subcommands(nullptr)) {
    if (sub->get_name() != "help") print_all(*sub, path);
  }
}

}  // namespace

std::string command_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands(nullptr))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

std::string exit_status_text() {
  return "Exit status (every command):\n"
         "  0  success\n"
         "  1  the run found a problem: conservation broken, an objective not met, a system\n"
         "     call the work needs refused (lab, napi, top, serve)\n"
         "  2  bad input: usage, a file's contents, a value out of range\n"
         "  3  the results could not be written (--json, --csv, --trace, standard output);\n"
         "     a result file is renamed into place only once complete\n"
         "  130, 143  interrupted by SIGINT, SIGTERM (sim, run, sweep, tune, plot): the\n"
         "     temporary result files removed, the results not written named\n";
}

void add_help_command(CLI::App& app, int& status) {
  struct Args {
    std::vector<std::string> topic;
    bool markdown = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "help",
      "Help on a command (irqmod help sim), the scenario keys (irqmod help keys), the exit "
      "statuses (irqmod help exit-status) or everything (irqmod help all)");
  cmd->add_option("topic", args->topic, "A command (and subcommand), keys, exit-status or all");
  cmd->add_flag("--markdown", args->markdown,
                "keys: the Markdown table of docs/simulator.md (\"Keys\")");
  cmd->callback([args, &app, &status] {
    status = kExitOk;
    const std::vector<std::string>& topic = args->topic;
    if (topic.empty()) {
      std::cout << own_help(app, "") << "\n";
      return;
    }
    if (topic.size() == 1 && topic[0] == kKeysTopic) {
      if (!args->markdown)
        std::cout << "Scenario keys (docs/simulator.md; set in a scenario file's [section] or "
                     "with --set section.key=value):\n\n";
      sim::write_key_reference(std::cout, args->markdown);
      return;
    }
    if (args->markdown) {
      std::cerr << "irqmod help: --markdown: only for 'irqmod help keys'\n";
      status = kExitBadInput;
      return;
    }
    if (topic.size() == 1 && topic[0] == kExitTopic) {
      std::cout << exit_status_text();
      return;
    }
    if (topic.size() == 1 && topic[0] == kAllTopic) {
      print_all(app, "");
      return;
    }
    const CLI::App* command = find_command(app, topic);
    if (!command) {
      std::string asked;
      for (const std::string& word : topic)
        asked += (asked.empty() ? "" : " ") + word;
      std::cerr << "irqmod help: no command or topic '" << asked
                << "'; allowed: " << command_names(app) << ", " << kKeysTopic << ", " << kExitTopic
                << ", " << kAllTopic << "\n";
      status = kExitBadInput;
      return;
    }
    std::string parents = app.get_name();
    for (std::size_t i = 0; i + 1 < topic.size(); ++i)
      parents += " " + topic[i];
    std::cout << own_help(*command, parents);
  });
}

}  // namespace irqmod::cli
