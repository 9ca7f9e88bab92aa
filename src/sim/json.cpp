// The JSON writer: escaping and comma bookkeeping.
#include "irqmod/sim/json.hpp"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace irqmod::sim {

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!stack_.empty()) {
    if (!stack_.back()) out_ << ',';
    stack_.back() = false;
  } else {
    assert(!wrote_root_ && "one root value per document");
    wrote_root_ = true;
  }
}

void JsonWriter::begin_object() {
  before_value();
  out_ << '{';
  stack_.push_back(true);
}

void JsonWriter::end_object() {
  assert(!stack_.empty() && !after_key_);
  stack_.pop_back();
  out_ << '}';
}

void JsonWriter::begin_array() {
  before_value();
  out_ << '[';
  stack_.push_back(true);
}

void JsonWriter::end_array() {
  assert(!stack_.empty());
  stack_.pop_back();
  out_ << ']';
}

void JsonWriter::key(std::string_view name) {
  assert(!stack_.empty() && !after_key_);
  if (!stack_.back()) out_ << ',';
  stack_.back() = false;
  scratch_.clear();
  append_json_string(scratch_, name);
  out_ << scratch_ << ':';
  after_key_ = true;
}

void JsonWriter::value(std::string_view text) {
  before_value();
  scratch_.clear();
  append_json_string(scratch_, text);
  out_ << scratch_;
}

void JsonWriter::value(std::int64_t number) {
  before_value();
  out_ << number;
}

void JsonWriter::value(std::uint64_t number) {
  before_value();
  out_ << number;
}

void JsonWriter::value(double number, int significant) {
  before_value();
  if (!std::isfinite(number)) {
    out_ << "null";
    return;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", significant, number);
  out_ << buf;
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
}

void JsonWriter::null() {
  before_value();
  out_ << "null";
}

}  // namespace irqmod::sim
