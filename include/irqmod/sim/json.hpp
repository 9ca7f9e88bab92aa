// A small streaming JSON writer for the simulator's outputs (results, timeline). It tracks
// commas and nesting so that every document it finishes is well formed; strings are escaped per
// RFC 8259, non-finite doubles become null (JSON has no NaN or infinity).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace irqmod::sim {

// Appends `text` as a JSON string literal (quotes included) to `out`.
void append_json_string(std::string& out, std::string_view text);

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // The next value's key. Only inside an object.
  void key(std::string_view name);

  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(std::int64_t number);
  void value(std::uint64_t number);
  void value(int number) { value(static_cast<std::int64_t>(number)); }
  void value(unsigned number) { value(static_cast<std::uint64_t>(number)); }
  // Doubles with `significant` digits (%.*g); NaN and infinities are written as null.
  void value(double number, int significant = 9);
  void value(bool flag);
  void null();

  template <typename T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  // True when every object and array begun has been ended.
  bool complete() const { return stack_.empty() && wrote_root_; }

 private:
  void before_value();

  std::ostream& out_;
  std::vector<bool> stack_;  // per open container: true while it is still empty
  bool after_key_ = false;
  bool wrote_root_ = false;
  std::string scratch_;
};

}  // namespace irqmod::sim
