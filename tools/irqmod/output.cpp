#include "output.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace irqmod::cli {
namespace {

std::string reason(int err) {
  return err != 0 ? std::string(std::strerror(err)) : std::string("write error");
}

// ---- the interrupt handler's registry ----

constexpr int kSlots = 32;           // files at once: a command has at most a handful
constexpr std::size_t kPath = 4096;  // PATH_MAX
constexpr std::size_t kShown = 512;

// A slot is free (0), being filled or emptied (1), or holds a file (2). The handler reads only
// slots in state 2, whose text is complete.
struct Slot {
  std::atomic<int> state{0};
  char path[kPath];
  char shown[kShown];
};
Slot g_slots[kSlots];
std::atomic<int> g_child{0};
const char* g_program = "irqmod";
bool g_stderr_tty = false;

// The handler's line, built without allocation.
struct Line {
  char text[kSlots * (kShown + 2) + 256];
  std::size_t size = 0;
  void add(const char* s) {
    while (*s != '\0' && size + 1 < sizeof text)
      text[size++] = *s++;
  }
};

void copy(char* to, std::size_t capacity, const std::string& from) {
  const std::size_t n = std::min(from.size(), capacity - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

void on_interrupt(int signal) {
  const int child = g_child.load();
  if (child > 0) {
    ::kill(-child, SIGKILL);  // its process group (draw_picture starts it in one of its own)
    ::waitpid(child, nullptr, 0);
  }
  static Line line;  // static: the handler runs once (the exit follows), and not on a small stack
  if (g_stderr_tty) line.add("\n");
  line.add(g_program);
  line.add(signal == SIGINT ? ": interrupted (SIGINT)" : ": terminated (SIGTERM)");
  std::size_t lost = 0;
  for (Slot& slot : g_slots) {
    if (slot.state.load() != 2) continue;
    // A temporary file that is gone was renamed into place just now: that result was written.
    if (::unlink(slot.path) != 0 || slot.shown[0] == '\0') continue;
    line.add(lost++ == 0 ? "; not written: " : ", ");
    line.add(slot.shown);
  }
  if (lost == 0) line.add("; no result file was being written");
  line.add("\n");
  std::size_t written = 0;
  while (written < line.size) {
    const ssize_t n = ::write(STDERR_FILENO, line.text + written, line.size - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::_exit(128 + signal);
}

}  // namespace

void remove_results_on_interrupt(const char* program) {
  g_program = program;
  g_stderr_tty = ::isatty(STDERR_FILENO) != 0;
  struct sigaction action {};
  action.sa_handler = &on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

void InterruptCleanup::hold(const std::string& path, const std::string& shown) {
  release();
  for (int i = 0; i < kSlots; ++i) {
    int free = 0;
    if (!g_slots[i].state.compare_exchange_strong(free, 1)) continue;
    copy(g_slots[i].path, kPath, path);
    copy(g_slots[i].shown, kShown, shown);
    g_slots[i].state.store(2);
    slot_ = i;
    return;
  }
  // Every slot taken: the file is left to the destructor's removal, as before this registry.
}

void InterruptCleanup::release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(1);
  g_slots[slot_].state.store(0);
  slot_ = -1;
}

void set_interrupt_child(int pid) {
  g_child.store(pid);
}

Expected<std::unique_ptr<Output>> Output::open(const std::string& path, const std::string& flag) {
  std::unique_ptr<Output> out(new Output(path, flag));
  if (path == "-") return out;
  if (path.empty()) return Error{flag, "needs a file name ('-': standard output)"};
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return Error{flag, "'" + path + "' is a directory"};
  // Special files (a device, a FIFO) cannot be replaced by a rename: they are written in place.
  if (!exists || S_ISREG(st.st_mode)) {
    // A symbolic link to a file: the file is replaced, the link kept.
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::canonical(path, ec);
    out->target_ = exists && !ec ? target.string() : path;
    out->temporary_ = out->target_ + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
  }
  const std::string& name = out->temporary_.empty() ? path : out->temporary_;
  errno = 0;
  // Registered before it is created, so that no moment leaves it behind at SIGINT.
  if (!out->temporary_.empty()) out->cleanup_.hold(out->temporary_, flag + " " + path);
  out->file_.open(name, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out->file_) {
    const int err = errno;
    out->cleanup_.release();
    const bool beside = !out->temporary_.empty();
    out->temporary_.clear();  // nothing was created
    // The directory is there but takes no new file (/proc, a read-only mount): the system's
    // reason alone ("No such file or directory" for /proc/version) would point the wrong way.
    const std::filesystem::path directory =
        std::filesystem::path(out->target_).parent_path().empty()
            ? std::filesystem::path(".")
            : std::filesystem::path(out->target_).parent_path();
    struct stat dir {};
    if (beside && ::stat(directory.c_str(), &dir) == 0 && S_ISDIR(dir.st_mode)) {
      return Error{flag, "cannot write '" + path + "': its directory '" + directory.string() +
                             "' takes no new file (" + reason(err) +
                             "); a result is written beside its name and renamed into place"};
    }
    return Error{flag, "cannot write '" + path + "': " + reason(err)};
  }
  return out;
}

Output::~Output() {
  if (!temporary_.empty()) {
    file_.close();
    std::remove(temporary_.c_str());
  }
}

std::ostream& Output::stream() {
  return is_stdout() ? std::cout : file_;
}

std::optional<Error> Output::commit() {
  if (is_stdout()) {
    errno = 0;
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
      return Error{flag_, "cannot write standard output: " + reason(errno)};
    return std::nullopt;
  }
  errno = 0;
  file_.flush();
  const bool flushed = static_cast<bool>(file_);
  int err = errno;
  file_.close();
  if (flushed && !file_) err = errno;
  if (!flushed || !file_) return Error{flag_, "cannot write '" + path_ + "': " + reason(err)};
  if (!temporary_.empty()) {
    if (std::rename(temporary_.c_str(), target_.c_str()) != 0)
      return Error{flag_,
                   "cannot rename '" + temporary_ + "' to '" + target_ + "': " + reason(errno)};
    cleanup_.release();
    temporary_.clear();
  }
  return std::nullopt;
}

int finish_stdout(int status, const char* program) {
  errno = 0;
  std::cout.flush();
  // Not fclose(stdout): std::cout flushes through it once more when the program ends.
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  const int err = errno;
  if (!failed) return status;
  std::cerr << program << ": cannot write standard output: " << reason(err) << "\n";
  return status == kExitOk ? kExitIoFailed : status;
}

}  // namespace irqmod::cli
