// A section of the report whose type belongs to a model's own folder (src/sim/xdp/,
// src/sim/storage/): held by value like std::optional, but declared here only by name, so that
// the public report does not carry the model's private types. Its members are instantiated
// where the type is complete (`template class OptionalSection<T>;` beside the type); a header
// that names one declares that with `extern template class OptionalSection<T>;`.
#pragma once

#include <memory>

namespace irqmod::sim {

template <class T>
class OptionalSection {
 public:
  OptionalSection() noexcept;
  OptionalSection(const OptionalSection& other);
  OptionalSection(OptionalSection&& other) noexcept;
  OptionalSection& operator=(const OptionalSection& other);
  OptionalSection& operator=(OptionalSection&& other) noexcept;
  ~OptionalSection();

  bool has_value() const noexcept { return value_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  // Precondition: has_value().
  T& operator*() noexcept { return *value_; }
  const T& operator*() const noexcept { return *value_; }
  T* operator->() noexcept { return value_.get(); }
  const T* operator->() const noexcept { return value_.get(); }

  // A section with every counter at zero (or `value`), replacing any held before.
  T& emplace();
  T& emplace(const T& value);
  void reset() noexcept;

 private:
  std::unique_ptr<T> value_;
};

// Out of line, every one: even a defaulted constructor would need T's destructor.
template <class T>
OptionalSection<T>::OptionalSection() noexcept = default;

template <class T>
OptionalSection<T>::OptionalSection(const OptionalSection& other)
    : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}

template <class T>
OptionalSection<T>::OptionalSection(OptionalSection&& other) noexcept
    : value_(std::move(other.value_)) {}

template <class T>
OptionalSection<T>& OptionalSection<T>::operator=(const OptionalSection& other) {
  if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
  return *this;
}

template <class T>
OptionalSection<T>& OptionalSection<T>::operator=(OptionalSection&& other) noexcept {
  value_ = std::move(other.value_);
  return *this;
}

template <class T>
OptionalSection<T>::~OptionalSection() = default;

template <class T>
T& OptionalSection<T>::emplace() {
  value_ = std::make_unique<T>();
  return *value_;
}

template <class T>
T& OptionalSection<T>::emplace(const T& value) {
  value_ = std::make_unique<T>(value);
  return *value_;
}

template <class T>
void OptionalSection<T>::reset() noexcept {
  value_.reset();
}

}  // namespace irqmod::sim
