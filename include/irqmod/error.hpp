// The one way irqmod reports a user error: a value that names what was wrong and what is allowed.
//
// Configuration is validated once, at the edge. A validator returns an Error whose `key` is the
// user's own name for the setting (ethtool's `rx-usecs`, a CSV column, a command-line flag) and
// whose `message` says what is allowed. The policy cores never throw.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace irqmod {

struct Error {
  std::string key;      // the setting or field, in the user's vocabulary
  std::string message;  // what is wrong and what is allowed

  std::string what() const { return key.empty() ? message : key + ": " + message; }
};

// Either a value or the Error explaining why there is none.
template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace irqmod
