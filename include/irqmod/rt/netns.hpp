// Running code inside a named network namespace (`ip netns` names, /run/netns/NAME), Linux only.
//
// The process switches its own network namespace with setns(2) and switches back when the guard
// ends. Sockets keep the namespace they were opened in, so a socket opened inside a guard keeps
// working after it. Not for multi-threaded callers: setns changes the calling thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "irqmod/error.hpp"

namespace irqmod::rt {

// Where `ip netns add` keeps its named namespaces.
inline constexpr const char* kNetnsDir = "/run/netns";

// True when `ip netns` has a namespace of this name.
bool netns_exists(const std::string& name);

// The name of device `ifindex` in the namespace the process is in, or "?" when there is none.
std::string device_name(std::uint32_t ifindex);

class NetnsGuard {
 public:
  // Enters `name`; an empty name stays where the process is. Check error() before use.
  explicit NetnsGuard(const std::string& name);
  NetnsGuard(const NetnsGuard&) = delete;
  NetnsGuard& operator=(const NetnsGuard&) = delete;
  ~NetnsGuard();

  // Set when entering failed; the process is then still in its own namespace.
  const std::optional<Error>& error() const { return error_; }

 private:
  int original_ = -1;  // the namespace to return to, or -1 when none was left
  std::optional<Error> error_;
};

}  // namespace irqmod::rt
