#include "output.hpp"

#include <sys/stat.h>
#include <unistd.h>

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

}  // namespace

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
  out->file_.open(name, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out->file_) {
    const int err = errno;
    out->temporary_.clear();  // nothing was created
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
