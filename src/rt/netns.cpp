// Entering a named network namespace and coming back (netns.hpp).
#include "irqmod/rt/netns.hpp"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace irqmod::rt {

std::string device_name(std::uint32_t ifindex) {
  char name[IF_NAMESIZE] = {};
  return ::if_indextoname(ifindex, name) ? name : "?";
}

bool netns_exists(const std::string& name) {
  struct stat st {};
  return !name.empty() && ::stat((std::string(kNetnsDir) + "/" + name).c_str(), &st) == 0;
}

NetnsGuard::NetnsGuard(const std::string& name) {
  if (name.empty()) return;
  original_ = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (original_ < 0) {
    error_ =
        Error{"--netns", std::string("cannot open /proc/self/ns/net: ") + std::strerror(errno)};
    return;
  }
  const std::string path = std::string(kNetnsDir) + "/" + name;
  const int target = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) {
    const int err = errno;
    error_ = Error{"--netns", err == ENOENT ? "no network namespace named '" + name +
                                                  "' (`ip netns list` shows those there are)"
                                            : "cannot open " + path + ": " + std::strerror(err)};
  } else if (::setns(target, CLONE_NEWNET) != 0) {
    const int err = errno;
    // Not being root is the environment's fault, not the name's: no flag in the key.
    error_ = Error{err == EPERM ? "" : "--netns", "cannot enter network namespace '" + name +
                                                      "': " + std::strerror(err) +
                                                      (err == EPERM ? " (needs root)" : "")};
  }
  if (target >= 0) ::close(target);
  if (error_) {
    ::close(original_);
    original_ = -1;
  }
}

NetnsGuard::~NetnsGuard() {
  if (original_ < 0) return;
  // Failing to come back would leave every later socket in the wrong namespace: stop loudly.
  if (::setns(original_, CLONE_NEWNET) != 0) {
    std::fprintf(stderr, "irqmod: cannot return to the original network namespace: %s\n",
                 std::strerror(errno));
    std::abort();
  }
  ::close(original_);
}

}  // namespace irqmod::rt
