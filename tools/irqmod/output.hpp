// Where a command's results go, and the exit statuses every command shares.
//
// A result file is written under a temporary name beside it and renamed into place only once it
// is complete, flushed and closed without error: a full disk or a killed run never leaves a
// cut-off file that looks finished. Standard output is checked once, at exit (finish_stdout).
#pragma once

#include <fstream>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "irqmod/error.hpp"

namespace irqmod::cli {

// The exit statuses, one convention for every command (README, "Exit status"; `irqmod --help`).
inline constexpr int kExitOk = 0;         // success
inline constexpr int kExitRunFailed = 1;  // the run found a problem: conservation broken, an
                                          // objective not met, a system call the work needs failed
inline constexpr int kExitBadInput = 2;   // bad usage, file contents or values
inline constexpr int kExitIoFailed = 3;   // results could not be written (a file, standard output)

// ---- Interrupted runs ----------------------------------------------------------------------
//
// A command whose results are files calls remove_results_on_interrupt() before its work. From
// then on SIGINT and SIGTERM remove every temporary file still registered (Output's
// "<path>.tmp-<pid>", a picture's scratch files), stop a child still registered (gnuplot), say on
// stderr which results were not written and exit 128 + the signal: 130 for SIGINT, 143 for
// SIGTERM. The handler only unlinks, kills, waits and writes (async-signal-safe calls); the
// registry is a fixed table of slots, so registering does not allocate in the handler's way.

// `program` ("irqmod sim") begins the handler's line; it must outlive the command.
void remove_results_on_interrupt(const char* program);

// A file the handler removes while it is registered; `shown` is how the user named it ("--json
// r.json"), empty for a scratch file nobody asked for. Moving a registration is not needed.
class InterruptCleanup {
 public:
  InterruptCleanup() = default;
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;
  ~InterruptCleanup() { release(); }
  void hold(const std::string& path, const std::string& shown);  // registers (one file at a time)
  void release();  // the file is the command's again (renamed into place, or removed by it)

 private:
  int slot_ = -1;  // the registry's slot, -1: none (the table was full, or released)
};

// The child the handler kills (SIGKILL to its process group, which it leads) and waits for
// before removing the files; 0: none.
void set_interrupt_child(int pid);

// ---- Result files ---------------------------------------------------------------------------

// One result output: a file, or standard output for "-".
class Output {
 public:
  // Opens `path` for `flag` (the option that named it, "--json", used in errors). A regular file
  // (or one that does not exist yet) is written as "<path>.tmp-<pid>" and renamed by commit()
  // (a symbolic link's file is replaced, the link kept);
  // anything else (/dev/null, a FIFO, /dev/stdout) is written in place.
  static Expected<std::unique_ptr<Output>> open(const std::string& path, const std::string& flag);

  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();  // removes the temporary file when commit() was not reached or failed

  std::ostream& stream();
  bool is_stdout() const { return path_ == "-"; }

  // Flushes and closes the file and renames it into place; for "-", flushes standard output.
  // An Error keyed by the flag names the path and the system's reason. Call once.
  std::optional<Error> commit();

 private:
  Output(std::string path, std::string flag) : path_(std::move(path)), flag_(std::move(flag)) {}

  std::string path_;          // as given; "-" is standard output
  std::string flag_;          // "--json"
  std::string target_;        // the file renamed onto: path_, or the file a symbolic link names
  std::string temporary_;     // the name written until commit(); empty: written in place
  InterruptCleanup cleanup_;  // temporary_, removed at SIGINT / SIGTERM until commit()
  std::ofstream file_;
};

// Flushes and closes standard output (std::cout and printf share it) at the end of a command
// and reports a failure on standard error naming `program`. Returns `status`, or kExitIoFailed
// when it was kExitOk and standard output could not be written.
int finish_stdout(int status, const char* program);

}  // namespace irqmod::cli
