#include "sweep_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <tuple>
#include <vector>

#include "commands.hpp"

extern char** environ;

namespace irqmod::cli {

namespace {

// Opens `path` for `flag` through Output; on failure says so on stderr and returns null.
std::unique_ptr<Output> open_output(const std::string& path, const char* flag,
                                    const std::string& command) {
  auto opened = Output::open(path, flag);
  if (!opened) {
    std::cerr << "irqmod " << command << ": " << opened.error().what() << "\n";
    return nullptr;
  }
  return std::move(opened).value();
}

bool commit_output(Output& out, const std::string& command) {
  if (const auto error = out.commit()) {
    std::cerr << "irqmod " << command << ": " << error->what() << "\n";
    return false;
  }
  return true;
}

}  // namespace

int open_picture(const std::string& path, const char* flag, const std::string& command,
                 std::unique_ptr<Output>& out) {
  if (auto bad = sweep::check_picture_name(path)) {
    bad->key = flag;
    std::cerr << "irqmod " << command << ": " << bad->what() << "\n";
    return kExitBadInput;
  }
  out = open_output(path, flag, command);
  return out ? kExitOk : kExitIoFailed;
}

namespace {

// SIGINT and SIGTERM held in this thread while it lives: a file made, or a child started, is
// registered with the interrupt handler before the handler can run here.
class HeldInterrupts {
 public:
  HeldInterrupts() {
    sigset_t held;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &held, &before_);
  }
  HeldInterrupts(const HeldInterrupts&) = delete;
  HeldInterrupts& operator=(const HeldInterrupts&) = delete;
  ~HeldInterrupts() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

 private:
  sigset_t before_;
};

// A scratch file for gnuplot, made in $TMPDIR (else /tmp) and removed when this goes (or by the
// interrupt handler, which knows it while it exists).
class Scratch {
 public:
  explicit Scratch(const std::string& suffix) {
    const char* tmp = std::getenv("TMPDIR");
    path_ =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/irqmod-plot-XXXXXX" + suffix;
    const HeldInterrupts held;
    const int fd = mkstemps(path_.data(), static_cast<int>(suffix.size()));
    if (fd < 0) {
      path_.clear();
      return;
    }
    cleanup_.hold(path_, "");
    close(fd);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  bool made() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  InterruptCleanup cleanup_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// gnuplot's own messages for the user: each line as "  gnuplot: ...", the last 20 at most.
std::string gnuplot_said(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t^") != std::string::npos) lines.push_back(line);
  }
  const std::size_t from = lines.size() > 20 ? lines.size() - 20 : 0;
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i)
    out += "\n  gnuplot: " + lines[i];
  return out;
}

// Runs `gnuplot script` with standard input from /dev/null and standard error into `log`.
// Returns the wait status, or -1 with `spawn_error` set when it could not be started.
int run_gnuplot(const std::string& script, const std::string& log, int& spawn_error) {
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, log.c_str(), O_WRONLY | O_TRUNC, 0);
  // The child starts with no signal held (this thread holds SIGINT and SIGTERM meanwhile).
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setsigmask(&attributes, &none);
  // Its own process group, so that the interrupt handler stops it with whatever it started.
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  std::string program = "gnuplot", argument = script;
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t pid = 0;
  {
    const HeldInterrupts held;
    spawn_error = posix_spawnp(&pid, "gnuplot", &files, &attributes, argv, environ);
    if (spawn_error == 0) set_interrupt_child(pid);
  }
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
  if (spawn_error != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  set_interrupt_child(0);
  return status;
}

}  // namespace

int draw_picture(Output& out, const std::string& path, const char* flag, const std::string& command,
                 const PlotMaker& make) {
  const std::size_t dot = path.rfind('.');
  const std::string extension = dot == std::string::npos ? "" : path.substr(dot);
  const Scratch data(".data"), script(".gp"), image(extension), log(".log");
  if (!data.made() || !script.made() || !image.made() || !log.made()) {
    std::cerr << "irqmod " << command << ": " << flag
              << ": cannot make a scratch file for gnuplot in $TMPDIR or /tmp\n";
    return kExitIoFailed;
  }
  auto files = make(image.path(), data.path());
  if (!files) {
    Error error = files.error();
    if (error.key == "--plot") error.key = flag;
    std::cerr << "irqmod " << command << ": " << error.what() << "\n";
    return kExitBadInput;
  }
  {
    std::ofstream d(data.path()), g(script.path());
    d << files->data;
    g << files->script;
  }
  int spawn_error = 0;
  const int status = run_gnuplot(script.path(), log.path(), spawn_error);
  const std::string said = gnuplot_said(read_all(log.path()));
  std::ifstream picture(image.path(), std::ios::binary);
  const bool drawn = picture && picture.peek() != std::ifstream::traits_type::eof();
  std::string failure;
  if (status < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
    failure = "gnuplot could not be started (" +
              std::string(std::strerror(spawn_error != 0 ? spawn_error : ENOENT)) +
              "): is Debian's gnuplot-nox installed? (scripts/install-deps.sh)";
  } else if (WIFSIGNALED(status)) {
    failure = "gnuplot died of signal " + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ") drawing '" + path + "'";
  } else if (WEXITSTATUS(status) != 0) {
    failure =
        "gnuplot could not draw '" + path + "' (exit " + std::to_string(WEXITSTATUS(status)) + ")";
  } else if (!drawn) {
    failure = "gnuplot wrote no picture for '" + path + "'";
  }
  if (!failure.empty()) {
    std::cerr << "irqmod " << command << ": " << flag << ": " << failure << said << "\n";
    return kExitIoFailed;
  }
  for (const std::string& note : files->notes)
    std::cerr << "irqmod " << command << ": " << flag << ": note: " << note << "\n";
  out.stream() << picture.rdbuf();
  return commit_output(out, command) ? kExitOk : kExitIoFailed;
}

int open_table_files(const std::string& csv, const std::string& json, const std::string& picture,
                     const std::string& command, TableFiles& files) {
  for (const auto& [path, flag, holder] :
       {std::tuple{&csv, "--csv", &files.csv}, std::tuple{&json, "--json", &files.json}}) {
    if (path->empty()) continue;
    *holder = open_output(*path, flag, command);
    if (!*holder) return kExitIoFailed;
  }
  files.picture_path = picture;
  if (picture.empty()) return kExitOk;
  return open_picture(picture, "--plot", command, files.picture);
}

int write_table_files(TableFiles& files, const sweep::Table& table,
                      const sweep::PlotRequest& request, const std::string& command) {
  for (const auto& [out, as_json] :
       {std::pair{files.csv.get(), false}, std::pair{files.json.get(), true}}) {
    if (!out) continue;
    if (as_json) {
      sweep::write_json(out->stream(), table);
    } else {
      sweep::write_csv(out->stream(), table);
    }
    if (!commit_output(*out, command)) return kExitIoFailed;
  }
  if (!files.picture) return kExitOk;
  const char* flag = command == "plot" ? "--out" : "--plot";
  return draw_picture(*files.picture, files.picture_path, flag, command,
                      [&](const std::string& image, const std::string& data) {
                        sweep::PlotRequest scratch = request;
                        scratch.output = image;
                        return sweep::make_plot(table, scratch, data);
                      });
}

int draw_plot(const sweep::Table& table, const sweep::PlotRequest& request,
              const std::string& command) {
  // irqmod plot names the picture with -o/--out: a message names the one typed.
  TableFiles files;
  files.picture_path = request.output;
  if (const int opened = open_picture(request.output, "--out", command, files.picture))
    return opened;
  return write_table_files(files, table, request, command);
}

PointProgress::PointProgress() : start_(SteadyClock::now()), tty_(isatty(STDERR_FILENO) != 0) {}

void PointProgress::update(std::size_t done, std::size_t total) {
  if (!tty_ || total == 0) return;
  const double elapsed = static_cast<double>((SteadyClock::now() - start_).count()) / 1e9;
  const double fraction = static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * 30.0);
  const double left =
      done ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0.0;
  std::fprintf(stderr, "\r[%-30s] %zu/%zu points  %.0f s left ", std::string(filled, '#').c_str(),
               done, total, left);
  std::fflush(stderr);
  shown_ = true;
}

void PointProgress::finish() const {
  if (shown_) std::fprintf(stderr, "\r%70s\r", "");
}

}  // namespace irqmod::cli
