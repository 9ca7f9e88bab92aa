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

  std::string path_;       // as given; "-" is standard output
  std::string flag_;       // "--json"
  std::string target_;     // the file renamed onto: path_, or the file a symbolic link names
  std::string temporary_;  // the name written until commit(); empty: written in place
  std::ofstream file_;
};

// Flushes and closes standard output (std::cout and printf share it) at the end of a command
// and reports a failure on standard error naming `program`. Returns `status`, or kExitIoFailed
// when it was kExitOk and standard output could not be written.
int finish_stdout(int status, const char* program);

}  // namespace irqmod::cli
